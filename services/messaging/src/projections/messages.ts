/**
 * Messaging's read model (the documents are in message-docs.ts) and its projection. Every
 * write is a whole document keyed by the fact's subject and computed from the fact and
 * the current document, so replaying a fact changes nothing.
 */
import {
  Fact,
  initialMessageFlags,
  type EditHistoryEntry,
  type FactOf,
  type MessageReaction,
} from '@teamchat/contracts';
import type { Collection, Filter, ReadModelStore, StoredFact } from '@teamchat/platform';
import { dmKey, flagKeys, rowsOfMessage, userMessageId, userTopicId, type MessageDoc, type UserMessageDoc, type UserTopicDoc } from './message-docs';
import { conversationKeysOf, RecentConversationIds, type IdRange } from './recent-ids';
import { linkFields, messageTextFeatures, withoutResolvedPrefix, withTextFeatures, type LinkField } from './text-features';

export const MESSAGING_FACT_TYPES = [
  'MessageSent',
  'ReactionAdded',
  'ReactionRemoved',
  'MessageFlagsUpdated',
  'MessageEdited',
  'MessageDeleted',
  'UserTopicUpdated',
] as const;

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
    // narrow's equalities followed by the id it pages on (see queries/narrow-plan.ts).
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
    // conversation read the messages collection's indexes instead (queries/narrow-plan.ts).
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

  /** Recent ids per conversation (see RecentConversationIds). */
  private readonly recent = new RecentConversationIds(
    async (filter, limit) => (await this.messages.findIds(filter, { sort: ['_id', -1], limit })) as number[],
  );

  /** See RecentConversationIds.ids. */
  conversationIds(filter: Filter, range: IdRange, direction: 1 | -1, limit: number): Promise<number[] | undefined> {
    return this.recent.ids(filter, range, direction, limit);
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
    this.recent.remember({ _id: id, ...narrowKeys });
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
      this.recent.forget([
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
    if (message) this.recent.forget(conversationKeysOf(message));
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
