/**
 * Register's `unread_msgs`: the user's newest 50,000 unread messages (Zulip's limit),
 * grouped by channel and topic, direct conversation and group conversation.
 *
 * The same messages as a personal scan of `{ unread: true }` (personal-scan.ts) would
 * list, found without it: the scan builds an entry per message and merges hundreds of
 * streams lazily, which is what a page wants. Here every channel's messages are in memory
 * (ChannelPlaces) and all 50,000 are wanted: each channel's unread messages are stretches
 * of positions there, the oldest id listed is found by bisection, and each channel's
 * stretches from it go into their topics' lists in one pass. The user's rows (direct
 * messages, mentions, corrections of the read mark) come from their unread index.
 */
import type { UnreadMsgs } from '@teamchat/contracts';
import type { Places } from '../projections/channel-places';
import { participantsOfKey } from '../projections/message-docs';
import type { Interval } from '../projections/receipts';
import { firstAtLeast } from '../projections/recent-ids';
import { scanPersonalPlaces } from './personal-scan';
import type { MessagesReadModel } from '../projections/messages';
import { isMutedUnread, type MuteState } from '../domain/unread-count';
import { ChannelRows, FIRST_CHUNK, RowChunks } from './unread-rows';

type Model = Pick<MessagesReadModel, 'messages' | 'personal' | 'places' | 'conversationIds'>;

/** Zulip's limits: unreads beyond the newest 50,000 are reported as missing, not listed. */
const MAX_UNREAD_MESSAGES = 50_000;

const NO_MUTES: MuteState = { muted_channel_ids: new Set(), topic_policies: new Map() };
const byId = (a: number, b: number) => a - b;

/** A channel's unread messages without a row: stretches of positions in its places. */
interface ChannelUnread {
  channelId: number;
  places: Places;
  /** [from, to) position stretches, ascending. */
  stretches: [number, number][];
  /** Positions in the stretches from the k-th on (one more entry than stretches, the last 0). */
  after: number[];
}

/** Channel -> topic (lower-cased) -> ids, ascending. */
type TopicLists = Map<number, Map<string, number[]>>;

/**
 * `limit`: Zulip's, or a smaller one (tests). `wait`: load the channels' places now
 * rather than in the background; `firstChunk`: rows read at first (both for tests).
 */
export async function unreadMessages(
  model: Model,
  userId: number,
  mutes: MuteState = NO_MUTES,
  limit = MAX_UNREAD_MESSAGES,
  options: { wait?: boolean; firstChunk?: number } = {},
): Promise<UnreadMsgs> {
  const [marks, received] = await Promise.all([model.personal.marksOf(userId), model.personal.receipts.allIntervals(userId)]);
  const kept = new Map<number, Places>();
  const missing: number[] = [];
  for (const channelId of received.keys()) {
    const places = options.wait ? await model.places.of(channelId) : model.places.peek(channelId);
    if (places) kept.set(channelId, places);
    else missing.push(channelId);
  }
  if (missing.length > 0) {
    // The first time after a start: the scan reads the index while the places load.
    model.places.warm(missing);
    return fromScan(model, userId, mutes, limit);
  }

  // The newest `limit` are those from an id on (`from`): found by bisection over the ids,
  // counting by bisection in each stretch, so nothing is merged message by message. The
  // user's rows matter only from there on: read newest first, in growing chunks, until
  // what is known (every row from `known` up) settles it. Ids alone: the unread index
  // holds them, so its entries are all that is read. Their channel rows (which split the
  // stretches) are read from the same bound on: above it the counts are exact, below it
  // they may count too many, and the answer is taken only where they are exact.
  const unreadRows = new RowChunks(model, { user_id: userId, unread: true });
  const channelRows = new ChannelRows(model, userId);
  let channels: ChannelUnread[];
  let from: number;
  let more: boolean;
  for (let size = options.firstChunk ?? FIRST_CHUNK; ; size *= 2) {
    await unreadRows.read(size);
    const known = unreadRows.known;
    await channelRows.readFrom(known);
    channels = channelUnreads(marks, received, kept, channelRows);
    from = firstListed(unreadRows.ids, channels, limit);
    if (known === Number.NEGATIVE_INFINITY) {
      more = countFrom(unreadRows.ids, channels, Number.NEGATIVE_INFINITY) > limit;
      break;
    }
    // Settled when every id from `from` up is known, and one more unread message below it
    // is known too (then some are left out). The counts are monotone wherever they are
    // exact or not, so the bisection's answer is at least `known` when the count there is
    // over the limit, and from `known` up the counts are exact.
    if (from >= known && countFrom(unreadRows.ids, channels, known) > limit) {
      more = true;
      break;
    }
  }
  // Only the listed rows, and only what the listing needs of them: the unread index holds
  // it (personal-state.ts), so no document is read.
  const [ids, channelIds, topicKeys, dmKeys, mentioned] = await model.personal.rows.findColumns(
    from === Number.NEGATIVE_INFINITY ? { user_id: userId, unread: true } : { user_id: userId, unread: true, message_id: { $gte: from } },
    ['message_id', 'channel_id', 'topic_lc', 'dm_key', 'mentioned'],
    { sort: ['message_id', -1], sortDistinct: true },
  );
  // Column by column, as read: an object per row would be 29,000 of them for a heavy reader.
  const rows: ListedRows = {
    ids: ids as number[],
    channelIds: channelIds as (number | null)[],
    topicKeys: topicKeys as (string | null)[],
    dmKeys: dmKeys as (string | null)[],
    mentioned: mentioned!,
  };

  const topics: TopicLists = new Map();
  let listed = 0;
  for (const { channelId, places, stretches } of channels) {
    const lists = channelLists(places, stretches, places.firstAtLeast(from));
    if (lists.size === 0) continue;
    for (const ids of lists.values()) listed += ids.length;
    topics.set(channelId, lists);
  }
  return grouped(model, userId, mutes, topics, listed, rows, more, kept);
}

