/**
 * Messaging's read models: every message once; one row per (user, message) for each user
 * who received it — their personal history, with their flags; and users' topic
 * visibility policies. Every write is a whole document keyed by the fact's subject and
 * computed from the fact and the current document, so replaying a fact changes nothing.
 */
import {
  Fact,
  initialMessageFlags,
  type EditHistoryEntry,
  type FactOf,
  type MessageReaction,
  type MessageView,
} from '@teamchat/contracts';
import type { Collection, Doc, Filter, ReadModelStore, StoredFact } from '@teamchat/platform';
import { LRUCache } from 'lru-cache';

/** A stored message: the API's view of it (contracts MessageView) plus what narrows need. */
export interface MessageDoc extends Doc, Omit<MessageView, 'id' | 'reactions' | 'edit_history' | 'last_edit_timestamp' | 'last_moved_timestamp'> {
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
  /** Newest first. */
  edit_history: EditHistoryEntry[];
  last_edit_timestamp: number | null;
  last_moved_timestamp: number | null;
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
   * `${message_id}:${user_id}`: a message's rows are neighbours, so sending one appends
   * them together at the end of the table instead of into every recipient's range (a
   * third cheaper to write), and they are found by their ids' range (rowsOf).
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

export const MESSAGING_FACT_TYPES = [
  'MessageSent',
  'ReactionAdded',
  'ReactionRemoved',
  'MessageFlagsUpdated',
  'MessageEdited',
  'MessageDeleted',
  'UserTopicUpdated',
] as const;

export const userMessageId = (userId: number, messageId: number) => `${messageId}:${userId}`;

/** Every row of a message: the ids from `${id}:` up to, not including, `${id};` (';' follows ':'). */
const rowsOfMessage = (messageId: number): Filter => ({ _id: { $gte: `${messageId}:`, $lt: `${messageId};` } });

export const userTopicId = (userId: number, channelId: number, topic: string) => `${userId}:${channelId}:${topic.toLowerCase()}`;

export function dmKey(userIds: number[]): string {
  return [...new Set(userIds)].sort((a, b) => a - b).join(',');
}

/** Resolving (or unresolving) a topic only adds or strips this prefix. */
export const RESOLVED_TOPIC_PREFIX = '✔ ';
const withoutResolvedPrefix = (topic: string) => (topic.startsWith(RESOLVED_TOPIC_PREFIX) ? topic.slice(RESOLVED_TOPIC_PREFIX.length) : topic);

/**
 * Words as the search narrow compares them: NFKC, lower-cased, any run of other
 * characters as one space, and a space at each end, so that `' ' + word` finds a word
 * start wherever the word is.
 */
export function searchableText(text: string): string {
  const words = text.normalize('NFKC').toLowerCase().split(/[^\p{L}\p{N}\p{M}]+/u).filter(Boolean);
  return words.length ? ` ${words.join(' ')} ` : ' ';
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** The text a reader sees in rendered HTML: tags dropped, entities decoded. */
function htmlText(html: string): string {
  return html.replace(/<[^>]*>/g, ' ').replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (entity, body: string) => {
    if (body[0] !== '#') return NAMED_ENTITIES[body.toLowerCase()] ?? entity;
    const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
  });
}

const IMAGE_PATH = /\.(?:png|jpe?g|gif|webp|bmp)$/i;
// Channel, topic and message links are rendered from #** syntax, not written as links:
// Zulip does not count them for has:link.
const NAVIGATION_LINK = /\bclass="(?:stream|stream-topic|message-link)"/;

/**
 * What the search and has: narrows read from a message, derived from its rendered
 * content (the renderer's own link rules: an image is a link to an image file, an
 * attachment a link under /user_uploads/) and its topic.
 */
export function messageTextFeatures(renderedContent: string, topic: string | null): Pick<MessageDoc, TextFeature> {
  let hasLink = false;
  let hasImage = false;
  let hasAttachment = false;
  for (const [, attributes] of renderedContent.matchAll(/<a\s([^>]*)>/gi)) {
    const href = /\bhref="([^"]*)"/.exec(attributes!)?.[1];
    if (href === undefined || NAVIGATION_LINK.test(attributes!)) continue;
    hasLink = true;
    const path = href.replace(/&amp;/g, '&').split(/[?#]/, 1)[0]!;
    if (IMAGE_PATH.test(path)) hasImage = true;
    if (path.startsWith('/user_uploads/')) hasAttachment = true;
  }
  return {
    search_text: searchableText(`${topic ?? ''} ${htmlText(renderedContent)}`),
    has_link: hasLink,
    has_image: hasImage,
    has_attachment: hasAttachment,
  };
}

