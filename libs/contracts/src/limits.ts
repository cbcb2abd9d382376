/** Server version facts and the limits announced by POST /register. */

export const ZULIP_FEATURE_LEVEL = 496;
export const ZULIP_VERSION = '11.0-teamchat';

export const LIMITS = {
  max_message_length: 10000,
  max_topic_length: 60,
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
} as const;

/**
 * The most bytes one code point takes on the wire in the widest encoding a client may use:
 * four UTF-8 bytes each percent-encoded (`%F0%9F%98%80`), or a JSON surrogate pair
 * (`\ud83d\ude00`).
 */
export const MAX_WIRE_BYTES_PER_CODE_POINT = 12;

/**
 * The request body limit of the endpoints that carry a message's content (sending,
 * editing, rendering): a content of max_message_length code points in the widest encoding
 * (120,000 bytes), a topic, and a quarter of a megabyte for the rest (the recipients of a
 * direct message named by email, multipart framing). The gateway's default, 1 MiB, is
 * for the endpoints that take long lists.
 */
export const MESSAGE_BODY_LIMIT = 512 * 1024;

export const EMPTY_TOPIC_DISPLAY_NAME = 'general chat';

/** GET /messages refuses to return more than this many messages in one request. */
export const MAX_MESSAGES_PER_FETCH = 5000;

/**
 * Anchor reported for `anchor=newest`: larger than any message id, as Zulip does, so
 * clients that page with it keep working.
 */
export const LARGER_THAN_MAX_MESSAGE_ID = 10000000000000000;

export const ROLE = {
  owner: 100,
  administrator: 200,
  moderator: 300,
  member: 400,
  guest: 600,
} as const;
export type Role = (typeof ROLE)[keyof typeof ROLE];
export const ROLES: readonly number[] = Object.values(ROLE);