/** A channel's listed messages by topic (lower-cased key), from position `first` on in its stretches. */
function channelLists(places: Places, stretches: readonly [number, number][], first: number): Map<string, number[]> {
  // By topic number first (a channel's are 0, 1, 2…): a string key per topic, not per message.
  // Sized up front: assigned far past its length, an array turns into a dictionary.
  const byNumber: number[][] = new Array<number[]>(places.topicCount);
  let any = false;
  for (const [start, end] of stretches) {
    for (let i = Math.max(start, first); i < end; i++) {
      const number = places.topicNumberAt(i);
      const ids = byNumber[number];
      if (ids) ids.push(places.idAt(i));
      else byNumber[number] = [places.idAt(i)];
      any = true;
    }
  }
  const lists = new Map<string, number[]>();
  if (!any) return lists;
  // A channel's topic numbers are distinct topics: each list is the topic's own (not a
  // copy), and the rows' ids join it in grouped().
  byNumber.forEach((ids, number) => {
    const name = places.topicName(number) ?? '';
    const list = lists.get(name);
    if (!list) lists.set(name, ids);
    else {
      // A null topic and an empty one, both listed as ''.
      list.push(...ids);
      list.sort(byId);
    }
  });
  return lists;
}

/** As a personal scan lists them, newest first (before the channels' places are in memory). */
async function fromScan(model: Model, userId: number, mutes: MuteState, limit: number): Promise<UnreadMsgs> {
  const newest = await scanPersonalPlaces(model, userId, { unread: true }, {}, -1, limit + 1);
  const listed = newest.slice(0, limit);
  const rows: ListedRows = {
    ids: listed.map((place) => place.message_id),
    channelIds: listed.map((place) => place.channel_id),
    topicKeys: listed.map((place) => place.topic_lc),
    dmKeys: listed.map((place) => place.dm_key),
    mentioned: listed.map(({ flags }) => flags.includes('mentioned') || flags.includes('wildcard_mentioned')),
  };
  return grouped(model, userId, mutes, new Map(), 0, rows, newest.length > limit, new Map());
}

/**
 * Messages listed one by one (the user's rows, or a scan's places), newest first, column
 * by column: where each is, and whether it mentions the user (truthy: SQLite keeps
 * booleans as 1 and 0, MongoDB as booleans).
 */
interface ListedRows {
  ids: readonly number[];
  channelIds: readonly (number | null)[];
  topicKeys: readonly (string | null)[];
  dmKeys: readonly (string | null)[];
  mentioned: readonly unknown[];
}

function listOf(topics: TopicLists, channelId: number, topic: string): number[] {
  let lists = topics.get(channelId);
  if (!lists) topics.set(channelId, (lists = new Map()));
  let ids = lists.get(topic);
  if (!ids) lists.set(topic, (ids = []));
  return ids;
}

/**
 * Zulip's unread_msgs from the listed messages: `topics` already grouped (`counted` of
 * them), and `rows` one by one (the user's rows, or a scan's places).
 */
