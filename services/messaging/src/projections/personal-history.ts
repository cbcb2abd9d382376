/**
 * Lookups over a user's whole personal history in the per-user state (personal-state.ts):
 * their unread messages, newest first, and the newest message they hold. A received
 * channel message with no row is unread when it lies in one of the user's intervals above
 * their read mark there; every other unread message has a row saying so.
 */
import type { Collection } from '@teamchat/platform';
import type { MessageDoc } from './message-docs';
import type { PersonalState } from './personal-state';

/** What unread_msgs needs of an unread message: where it is, and its flags. */
export interface UnreadRef {
  message_id: number;
  channel_id: number | null;
  /** Null for a derived one: the message's document has it. */
  topic_lc: string | null;
  dm_key: string | null;
  flags: readonly string[];
}

/** Ids read per round from a channel's index. */
const PAGE = 5_000;

type Range = { $gte: number; $lt?: number };

/**
 * The ids of the channel within `range` that the intervals give the user, newest first,
 * up to `limit`: those without a row of theirs (a row speaks for itself) and not moved
 * in from elsewhere (own_receipts: their rows alone hold them).
 */
async function derivedIds(state: PersonalState, messages: Collection<MessageDoc>, userId: number, channelId: number, range: Range, limit: number): Promise<number[]> {
  const found: number[] = [];
  const movedIn = new Set((await messages.findIds({ channel_id: channelId, own_receipts: true, _id: range })) as number[]);
  let upper = range.$lt;
  while (found.length < limit) {
    const bound: Range = upper === undefined ? { $gte: range.$gte } : { $gte: range.$gte, $lt: upper };
    const ids = (await messages.findIds({ channel_id: channelId, _id: bound }, { sort: ['_id', -1], limit: PAGE })) as number[];
    if (ids.length === 0) break;
    const withRow = new Set((await state.rows.getMany(ids.map((id) => `${id}:${userId}`))).map((r) => r.message_id));
    for (const id of ids) {
      if (withRow.has(id) || movedIn.has(id)) continue;
      found.push(id);
      if (found.length === limit) break;
    }
    if (ids.length < PAGE) break;
    upper = ids.at(-1)!;
  }
  return found;
}

/** The user's newest `limit` unread messages, newest first. */
export async function unreadRefs(state: PersonalState, messages: Collection<MessageDoc>, userId: number, limit: number): Promise<UnreadRef[]> {
  const refs: UnreadRef[] = (await state.rows.find({ user_id: userId, unread: true }, { sort: ['message_id', -1], limit })).map((r) => ({
    message_id: r.message_id,
    channel_id: r.channel_id,
    topic_lc: r.topic_lc,
    dm_key: r.dm_key,
    flags: r.flags,
  }));
  for (const [channelId, intervals] of await state.receipts.allIntervals(userId)) {
    const mark = await state.mark(userId, channelId);
    for (const [from, to] of intervals) {
      if (to - 1 <= mark) continue;
      const range: Range = to === Number.POSITIVE_INFINITY ? { $gte: Math.max(from, mark + 1) } : { $gte: Math.max(from, mark + 1), $lt: to };
      for (const id of await derivedIds(state, messages, userId, channelId, range, limit)) {
        refs.push({ message_id: id, channel_id: channelId, topic_lc: null, dm_key: null, flags: [] });
      }
    }
  }
  return refs.sort((a, b) => b.message_id - a.message_id).slice(0, limit);
}

/** The newest message the user holds, or undefined. */
export async function newestHeld(state: PersonalState, messages: Collection<MessageDoc>, userId: number): Promise<number | undefined> {
  let newest = (await state.rows.find({ user_id: userId }, { sort: ['message_id', -1], limit: 1 }))[0]?.message_id;
  for (const [channelId, intervals] of await state.receipts.allIntervals(userId)) {
    // Newest interval first: the first one holding a message answers for the channel.
    for (const [from, to] of [...intervals].reverse()) {
      if (newest !== undefined && to - 1 <= newest) break;
      const range: Range = to === Number.POSITIVE_INFINITY ? { $gte: Math.max(from, (newest ?? 0) + 1) } : { $gte: Math.max(from, (newest ?? 0) + 1), $lt: to };
      const [id] = await derivedIds(state, messages, userId, channelId, range, 1);
      if (id !== undefined) {
        newest = Math.max(newest ?? 0, id);
        break;
      }
    }
  }
  return newest;
}