type TextFeature = 'search_text' | LinkField;
type LinkField = 'has_link' | 'has_image' | 'has_attachment';

const linkFields = (message: Pick<MessageDoc, LinkField>): Pick<UserMessageDoc, LinkField> => ({
  has_link: message.has_link,
  has_image: message.has_image,
  has_attachment: message.has_attachment,
});

/** The document with its derived fields (re)computed from its content and topic. */
function withTextFeatures(doc: MessageDoc): MessageDoc {
  return { ...doc, ...messageTextFeatures(doc.rendered_content, doc.recipient.type === 'channel' ? doc.recipient.topic : null) };
}

/** Ids kept per conversation in memory (see MessagesReadModel.conversationIds). */
const RECENT_IDS_PER_CONVERSATION = 200;

interface RecentIds {
  /** The conversation's newest message ids, ascending. */
  ids: number[];
  /** Whether `ids` is every message of the conversation. */
  complete: boolean;
}

/** A range of message ids, as filters write it. */
export type IdRange = { $gt?: number; $gte?: number; $lt?: number; $lte?: number };

export const inIdRange = (id: number, r: IdRange) =>
  (r.$gt === undefined || id > r.$gt) && (r.$gte === undefined || id >= r.$gte) && (r.$lt === undefined || id < r.$lt) && (r.$lte === undefined || id <= r.$lte);

/**
 * The conversation a messages-collection filter names — a channel, a channel's topic or
 * a direct-message conversation — when it names exactly that and nothing else.
 */
export function conversationKey(filter: Filter): string | undefined {
  const fields = Object.keys(filter).sort().join(',');
  const { channel_id: channel, topic_lc: topic, dm_key: dm } = filter;
  if (fields === 'channel_id' && typeof channel === 'number') return `c:${channel}`;
  if (fields === 'channel_id,topic_lc' && typeof channel === 'number' && typeof topic === 'string') return `t:${channel}:${topic}`;
  if (fields === 'dm_key' && typeof dm === 'string') return `d:${dm}`;
  return undefined;
}

const conversationKeysOf = (m: Pick<MessageDoc, 'channel_id' | 'topic_lc' | 'dm_key'>): string[] =>
  m.channel_id !== null ? [`c:${m.channel_id}`, `t:${m.channel_id}:${m.topic_lc}`] : m.dm_key !== null ? [`d:${m.dm_key}`] : [];

/** About 2 KB each in memory. */
const MESSAGE_CACHE_SIZE = 20_000;
/** About 0.3 KB each. */
const USER_MESSAGE_CACHE_SIZE = 100_000;

export class MessagesReadModel {
  readonly messages: Collection<MessageDoc>;
  readonly userMessages: Collection<UserMessageDoc>;
  readonly userTopics: Collection<UserTopicDoc>;

  constructor(readModels: ReadModelStore) {
    // Every narrow that GET /messages serves from an index has one whose fields are the
    // narrow's equalities followed by the id it pages on (see queries/narrow.ts).
    // Recent messages and rows stay in memory: pages of GET /messages are mostly recent.
    this.messages = readModels.collection<MessageDoc>('messages', [
      { fields: ['channel_id', 'topic_lc', '_id'] },
      { fields: ['channel_id', '_id'] },
      { fields: ['dm_key'] },
      // The `date` anchor: the first message sent on or after a time.
      { fields: ['timestamp'] },
    ], { cacheSize: MESSAGE_CACHE_SIZE });
    // One row per recipient of every message makes these indexes the cost of sending:
    // few, and partial where a flag selects few rows. Narrows to a channel, a topic or a
    // conversation read the messages collection's indexes instead (queries/narrow.ts).
    this.userMessages = readModels.collection<UserMessageDoc>('user_messages', [
      { fields: ['user_id', 'message_id'] },
      { fields: ['user_id', 'message_id'], where: { unread: true } },
      { fields: ['user_id', 'message_id'], where: { starred: true } },
      { fields: ['user_id', 'message_id'], where: { mentioned: true } },
      { fields: ['user_id', 'message_id'], where: { direct: true } },
      // Cached when read, not when written: a send writes one row per recipient, and
      // caching each as it was written cost a sixth of a send's CPU (garbage collection).
    ], { cacheSize: USER_MESSAGE_CACHE_SIZE, cacheWrites: false });
    this.userTopics = readModels.collection<UserTopicDoc>('user_topics', [{ fields: ['user_id'] }]);
  }