async function grouped(
  model: Model,
  userId: number,
  mutes: MuteState,
  topics: TopicLists,
  counted: number,
  rows: ListedRows,
  more: boolean,
  kept: ReadonlyMap<number, Places>,
): Promise<UnreadMsgs> {
  const { ids: rowIds, channelIds, topicKeys, dmKeys, mentioned } = rows;
  let count = counted + rowIds.length;
  // Direct messages by their conversation's key as stored: its participants are parsed
  // once per conversation, not once per message.
  const direct = new Map<string, number[]>();
  const mentions: number[] = [];
  // Lists that had ids before these rows: sorted again once all are in.
  const mixed = new Set<number[]>();
  // Oldest first, so that each list grows in id order.
  for (let i = rowIds.length - 1; i >= 0; i--) {
    const id = rowIds[i]!;
    if (mentioned[i]) mentions.push(id);
    const channelId = channelIds[i];
    if (channelId === null || channelId === undefined) {
      const key = dmKeys[i] ?? '';
      const ids = direct.get(key);
      if (ids) ids.push(id);
      else direct.set(key, [id]);
      continue;
    }
    const ids = listOf(topics, channelId, topicKeys[i] ?? '');
    if (ids.length > 0 && ids.at(-1)! > id) mixed.add(ids);
    ids.push(id);
  }
  for (const ids of mixed) ids.sort(byId);

  // A topic is named as its oldest listed unread message spells it (rows and places keep
  // the lower-cased key). Where all of the topic's messages share one spelling the places
  // know it (topic-spellings.ts); for the others only that message is read.
  const spellings: (string | undefined)[] = [];
  const oldest: number[] = [];
  for (const [channelId, lists] of topics) {
    const channel = kept.get(channelId);
    for (const [topic, ids] of lists) {
      // '' lists a null topic and an empty one together: named from the message.
      const spelling = topic === '' ? undefined : channel?.spellingOf(topic);
      spellings.push(spelling);
      if (spelling === undefined) oldest.push(ids[0]!);
    }
  }
  const docs = oldest.length > 0 ? await model.messages.getMany(oldest) : [];
  const spelled = new Map(docs.map((d) => [d._id, d]));
  // The channels where a topic's policy or the channel's muting may apply: in the others
  // (most of them, for most users) no key is built for each of thousands of topics.
  const mayMute = new Set(mutes.muted_channel_ids);
  for (const key of mutes.topic_policies.keys()) mayMute.add(Number(key.slice(0, key.indexOf(':'))));

  const streams: { stream_id: number; topic: string; unread_message_ids: number[] }[] = [];
  let k = 0;
  for (const [channelId, lists] of topics) {
    const checked = mayMute.has(channelId);
    for (const [topic, ids] of lists) {
      if (checked && isMutedUnread({ channel_id: channelId, topic_lc: topic }, mutes)) count -= ids.length;
      let spelling = spellings[k++];
      if (spelling === undefined) {
        // Gone only when deleted since the rows were read: then its key names it.
        const doc = spelled.get(ids[0]!);
        spelling = doc ? (doc.recipient.type === 'channel' ? doc.recipient.topic : '') : topic;
      }
      streams.push({ stream_id: channelId, topic: spelling, unread_message_ids: ids });
    }
  }
  streams.sort((a, b) => a.stream_id - b.stream_id || a.unread_message_ids[0]! - b.unread_message_ids[0]!);

  const { pms, huddles } = directGroups(direct, userId);
  return {
    count,
    pms,
    streams,
    huddles,
    mentions,
    old_unreads_missing: more,
  };
}

/**
 * The direct messages' lists by conversation key as stored, as Zulip groups them: one-on-one
 * conversations by the other user, group conversations by their participants.
 */
function directGroups(direct: ReadonlyMap<string, number[]>, userId: number): Pick<UnreadMsgs, 'pms' | 'huddles'> {
  const pms = new Map<number, { other_user_id: number; sender_id: number; unread_message_ids: number[] }>();
  const huddles = new Map<string, { user_ids_string: string; unread_message_ids: number[] }>();
  for (const [dmKey, ids] of direct) {
    const participants = participantsOfKey(dmKey);
    if (participants.length <= 2) {
      // A conversation with oneself has oneself as the other user.
      const other = participants.find((id) => id !== userId) ?? userId;
      const entry = pms.get(other);
      if (entry) joinSorted(entry.unread_message_ids, ids);
      else pms.set(other, { other_user_id: other, sender_id: other, unread_message_ids: ids });
    } else {
      const key = participants.sort(byId).join(',');
      const entry = huddles.get(key);
      if (entry) joinSorted(entry.unread_message_ids, ids);
      else huddles.set(key, { user_ids_string: key, unread_message_ids: ids });
    }
  }
  return {
    pms: [...pms.values()].sort((a, b) => a.other_user_id - b.other_user_id),
    huddles: [...huddles.values()].sort((a, b) => a.user_ids_string.localeCompare(b.user_ids_string)),
  };
}

