/**
 * The newest ids of each conversation clients open (a channel, a topic, a direct
 * conversation), kept in memory as messages arrive, so that the first page of one is
 * read without an index query. Filled from the index on first use, extended by every new
 * message, forgotten for the conversations a move or a deletion touches.
 */
import type { Filter } from '@teamchat/platform';
import { LRUCache } from 'lru-cache';
import type { MessageDoc } from './message-docs';

/** Ids kept per conversation. */
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
  // Counted, not sorted and joined: every send asks this of its topic.
  const fields = Object.keys(filter).length;
  const { channel_id: channel, topic_lc: topic, dm_key: dm } = filter;
  if (fields === 1 && typeof channel === 'number') return `c:${channel}`;
  if (fields === 2 && typeof channel === 'number' && typeof topic === 'string') return `t:${channel}:${topic}`;
  if (fields === 1 && typeof dm === 'string') return `d:${dm}`;
  return undefined;
}

export const conversationKeysOf = (m: Pick<MessageDoc, 'channel_id' | 'topic_lc' | 'dm_key'>): string[] =>
  m.channel_id !== null ? [`c:${m.channel_id}`, `t:${m.channel_id}:${m.topic_lc}`] : m.dm_key !== null ? [`d:${m.dm_key}`] : [];

export class RecentConversationIds {
  private readonly recent = new LRUCache<string, RecentIds>({ max: 10_000 });

  /** `newest`: the conversation's newest ids, newest first, from the index; `kept`: ids kept per conversation. */
  constructor(
    private readonly newest: (filter: Filter, limit: number) => Promise<number[]>,
    private readonly kept = RECENT_IDS_PER_CONVERSATION,
  ) {}

  /**
   * Up to `limit` ids of the conversation `filter` names within `range`, nearest the
   * range's start (per `direction`) first — or undefined when the filter names no single
   * conversation or the range reaches below what is kept, for the index to answer.
   */
  async ids(filter: Filter, range: IdRange, direction: 1 | -1, limit: number): Promise<number[] | undefined> {
    const key = conversationKey(filter);
    if (key === undefined) return undefined;
    let entry = this.recent.get(key);
    if (!entry) {
      const newest = await this.newest(filter, this.kept);
      entry = { ids: newest.reverse(), complete: newest.length < this.kept };
      this.recent.set(key, entry);
    }
    const oldestKept = entry.ids[0] ?? Number.POSITIVE_INFINITY;
    const lowest = range.$gte ?? (range.$gt !== undefined ? range.$gt + 1 : Number.NEGATIVE_INFINITY);
    // Every id from the oldest kept one up is kept: a range starting there is covered.
    const covered = entry.complete || lowest >= oldestKept;
    // Walked from where the answer starts (found by bisection), never copied whole: a send
    // only asks whether its topic has a newest id, and a page wants its limit of what is kept.
    const { ids } = entry;
    const found: number[] = [];
    const highest = range.$lte ?? (range.$lt !== undefined ? range.$lt - 1 : Number.POSITIVE_INFINITY);
    if (direction === 1) {
      if (!covered) return undefined;
      for (let i = firstAtLeast(ids, lowest); i < ids.length && found.length < limit && ids[i]! <= highest; i++) found.push(ids[i]!);
      return found;
    }
    for (let i = firstAtLeast(ids, highest + 1) - 1; i >= 0 && found.length < limit && ids[i]! >= lowest; i--) found.push(ids[i]!);
    // Fewer than asked for, from a list that does not reach back far enough: the index answers.
    return covered || found.length >= limit ? found : undefined;
  }

  /** A new message: the newest id of each conversation it is in. */
  remember(message: Pick<MessageDoc, '_id' | 'channel_id' | 'topic_lc' | 'dm_key'>): void {
    for (const key of conversationKeysOf(message)) {
      const entry = this.recent.get(key);
      if (!entry) continue;
      entry.ids.push(message._id);
      if (entry.ids.length > this.kept) {
        entry.ids.shift();
        entry.complete = false;
      }
    }
  }

  forget(keys: string[]): void {
    for (const key of keys) this.recent.delete(key);
  }
}

/** The index of the first of the ascending ids that is at least `id` (their length when none is). */
export function firstAtLeast(ids: readonly number[], id: number): number {
  let [lo, hi] = [0, ids.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ids[mid]! < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