  /** The collections the messaging projection writes (emptied before a replay from the start). */
  get collections(): { clear(): Promise<void> }[] {
    return [this.messages, this.userMessages, this.userTopics];
  }

  /** The personal-history rows of one message: who received it (or flagged it later). */
  rowsOf(messageId: number): Promise<UserMessageDoc[]> {
    return this.userMessages.find(rowsOfMessage(messageId));
  }

  /**
   * The newest ids of each conversation clients open (a channel, a topic, a direct
   * conversation), kept as messages arrive, so that the first page of one is read
   * without an index query. Filled from the index on first use, extended by every new
   * message, forgotten for the conversations a move or a deletion touches.
   */
  private readonly recent = new LRUCache<string, RecentIds>({ max: 10_000 });

  /**
   * Up to `limit` ids of the conversation `filter` names within `range`, nearest the
   * range's start (per `direction`) first — or undefined when the filter names no single
   * conversation or the range reaches below what is kept, for the index to answer.
   */
  async conversationIds(filter: Filter, range: IdRange, direction: 1 | -1, limit: number): Promise<number[] | undefined> {
    const key = conversationKey(filter);
    if (key === undefined) return undefined;
    let entry = this.recent.get(key);
    if (!entry) {
      const newest = (await this.messages.findIds(filter, { sort: ['_id', -1], limit: RECENT_IDS_PER_CONVERSATION })) as number[];
      entry = { ids: newest.reverse(), complete: newest.length < RECENT_IDS_PER_CONVERSATION };
      this.recent.set(key, entry);
    }
    const oldestKept = entry.ids[0] ?? Number.POSITIVE_INFINITY;
    const lowest = range.$gte ?? (range.$gt !== undefined ? range.$gt + 1 : Number.NEGATIVE_INFINITY);
    // Every id from the oldest kept one up is kept: a range starting there is covered.
    const covered = entry.complete || lowest >= oldestKept;
    const within = entry.ids.filter((id) => inIdRange(id, range));
    if (direction === 1) return covered ? within.slice(0, limit) : undefined;
    const newestFirst = within.reverse();
    return covered || newestFirst.length >= limit ? newestFirst.slice(0, limit) : undefined;
  }

  private rememberSent(message: Pick<MessageDoc, '_id' | 'channel_id' | 'topic_lc' | 'dm_key'>): void {
    for (const key of conversationKeysOf(message)) {
      const entry = this.recent.get(key);
      if (!entry) continue;
      entry.ids.push(message._id);
      if (entry.ids.length > RECENT_IDS_PER_CONVERSATION) {
        entry.ids.shift();
        entry.complete = false;
      }
    }
  }

  private forgetConversations(keys: string[]): void {
    for (const key of keys) this.recent.delete(key);
  }

  /**
   * Whether the channel's topic holds any message (asked for every channel message: does
   * it start a topic?): its newest id, from the conversation's ids kept in memory.
   */
  async topicHasMessages(channelId: number, topicLc: string): Promise<boolean> {
    const filter = { channel_id: channelId, topic_lc: topicLc };
    const newest = (await this.conversationIds(filter, {}, -1, 1)) ?? (await this.messages.findIds(filter, { sort: ['_id', -1], limit: 1 }));
    return newest.length > 0;
  }

  async apply(stored: StoredFact): Promise<void> {
    const parsed = Fact.safeParse(stored.data);
    if (!parsed.success) return;
    const fact = parsed.data;
    switch (fact.type) {
      case 'MessageSent':
        return this.sent(fact, stored);
      case 'ReactionAdded':
      case 'ReactionRemoved':
        return this.reaction(fact);
      case 'MessageFlagsUpdated':
        return this.flags(fact);
      case 'MessageEdited':
        return this.edited(fact);
      case 'MessageDeleted':
        return this.deleted(fact);
      case 'UserTopicUpdated':
        await this.userTopics.put({
          _id: userTopicId(fact.user_id, fact.channel_id, fact.topic),
          user_id: fact.user_id,
          channel_id: fact.channel_id,
          topic: fact.topic,
          topic_lc: fact.topic.toLowerCase(),
          visibility_policy: fact.visibility_policy,
          last_updated: fact.last_updated,
        });
        return;
      default:
        return;
    }
  }