/** Two keys stored for one conversation (not written so, but not relied on): one list, in id order. */
function joinSorted(into: number[], ids: readonly number[]): void {
  for (const id of ids) into.push(id);
  into.sort(byId);
}

/** How many unread messages have an id of at least `from`. */
function countFrom(rowIds: readonly number[], channels: readonly ChannelUnread[], from: number): number {
  // Rows are newest first: those at least `from` lead.
  let [lo, hi] = [0, rowIds.length];
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rowIds[mid]! >= from) lo = mid + 1;
    else hi = mid;
  }
  let count = lo;
  // The bisection asks this a few dozen times, and a channel may have thousands of
  // stretches (split around the user's rows): each channel's count is one bisection over
  // its stretches and their suffix sums.
  for (const { places, stretches, after } of channels) {
    const at = places.firstAtLeast(from);
    let [first, last] = [0, stretches.length];
    while (first < last) {
      const mid = (first + last) >>> 1;
      if (stretches[mid]![1] <= at) first = mid + 1;
      else last = mid;
    }
    if (first < stretches.length) count += after[first]! - Math.max(0, at - stretches[first]![0]);
  }
  return count;
}

/**
 * The id from which on the newest `limit` unread messages lie (minus infinity when there
 * are no more than that): ids are distinct, so the count from an id falls by at most one
 * from one id to the next, and the highest id counting `limit` counts exactly that.
 */
function firstListed(rowIds: readonly number[], channels: readonly ChannelUnread[], limit: number): number {
  if (countFrom(rowIds, channels, Number.NEGATIVE_INFINITY) <= limit) return Number.NEGATIVE_INFINITY;
  let [lo, hi] = [0, 0];
  if (rowIds.length > 0) hi = rowIds[0]!;
  for (const { places, stretches } of channels) hi = Math.max(hi, places.idAt(stretches.at(-1)![1] - 1));
  // The highest id from which at least `limit` are counted (countFrom(lo) >= limit holds).
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (countFrom(rowIds, channels, mid) >= limit) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * Per channel the user received in, the stretches of their intervals past their read
 * mark, without the messages that have a row of theirs (listed from the rows) or were
 * moved in from elsewhere (theirs only through a held row, also a row).
 */
function channelUnreads(
  marks: ReadonlyMap<number, number>,
  received: ReadonlyMap<number, readonly Interval[]>,
  kept: ReadonlyMap<number, Places>,
  withRow: Pick<ChannelRows, 'ids' | 'channels'>,
): ChannelUnread[] {
  // Per channel, ascending: the walk is split around them.
  const skipped = new Map<number, number[]>();
  const skip = (channelId: number, id: number) => {
    const ids = skipped.get(channelId);
    if (ids) ids.push(id);
    else skipped.set(channelId, [id]);
  };
  withRow.ids.forEach((id, i) => skip(withRow.channels[i]!, id));
  for (const [channelId, places] of kept) for (const id of places.movedIn) skip(channelId, id);
  for (const ids of skipped.values()) ids.sort(byId);

  const unreads: ChannelUnread[] = [];
  for (const [channelId, intervals] of received) {
    const unreadFrom = (marks.get(channelId) ?? 0) + 1;
    const places = kept.get(channelId)!;
    const stretches: [number, number][] = [];
    const skippedHere = skipped.get(channelId) ?? [];
    for (const [from, to] of intervals) {
      const start = places.firstAtLeast(Math.max(from, unreadFrom));
      const end = to === Number.POSITIVE_INFINITY ? places.length : places.firstAtLeast(to);
      if (start >= end) continue;
      // Split around the skipped messages (found by bisection), so the walk never meets one;
      // only those from the stretch's first id on are looked at.
      let part = start;
      for (let k = firstAtLeast(skippedHere, places.idAt(start)); k < skippedHere.length && part < end; k++) {
        const id = skippedHere[k]!;
        const at = places.firstAtLeast(id);
        if (at >= end) break;
        if (places.idAt(at) !== id) continue;
        if (part < at) stretches.push([part, at]);
        part = at + 1;
      }
      if (part < end) stretches.push([part, end]);
    }
    if (stretches.length === 0) continue;
    const after = new Array<number>(stretches.length + 1);
    after[stretches.length] = 0;
    for (let k = stretches.length - 1; k >= 0; k--) after[k] = after[k + 1]! + stretches[k]![1] - stretches[k]![0];
    unreads.push({ channelId, places, stretches, after });
  }
  return unreads;
}
