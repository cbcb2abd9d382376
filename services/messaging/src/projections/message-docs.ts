/**
 * Messaging's read-model documents and their ids: every message once; the shape of a
 * user's row for a message (their flags and the message's narrow keys), which the
 * per-user state keeps only where it must (personal-state.ts); and users' topic
 * visibility policies.
 */
import type { MessageReaction, MessageSubmessage, MessageView, EditHistoryEntry } from '@teamchat/contracts';
import type { Doc, Filter } from '@teamchat/platform';

/** A stored message: the API's view of it (contracts MessageView) plus what narrows need. */
export interface MessageDoc extends Doc, Omit<MessageView, 'id' | 'reactions' | 'submessages' | 'edit_history' | 'last_edit_timestamp' | 'last_moved_timestamp'> {
  /** The message id: the position of its MessageSent fact. */
  _id: number;
  /** The message's own stream, where its later facts are appended. */
  stream: string;
  /** Set for channel messages, null for direct ones: the narrow keys. */
  channel_id: number | null;
  topic_lc: string | null;
  /** Sorted participant ids joined by commas, for direct messages. */
  dm_key: string | null;
  reactions: MessageReaction[];
  /** The widget's submessages, oldest first; absent in documents written before widgets existed: none. */
  submessages?: MessageSubmessage[];
  /** Newest first. */
  edit_history: EditHistoryEntry[];
  last_edit_timestamp: number | null;
  last_moved_timestamp: number | null;
  /**
   * Set once a move took the message to another channel (or from someone): who holds it
   * is its rows alone, no longer its channel's receipt intervals (personal-state.ts).
   */
  own_receipts?: true;
  /**
   * Derived from rendered_content and the topic whenever either changes, so the search
   * and has: narrows test a field instead of parsing HTML for every candidate.
   */
  search_text: string;
  has_link: boolean;
  has_image: boolean;
  has_attachment: boolean;
}

export interface UserMessageDoc extends Doc {
  /**
   * `${message_id}:${user_id}`: a message's rows are neighbours, found by their ids'
   * range (rowsOf).
   */
  _id: string;
  user_id: number;
  message_id: number;
  flags: string[];
  /** Derived from `flags`, as indexable fields for the is:unread / is:starred / is:mentioned narrows. */
  unread: boolean;
  starred: boolean;
  mentioned: boolean;
  channel_id: number | null;
  topic_lc: string | null;
  dm_key: string | null;
  /** A direct message: the key of the is:dm index. */
  direct: boolean;
  /** Copied from the message, for the sender and has: narrows over personal history. */
  sender_id: number;
  has_link: boolean;
  has_image: boolean;
  has_attachment: boolean;
}

/** The flag-derived fields of a personal-history row. */
export function flagKeys(flags: string[]): Pick<UserMessageDoc, 'flags' | 'unread' | 'starred' | 'mentioned'> {
  return {
    flags,
    unread: !flags.includes('read'),
    starred: flags.includes('starred'),
    mentioned: flags.includes('mentioned') || flags.includes('wildcard_mentioned'),
  };
}

export interface UserTopicDoc extends Doc {
  /** `${user_id}:${channel_id}:${topic_lc}` */
  _id: string;
  user_id: number;
  channel_id: number;
  topic: string;
  topic_lc: string;
  visibility_policy: number;
  last_updated: number;
}

export const userMessageId = (userId: number, messageId: number) => `${messageId}:${userId}`;
/** Every row of a message: the ids from `${id}:` up to, not including, `${id};` (';' follows ':'). */
export const rowsOfMessage = (messageId: number): Filter => ({ _id: { $gte: `${messageId}:`, $lt: `${messageId};` } });

export const userTopicId = (userId: number, channelId: number, topic: string) => `${userId}:${channelId}:${topic.toLowerCase()}`;

export function dmKey(userIds: number[]): string {
  return [...new Set(userIds)].sort((a, b) => a - b).join(',');
}

/**
 * A conversation key's user ids (dmKey's inverse; none for an empty or absent key), each
 * list from the one literal below: an empty key's `[]` and a split's mapped array have
 * different shapes in V8, and the unread listing's optimized loop that met both was
 * thrown away at every registration (--trace-deopt: "wrong map").
 */
export function participantsOfKey(key: string | null | undefined): number[] {
  const ids: number[] = [];
  if (key) for (const part of key.split(',')) ids.push(Number(part));
  return ids;
}