  private async sent(fact: FactOf<'MessageSent'>, stored: StoredFact): Promise<void> {
    const id = stored.position;
    const channel = fact.recipient.type === 'channel' ? fact.recipient : null;
    const narrowKeys = {
      channel_id: channel?.channel_id ?? null,
      topic_lc: channel ? channel.topic.toLowerCase() : null,
      dm_key: fact.recipient.type === 'direct' ? dmKey(fact.recipient.users.map((u) => u.id)) : null,
    };
    const features = messageTextFeatures(fact.rendered_content, channel?.topic ?? null);
    await this.messages.put({
      _id: id,
      stream: stored.stream,
      sender_id: fact.sender_id,
      sender_email: fact.sender_email,
      sender_full_name: fact.sender_full_name,
      recipient: fact.recipient,
      ...narrowKeys,
      recipient_id: fact.recipient_id,
      content: fact.content,
      rendered_content: fact.rendered_content,
      client: fact.client,
      timestamp: fact.timestamp,
      is_me_message: fact.is_me_message,
      reactions: [],
      edit_history: [],
      last_edit_timestamp: null,
      last_moved_timestamp: null,
      ...features,
    });
    this.rememberSent({ _id: id, ...narrowKeys });
    for (const userId of fact.recipient_user_ids) {
      await this.userMessages.put({
        _id: userMessageId(userId, id),
        user_id: userId,
        message_id: id,
        ...flagKeys(initialMessageFlags(fact, userId)),
        ...narrowKeys,
        direct: narrowKeys.dm_key !== null,
        sender_id: fact.sender_id,
        ...linkFields(features),
      });
    }
  }

  private async reaction(fact: FactOf<'ReactionAdded' | 'ReactionRemoved'>): Promise<void> {
    const message = await this.messages.get(fact.message_id);
    if (!message) return;
    const same = (r: MessageReaction) =>
      r.user_id === fact.user_id && r.emoji_code === fact.emoji_code && r.reaction_type === fact.reaction_type;
    const others = message.reactions.filter((r) => !same(r));
    const reactions =
      fact.type === 'ReactionAdded'
        ? [...others, { emoji_name: fact.emoji_name, emoji_code: fact.emoji_code, reaction_type: fact.reaction_type, user_id: fact.user_id }]
        : others;
    await this.messages.put({ ...message, reactions });
  }

  private async flags(fact: FactOf<'MessageFlagsUpdated'>): Promise<void> {
    for (const messageId of fact.message_ids) {
      const id = userMessageId(fact.user_id, messageId);
      let row = await this.userMessages.get(id);
      if (!row) {
        // A message read from channel history the user never received: give it a row,
        // marked historical, so a flag like starred can stick (as Zulip does).
        const message = await this.messages.get(messageId);
        if (!message) continue;
        row = {
          _id: id,
          user_id: fact.user_id,
          message_id: messageId,
          ...flagKeys(['read', 'historical']),
          channel_id: message.channel_id,
          topic_lc: message.topic_lc,
          dm_key: message.dm_key,
          direct: message.dm_key !== null,
          sender_id: message.sender_id,
          ...linkFields(message),
        };
      }
      const flags = row.flags.filter((f) => f !== fact.flag);
      if (fact.op === 'add') flags.push(fact.flag);
      await this.userMessages.put({ ...row, ...flagKeys(flags) });
    }
  }

