/**
 * Messaging's read model: its collections and indexes (the documents are in
 * message-docs.ts), and the lookups the service makes beyond plain collection reads.
 * What each fact writes is in messages-projection.ts.
 */
import type { Collection, DocTester, Filter, ReadModelStore } from '@teamchat/platform';
import type { MessageDoc, UserTopicDoc } from './message-docs';
import { ChannelPlaces } from './channel-places';
import { PersonalState } from './personal-state';
import { RecentConversationIds, type IdRange } from './recent-ids';
import { TopicSpellings } from './topic-spellings';

/** About 2 KB each in memory. */
const MESSAGE_CACHE_SIZE = 20_000;

/**
 * Collections of earlier shapes of this read model, dropped at start so their space is
 * reused: `user_messages` held a row per recipient of every message, which the per-user
 * state (personal-state.ts) replaced.
 */
export const RETIRED_COLLECTIONS = ['user_messages'];

export class MessagesReadModel {
  readonly messages: Collection<MessageDoc>;
  readonly userTopics: Collection<UserTopicDoc>;
  /** Each user's messages and flags, without a row per recipient (personal-state.ts). */
  readonly personal: PersonalState;
  /** Each channel topic's spelling (see TopicSpellings). */
  readonly spellings: TopicSpellings;

  /** `recentIdsPerConversation`: fewer than the usual 200 (tests, so that pages reach past them). */
  constructor(
    private readonly readModels: ReadModelStore,
    options: { recentIdsPerConversation?: number } = {},
  ) {
    // Every narrow that GET /messages serves from an index has one whose fields are the
    // narrow's equalities followed by the id it pages on (see queries/narrow-plan.ts).
    // Recent messages stay in memory: pages of GET /messages are mostly recent.
    this.messages = readModels.collection<MessageDoc>('messages', [
      { fields: ['channel_id', 'topic_lc', '_id'] },
      // With the topic: register lists a channel's unread messages by topic from here alone
      // (queries/personal-scan.ts), without reading their documents.
      { fields: ['channel_id', '_id', 'topic_lc'] },
      { fields: ['dm_key'] },
      // The `date` anchor: the first message sent on or after a time.
      { fields: ['timestamp'] },
      // The search narrow's words (queries/search-scan.ts).
      { fields: ['search_text'], text: true },
      // Messages moved in from another channel, which their channel's receipts do not cover (personal-state.ts).
      { fields: ['channel_id', '_id'], where: { own_receipts: true } },
    ], { cacheSize: MESSAGE_CACHE_SIZE });
    this.userTopics = readModels.collection<UserTopicDoc>('user_topics', [{ fields: ['user_id'] }]);
    this.personal = new PersonalState(readModels, this.messages);
    this.spellings = new TopicSpellings(readModels);
    this.recent = new RecentConversationIds(
      async (filter, limit) => (await this.messages.findIds(filter, { sort: ['_id', -1], limit })) as number[],
      options.recentIdsPerConversation,
    );
  }

  /** The store's thread that tests documents with `module`, where it has one (see Reader). */
  offThreadTester(module: string): DocTester | undefined {
    return this.readModels.offThreadTester?.(module);
  }

  /** The collections the messaging projection writes (emptied before a replay from the start). */
  get collections(): { clear(): Promise<void> }[] {
    const places = { clear: async () => this.places.clear() };
    return [this.messages, this.userTopics, ...this.personal.collections, this.spellings.collection, places];
  }

  /** Every message of a channel, id and topic, for the scans that pass thousands (see ChannelPlaces). */
  readonly places = new ChannelPlaces({
    chunk: async (channelId, after, limit) => {
      const filter: Filter = after === Number.NEGATIVE_INFINITY ? { channel_id: channelId } : { channel_id: channelId, _id: { $gt: after } };
      const rows = await this.messages.findFields(filter, ['topic_lc'], { sort: ['_id', 1], limit });
      return { ids: rows.map((r) => r._id as number), topics: rows.map((r) => r.topic_lc as string | null) };
    },
    movedIn: async (channelId) => (await this.messages.findIds({ own_receipts: true, channel_id: channelId })) as number[],
    spellings: (channelId) => this.spellings.ofChannel(channelId),
  });

  /** Recent ids per conversation (see RecentConversationIds). */
  readonly recent: RecentConversationIds;

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
}
