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
import type { Filter } from '@teamchat/platform';
import type { Places } from '../projections/channel-places';
import type { Interval } from '../projections/receipts';
import { firstAtLeast } from '../projections/recent-ids';
import { scanPersonalPlaces, type PersonalPlace } from './personal-scan';
import type { MessagesReadModel } from '../projections/messages';
import { isMutedUnread, type MuteState } from '../domain/unread-count';

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
  // holds them, so its entries are all that is read.
  const unreadRows = new RowChunks(model, { user_id: userId, unread: true });
  const channelRows = await channelRowsOf(model, userId);
  const channels = channelUnreads(marks, received, kept, channelRows);
  let from: number;
  let more: boolean;
  for (let size = options.firstChunk ?? FIRST_CHUNK; ; size *= 2) {
    await unreadRows.read(size);
    const known = unreadRows.known;
    from = firstListed(unreadRows.ids, channels, limit);
    if (known === Number.NEGATIVE_INFINITY) {
      more = countFrom(unreadRows.ids, channels, Number.NEGATIVE_INFINITY) > limit;
      break;
    }
    // Settled when every id from `from` up is known, and one more unread message below it
    // is known too (then some are left out).
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
  const rows = ids!.map(
    (message_id, i): Listed => ({
      message_id: message_id as number,
      channel_id: channelIds![i] as number | null,
      topic_lc: topicKeys![i] as string | null,
      dm_key: dmKeys![i] as string | null,
      // SQLite keeps booleans as 1 and 0, MongoDB as booleans.
      mentioned: Boolean(mentioned![i]),
    }),
  );

  const topics: TopicLists = new Map();
  let listed = 0;
  for (const { channelId, places, stretches } of channels) {
    // By topic number first (a channel's are 0, 1, 2…): a string key per topic, not per message.
    // Sized up front: assigned far past its length, an array turns into a dictionary.
    const byNumber: number[][] = new Array<number[]>(places.topicCount);
    const first = places.firstAtLeast(from);
    const before = listed;
    for (const [start, end] of stretches) {
      for (let i = Math.max(start, first); i < end; i++) {
        const number = places.topicNumberAt(i);
        const ids = byNumber[number];
        if (ids) ids.push(places.idAt(i));
        else byNumber[number] = [places.idAt(i)];
        listed++;
      }
    }
    // A channel's topic numbers are distinct topics: each list is the topic's own (not a
    // copy), and the rows' ids join it in grouped().
    if (listed === before) continue;
    const lists = new Map<string, number[]>();
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
    topics.set(channelId, lists);
  }
  return grouped(model, userId, mutes, topics, listed, rows, more, kept);
}

/** As a personal scan lists them, newest first (before the channels' places are in memory). */
async function fromScan(model: Model, userId: number, mutes: MuteState, limit: number): Promise<UnreadMsgs> {
  const newest = await scanPersonalPlaces(model, userId, { unread: true }, {}, -1, limit + 1);
  const listed = newest.slice(0, limit).map(({ message_id, channel_id, topic_lc, dm_key, flags }): Listed => ({
    message_id,
    channel_id,
    topic_lc,
    dm_key,
    mentioned: flags.includes('mentioned') || flags.includes('wildcard_mentioned'),
  }));
  return grouped(model, userId, mutes, new Map(), 0, listed, newest.length > limit, new Map());
}

/** A listed message one by one (a row, or a scan's place): where it is, and whether it mentions the user. */
interface Listed extends Omit<PersonalPlace, 'flags'> {
  mentioned: boolean;
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
 * them), and `places` one by one, newest first (rows, or a scan's places).
 */
async function grouped(
  model: Model,
  userId: number,
  mutes: MuteState,
  topics: TopicLists,
  counted: number,
  places: readonly Listed[],
  more: boolean,
  kept: ReadonlyMap<number, Places>,
): Promise<UnreadMsgs> {
  let count = counted + places.length;
  const direct: Listed[] = [];
  const mentions: number[] = [];
  // Lists that had ids before these places: sorted again once all are in.
  const mixed = new Set<number[]>();
  for (let i = places.length - 1; i >= 0; i--) {
    const place = places[i]!;
    if (place.mentioned) mentions.push(place.message_id);
    if (place.channel_id === null) {
      direct.push(place);
      continue;
    }
    const ids = listOf(topics, place.channel_id, place.topic_lc ?? '');
    if (ids.length > 0 && ids.at(-1)! > place.message_id) mixed.add(ids);
    ids.push(place.message_id);
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

  const pms = new Map<number, { other_user_id: number; sender_id: number; unread_message_ids: number[] }>();
  const huddles = new Map<string, { user_ids_string: string; unread_message_ids: number[] }>();
  for (const place of direct) {
    const participants = place.dm_key ? place.dm_key.split(',').map(Number) : [];
    if (participants.length <= 2) {
      // A conversation with oneself has oneself as the other user.
      const other = participants.find((id) => id !== userId) ?? userId;
      const entry = pms.get(other);
      if (entry) entry.unread_message_ids.push(place.message_id);
      else pms.set(other, { other_user_id: other, sender_id: other, unread_message_ids: [place.message_id] });
    } else {
      const key = participants.sort(byId).join(',');
      const entry = huddles.get(key);
      if (entry) entry.unread_message_ids.push(place.message_id);
      else huddles.set(key, { user_ids_string: key, unread_message_ids: [place.message_id] });
    }
  }
  return {
    count,
    pms: [...pms.values()].sort((a, b) => a.other_user_id - b.other_user_id),
    streams,
    huddles: [...huddles.values()].sort((a, b) => a.user_ids_string.localeCompare(b.user_ids_string)),
    mentions,
    old_unreads_missing: more,
  };
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

/** Unread ids read at first (then twice as many each time). */
const FIRST_CHUNK = 2_048;

/** The ids of the user's rows meeting a filter, newest first, read in chunks. */
class RowChunks {
  readonly ids: number[] = [];
  /** Every row from this id up has been read (minus infinity: all). */
  known = Number.POSITIVE_INFINITY;

  constructor(
    private readonly model: Model,
    private readonly filter: Filter,
  ) {}

  async read(limit: number): Promise<void> {
    if (this.known === Number.NEGATIVE_INFINITY) return;
    const filter = this.known === Number.POSITIVE_INFINITY ? this.filter : { ...this.filter, message_id: { $lt: this.known } };
    // A user has one row per message: ordered by the unread index (personal-state.ts) as it is.
    const [found] = await this.model.personal.rows.findColumns(filter, ['message_id'], { sort: ['message_id', -1], sortDistinct: true, limit });
    for (const id of found!) this.ids.push(id as number);
    this.known = found.length < limit ? Number.NEGATIVE_INFINITY : this.ids.at(-1)!;
  }
}

/** A user's rows of channel messages, any id: their ids and (at the same index) channels. */
interface ChannelRows {
  ids: number[];
  channels: number[];
}

/**
 * All of them at once, in no order, from the (user, channel, message) index alone: asked
 * newest first in chunks, SQLite sorted them all for each chunk, or read each one's row
 * in the table through the (user, message) index. A user holds few (stars, mentions,
 * corrections of the read mark); a long list costs a fraction of a microsecond an entry.
 */
async function channelRowsOf(model: Model, userId: number): Promise<ChannelRows> {
  // `$gte: 0` rather than `$ne: null`: only channel rows, read by (user, channel) from the index.
  const [ids, channels] = await model.personal.rows.findColumns({ user_id: userId, channel_id: { $gte: 0 } }, ['message_id', 'channel_id']);
  return { ids: ids as number[], channels: channels as number[] };
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
  withRow: ChannelRows,
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