  private async edited(fact: FactOf<'MessageEdited'>): Promise<void> {
    if (fact.move) {
      const { prev_channel_id, prev_topic, channel_id, topic } = fact.move;
      this.forgetConversations([
        ...conversationKeysOf({ channel_id: prev_channel_id, topic_lc: prev_topic.toLowerCase(), dm_key: null }),
        ...conversationKeysOf({ channel_id, topic_lc: topic.toLowerCase(), dm_key: null }),
      ]);
    }
    const message = await this.messages.get(fact.message_id);
    if (!message) return;
    if (fact.content) {
      const entry: EditHistoryEntry = {
        user_id: fact.editor_id,
        timestamp: fact.timestamp,
        prev_content: fact.content.prev_content,
        prev_rendered_content: fact.content.prev_rendered_content,
      };
      if (fact.move && fact.move.message_ids.includes(message._id)) Object.assign(entry, moveEntry(fact.move));
      const edited = withTextFeatures({
        ...message,
        content: fact.content.content,
        rendered_content: fact.content.rendered_content,
        is_me_message: fact.content.is_me_message,
        edit_history: [entry, ...message.edit_history],
        last_edit_timestamp: fact.timestamp,
        ...(fact.move && fact.move.message_ids.includes(message._id) ? moved(message, fact.move, fact.timestamp) : {}),
      });
      await this.messages.put(edited);
      await this.updateRowsAfterEdit(edited, fact.content);
    }
    if (!fact.move) return;
    for (const id of fact.move.message_ids) {
      if (fact.content && id === message._id) continue;
      const other = await this.messages.get(id);
      if (!other) continue;
      await this.messages.put(withTextFeatures({
        ...other,
        ...moved(other, fact.move, fact.timestamp),
        edit_history: [{ user_id: fact.editor_id, timestamp: fact.timestamp, ...moveEntry(fact.move) }, ...other.edit_history],
      }));
    }
    const keys = { channel_id: fact.move.channel_id, topic_lc: fact.move.topic.toLowerCase(), dm_key: null };
    const revoked = new Set(fact.move.revoked_user_ids);
    for (const id of fact.move.message_ids) {
      for (const row of await this.rowsOf(id)) {
        // Who may not see the private destination loses the messages from their history.
        if (revoked.has(row.user_id)) await this.userMessages.delete(row._id);
        else await this.userMessages.put({ ...row, ...keys });
      }
    }
  }

  /** New content: the mention flags, and the link fields each row copies, follow it. */
  private async updateRowsAfterEdit(message: MessageDoc, content: NonNullable<FactOf<'MessageEdited'>['content']>): Promise<void> {
    const links = linkFields(message);
    for (const row of await this.rowsOf(message._id)) {
      const flags = row.flags.filter((f) => f !== 'mentioned' && f !== 'wildcard_mentioned');
      if (content.mentioned_user_ids.includes(row.user_id)) flags.push('mentioned');
      if (content.wildcard_mentioned_user_ids.includes(row.user_id)) flags.push('wildcard_mentioned');
      const flagsChanged = flags.length !== row.flags.length || flags.some((f, i) => f !== row.flags[i]);
      const linksChanged = (Object.keys(links) as LinkField[]).some((field) => row[field] !== links[field]);
      if (flagsChanged || linksChanged) await this.userMessages.put({ ...row, ...flagKeys(flags), ...links });
    }
  }

  private async deleted(fact: FactOf<'MessageDeleted'>): Promise<void> {
    const message = await this.messages.get(fact.message_id);
    if (message) this.forgetConversations(conversationKeysOf(message));
    for (const row of await this.rowsOf(fact.message_id)) await this.userMessages.delete(row._id);
    await this.messages.delete(fact.message_id);
  }
}

type Move = NonNullable<FactOf<'MessageEdited'>['move']>;

function moveEntry(move: Move): Omit<EditHistoryEntry, 'user_id' | 'timestamp'> {
  return {
    ...(move.prev_topic !== move.topic ? { prev_topic: move.prev_topic, topic: move.topic } : {}),
    ...(move.prev_channel_id !== move.channel_id ? { prev_stream: move.prev_channel_id, stream: move.channel_id } : {}),
  };
}

function moved(message: MessageDoc, move: Move, timestamp: number): Partial<MessageDoc> {
  // Resolving or unresolving a topic is not a move (feature level 365).
  const onlyResolved =
    move.prev_channel_id === move.channel_id && withoutResolvedPrefix(move.prev_topic) === withoutResolvedPrefix(move.topic);
  return {
    recipient: { type: 'channel', channel_id: move.channel_id, channel_name: move.channel_name, topic: move.topic },
    recipient_id: move.recipient_id,
    channel_id: move.channel_id,
    topic_lc: move.topic.toLowerCase(),
    last_moved_timestamp: onlyResolved ? message.last_moved_timestamp : timestamp,
  };
}
