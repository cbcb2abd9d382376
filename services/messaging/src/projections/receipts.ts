/**
 * Who received a channel message, as intervals of message ids per (user, channel) instead
 * of a row per recipient: a user received every message of the channel whose id lies in
 * one of their intervals (see personal-state.ts for the whole design).
 *
 * The intervals follow each MessageSent's recipient list, whatever made it (subscriptions,
 * the sender posting from outside, anything else): a recipient without an open interval
 * opens one at the message, and an open interval whose user is not a recipient closes at
 * it. So they are exact by construction, and cost a document per change of a channel's
 * audience rather than one per recipient of every message.
 */
import type { Collection, Doc, ReadModelStore } from '@teamchat/platform';
import { LRUCache } from 'lru-cache';

export interface ReceiptDoc extends Doc {
  /** `${channel_id}:${user_id}:${from}` */
  _id: string;
  channel_id: number;
  user_id: number;
  /** The first message received. */
  from: number;
  /** The first message of the channel not received after `from`; null while still receiving. */
  to: number | null;
}

export type Interval = readonly [from: number, to: number];

const receiptId = (channelId: number, userId: number, from: number) => `${channelId}:${userId}:${from}`;

export class Receipts {
  readonly collection: Collection<ReceiptDoc>;
  /**
   * Per channel, who is receiving and since which message. This projection alone writes
   * the collection, and a batch that fails stops the store's writing, so the copy only
   * ever runs ahead of nothing (as RecentConversationIds).
   */
  private readonly open = new Map<number, Map<number, number>>();
  /** allIntervals of recent readers (read by every scan of a user's history; written rarely). */
  private readonly byUser = new LRUCache<number, Map<number, Interval[]>>({ max: 2_000 });

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<ReceiptDoc>('receipts', [{ fields: ['channel_id', 'from'] }, { fields: ['user_id', 'channel_id'] }]);
  }

  /** Emptied before a replay from the start. */
  readonly clearable = {
    clear: async () => {
      this.open.clear();
      this.byUser.clear();
      await this.collection.clear();
    },
  };

  private async openIn(channelId: number): Promise<Map<number, number>> {
    let open = this.open.get(channelId);
    if (!open) {
      const docs = await this.collection.find({ channel_id: channelId, to: null });
      open = new Map(docs.map((d) => [d.user_id, d.from]));
      this.open.set(channelId, open);
    }
    return open;
  }

  /** A channel message and its recipients. Replaying it changes nothing. */
  async sent(channelId: number, messageId: number, recipients: readonly number[]): Promise<void> {
    const open = await this.openIn(channelId);
    const receiving = new Set(recipients);
    for (const [userId, from] of open) {
      if (receiving.has(userId) || from >= messageId) continue;
      await this.collection.put({ _id: receiptId(channelId, userId, from), channel_id: channelId, user_id: userId, from, to: messageId });
      open.delete(userId);
      this.byUser.delete(userId);
    }
    for (const userId of receiving) {
      if (open.has(userId)) continue;
      await this.collection.put({ _id: receiptId(channelId, userId, messageId), channel_id: channelId, user_id: userId, from: messageId, to: null });
      open.set(userId, messageId);
      this.byUser.delete(userId);
    }
  }

  /** A user's intervals in a channel, oldest first; an open one ends at infinity. */
  async intervals(userId: number, channelId: number): Promise<Interval[]> {
    const docs = await this.collection.find({ user_id: userId, channel_id: channelId });
    return docs.map((d) => [d.from, d.to ?? Number.POSITIVE_INFINITY] as const).sort((a, b) => a[0] - b[0]);
  }

  /** A user's intervals in every channel they ever received in (shared: not to be changed). */
  async allIntervals(userId: number): Promise<ReadonlyMap<number, readonly Interval[]>> {
    const cached = this.byUser.get(userId);
    if (cached) return cached;
    const byChannel = new Map<number, Interval[]>();
    for (const d of await this.collection.find({ user_id: userId })) {
      const list = byChannel.get(d.channel_id) ?? [];
      list.push([d.from, d.to ?? Number.POSITIVE_INFINITY]);
      byChannel.set(d.channel_id, list);
    }
    for (const list of byChannel.values()) list.sort((a, b) => a[0] - b[0]);
    this.byUser.set(userId, byChannel);
    return byChannel;
  }

  /** Everyone whose intervals in the channel hold the message. */
  async holders(channelId: number, messageId: number): Promise<number[]> {
    const docs = await this.collection.find({ channel_id: channelId, from: { $lte: messageId } });
    return docs.filter((d) => d.to === null || d.to > messageId).map((d) => d.user_id);
  }
}

export const inIntervals = (intervals: readonly Interval[], id: number): boolean => intervals.some(([from, to]) => id >= from && id < to);

/** The first interval holding an id above `id`, if any. */
export const intervalFrom = (intervals: readonly Interval[], id: number): Interval | undefined => intervals.find(([, to]) => to - 1 > id);
