/**
 * Facts of messaging's streams: recipients, messages (sent, edited, moved, deleted),
 * reactions, widgets' submessages, personal message flags and topic visibility policies.
 */
import { z } from 'zod';
import { Widget } from './widgets';

export const RecipientAllocated = z.object({
  type: z.literal('RecipientAllocated'),
  /** `channel:<id>` or `direct:<sorted user ids joined by commas>`. */
  key: z.string(),
  recipient_id: z.number().int(),
});

/** A link found in a topic (the message's `topic_links`). */
const TopicLink = z.object({ text: z.string(), url: z.string() });

/** A participant of a direct message, as `display_recipient` lists them. */
const DisplayRecipientUser = z.object({
  id: z.number().int(),
  email: z.string(),
  full_name: z.string(),
  is_mirror_dummy: z.boolean(),
});
export type DisplayRecipientUser = z.infer<typeof DisplayRecipientUser>;

export const MessageSent = z.object({
  type: z.literal('MessageSent'),
  sender_id: z.number().int(),
  /** Snapshot of the sender at send time, for the `message` event. */
  sender_email: z.string(),
  sender_full_name: z.string(),
  recipient: z.discriminatedUnion('type', [
    z.object({ type: z.literal('channel'), channel_id: z.number().int(), channel_name: z.string(), topic: z.string() }),
    /** `users` holds every participant, the sender included, ordered by id. */
    z.object({ type: z.literal('direct'), users: z.array(DisplayRecipientUser) }),
  ]),
  content: z.string(),
  rendered_content: z.string(),
  is_me_message: z.boolean(),
  client: z.string(),
  recipient_id: z.number().int(),
  /** Seconds since the epoch. */
  timestamp: z.number().int(),
  /** Everyone who receives the message (gets it in their personal history and queues). */
  recipient_user_ids: z.array(z.number().int()),
  mentioned_user_ids: z.array(z.number().int()),
  wildcard_mentioned_user_ids: z.array(z.number().int()),
  read_by_sender: z.boolean(),
  /** The sender's queue and the client's id for local echo. */
  local_echo: z.object({ queue_id: z.string(), local_id: z.string() }).nullable(),
  /** Recipients with one of their alert words in the message (their `has_alert_word` flag); absent: none. */
  alert_word_user_ids: z.array(z.number().int()).optional(),
  /**
   * Recipients who had muted the sender when it was sent: it reaches them already read,
   * as in Zulip (so it never counts as unread nor notifies them); absent: none.
   */
  muted_sender_user_ids: z.array(z.number().int()).optional(),
  /** What the organization's linkifiers (and web addresses) make of the topic when sent; absent: none. */
  topic_links: z.array(TopicLink).optional(),
  /** The poll or to-do list the content starts with (`/poll`, `/todo`), made when sent; absent: none. */
  widget: Widget.optional(),
});

const Reaction = z.object({
  message_id: z.number().int(),
  user_id: z.number().int(),
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.enum(['unicode_emoji', 'realm_emoji', 'service_extra_emoji']),
  /** Who may see the message now: the users the change is announced to. */
  audience_user_ids: z.array(z.number().int()),
});
export const ReactionAdded = Reaction.extend({ type: z.literal('ReactionAdded') });
export const ReactionRemoved = Reaction.extend({ type: z.literal('ReactionRemoved') });

/**
 * A submessage added to a message (a vote, a new poll option, a task struck, ...). Its id
 * is the position of this fact; its content is the JSON string the client sent, as checked.
 */
export const SubmessageAdded = z.object({
  type: z.literal('SubmessageAdded'),
  message_id: z.number().int(),
  sender_id: z.number().int(),
  msg_type: z.string(),
  content: z.string(),
  /** Who may see the message now: the users the submessage is announced to. */
  audience_user_ids: z.array(z.number().int()),
});

/** Personal flags a user may change; the others (mentioned, …) follow from content. */
export const EDITABLE_FLAGS = ['read', 'starred', 'collapsed'] as const;

export const MessageFlagsUpdated = z.object({
  type: z.literal('MessageFlagsUpdated'),
  user_id: z.number().int(),
  op: z.enum(['add', 'remove']),
  flag: z.enum(EDITABLE_FLAGS),
  /** Only the messages whose flag actually changed. */
  message_ids: z.array(z.number().int()),
  /**
   * When messages become unread again: where each one is, so clients can put it back
   * in their unread counts (the `message_details` of the event).
   */
  message_details: z
    .record(
      z.string(),
      z.union([
        z.object({ type: z.literal('channel'), channel_id: z.number().int(), topic: z.string(), mentioned: z.boolean().optional() }),
        z.object({ type: z.literal('direct'), user_ids: z.array(z.number().int()), mentioned: z.boolean().optional() }),
      ]),
    )
    .optional(),
});

export const MessageEdited = z.object({
  type: z.literal('MessageEdited'),
  message_id: z.number().int(),
  editor_id: z.number().int(),
  /** Seconds since the epoch. */
  timestamp: z.number().int(),
  /** Present when the content changed. */
  content: z
    .object({
      prev_content: z.string(),
      prev_rendered_content: z.string(),
      content: z.string(),
      rendered_content: z.string(),
      is_me_message: z.boolean(),
      mentioned_user_ids: z.array(z.number().int()),
      wildcard_mentioned_user_ids: z.array(z.number().int()),
      /**
       * Recipients with one of their alert words in the new content (their
       * `has_alert_word` flag follows it); absent in edits stored before alert words
       * existed, which leave the flag as it was.
       */
      alert_word_user_ids: z.array(z.number().int()).optional(),
    })
    .nullable(),
  /** Present when messages moved to another topic and/or channel. */
  move: z
    .object({
      prev_channel_id: z.number().int(),
      channel_id: z.number().int(),
      channel_name: z.string(),
      prev_topic: z.string(),
      topic: z.string(),
      propagate_mode: z.enum(['change_one', 'change_later', 'change_all']),
      /** Every message moved, the edited one included, ascending. */
      message_ids: z.array(z.number().int()),
      /** Recipient id of the destination channel. */
      recipient_id: z.number().int(),
      /**
       * Users who had the messages but may not see them where they now are (a private
       * destination they are not subscribed to): the messages leave their history.
       */
      revoked_user_ids: z.array(z.number().int()),
      /** When the topic changed: the new topic's links (absent: none). */
      topic_links: z.array(TopicLink).optional(),
    })
    .nullable(),
  audience_user_ids: z.array(z.number().int()),
});

export const MessageDeleted = z.object({
  type: z.literal('MessageDeleted'),
  message_id: z.number().int(),
  deleted_by: z.number().int(),
  /** Where the message was, for the `delete_message` event. */
  channel_id: z.number().int().nullable(),
  topic: z.string().nullable(),
  audience_user_ids: z.array(z.number().int()),
});

/** Topic visibility policy values, as Zulip numbers them. */
export const VISIBILITY_POLICY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

export const UserTopicUpdated = z.object({
  type: z.literal('UserTopicUpdated'),
  user_id: z.number().int(),
  channel_id: z.number().int(),
  topic: z.string(),
  visibility_policy: z.number().int().min(0).max(3),
  /** Seconds since the epoch. */
  last_updated: z.number().int(),
});

export const MESSAGE_FACTS = [
  RecipientAllocated,
  MessageSent,
  ReactionAdded,
  ReactionRemoved,
  SubmessageAdded,
  MessageFlagsUpdated,
  MessageEdited,
  MessageDeleted,
  UserTopicUpdated,
] as const;
