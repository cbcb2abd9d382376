/**
 * A user's personal history read in id order from the per-user state
 * (projections/personal-state.ts), as if it were a row per message they hold: the
 * narrows without a channel, is:unread, is:starred, is:mentioned, first_unread and
 * register's sections read it here.
 *
 * It is a lazy merge of streams, each in id order: the user's rows (held receipts and
 * corrections, read through their own indexes), and per channel they received in, the
 * channel's messages within their intervals that have no row of theirs (flags derived
 * from the read mark; channel-stream.ts). A stream is read only when it may hold the
 * next message, a few ids at first and more as it keeps winning. A channel whose messages
 * are in memory (ChannelPlaces) knows its next id without a read, so a page of the
 * combined feed, however deep, reads the channels its messages come from, the documents
 * of those it keeps and the user's rows near them (RowIds: whether a channel's message
 * has a row, which the row stream then yields, is asked only of the entries kept); what
 * it costs besides is a bisection per channel the user received in.
 */
import type { Filter, FieldCondition } from '@teamchat/platform';
import { flagKeys, type UserMessageDoc } from '../projections/message-docs';
import type { MessagesReadModel } from '../projections/messages';
import type { Places } from '../projections/channel-places';
import type { IdRange } from '../projections/recent-ids';
import type { Interval } from '../projections/receipts';
import { linkFields } from '../projections/text-features';
import { channelStream, entryOf, type PersonalEntry, type PersonalPlace, type Stream } from './channel-stream';
import { NearestFirst } from './nearest-first';
import { boundsOf, RowIds, within, type Bounds } from './row-ids';

export type { PersonalEntry, PersonalPlace } from './channel-stream';

type Model = Pick<MessagesReadModel, 'messages' | 'personal' | 'conversationIds' | 'places'>;

/** Ids a stream reads on its first round; doubled each round it keeps being read, up to the most. */
const FIRST_ROUND = 8;
const MOST_PER_ROUND = 512;
/**
 * From this many messages asked (register's 50,001 unreads; a page of messages asks at
 * most 5,000), the user's channel rows are read at once: the scan will pass most of them,
 * and one read of what the user flagged beats thousands of small ones.
 */
const WHOLE_ROWS_FROM = 10_000;
const NONE: ReadonlySet<number> = new Set();

const intersect = (a: Bounds, b: Bounds): Bounds | undefined => {
  const lo = Math.max(a.lo, b.lo);
  const hi = Math.min(a.hi, b.hi);
  return lo <= hi ? { lo, hi } : undefined;
};

/** Whether a row-shaped document meets a filter, as the store would decide it. */
export function meetsFilter(doc: Record<string, unknown>, filter: Filter): boolean {
  for (const field of Object.keys(filter)) {
    const condition = filter[field] as FieldCondition;
    const value = doc[field] ?? null;
    if (condition === null || typeof condition !== 'object') {
      if (value !== condition) return false;
    } else if ('$in' in condition) {
      if (!condition.$in.includes(value as never)) return false;
    } else if ('$nin' in condition) {
      if (condition.$nin.includes(value as never)) return false;
    } else if ('$ne' in condition) {
      if (value === condition.$ne) return false;
    } else if ('$text' in condition) {
      throw new Error('a text condition is not read from personal history');
    } else {
      const v = value as number;
      if (condition.$gt !== undefined && !(v > (condition.$gt as number))) return false;
      if (condition.$gte !== undefined && !(v >= (condition.$gte as number))) return false;
      if (condition.$lt !== undefined && !(v < (condition.$lt as number))) return false;
      if (condition.$lte !== undefined && !(v <= (condition.$lte as number))) return false;
    }
  }
  return true;
}


const fromRow = (row: UserMessageDoc): PersonalEntry => ({
  message_id: row.message_id,
  flags: row.flags,
  channel_id: row.channel_id,
  topic_lc: row.topic_lc,
  dm_key: row.dm_key,
  sender_id: row.sender_id,
});


/**
 * Up to `limit` messages of the user's personal history meeting `filter` (over the rows'
 * fields: the narrow keys, sender, flags, link fields) within `range`, nearest the range's
 * start (per `direction`) first. `range` may instead be a list of ids (`$in`).
 *
 * `documents: false`: the channel messages a stream took from places in memory come
 * without their documents and senders (`deferred`), for a caller that reads them
 * elsewhere (the tester thread, reader.ts); the filter never asks for a sender there.
 */
export function scanPersonal(
  model: Model,
  userId: number,
  filter: Filter,
  range: IdRange | { $in: number[] },
  direction: 1 | -1,
  limit: number,
  documents = true,
): Promise<PersonalEntry[]> {
  if ('$in' in range) return personalEntries(model, userId, filter, range.$in, direction, limit);
  // One id (GET /messages' anchor): the message itself, not a merge of every channel.
  const bounds = boundsOf(range);
  if (bounds.lo === bounds.hi) return personalEntries(model, userId, filter, [bounds.lo], direction, limit);
  return merge(model, userId, filter, range, direction, limit, true, documents);
}

/**
 * scanPersonal's places alone: a channel message without a row of the user's is read
 * from the channel's index, not its document, so listing 50,000 unread messages (register's
 * unread_msgs) reads no message.
 */
export function scanPersonalPlaces(model: Model, userId: number, filter: Filter, range: IdRange, direction: 1 | -1, limit: number): Promise<PersonalPlace[]> {
  return merge(model, userId, filter, range, direction, limit, false);
}

async function merge(
  model: Model,
  userId: number,
  filter: Filter,
  range: IdRange,
  direction: 1 | -1,
  limit: number,
  full: boolean,
  documents = full,
): Promise<PersonalEntry[]> {
  if (limit <= 0) return [];

  const bounds = boundsOf(range);
  if (bounds.lo > bounds.hi) return [];
  const rowIds = new RowIds(model, userId, bounds, direction, limit >= WHOLE_ROWS_FROM);
  const streams: Stream[] = [rowStream(model, userId, filter, bounds, direction), ...(await derivedStreams(model, userId, filter, bounds, direction, full))];
  const found: PersonalEntry[] = [];
  // Larger is nearer: the merge takes the stream whose next id is nearest the range's start.
  const near = (id: number) => (direction === 1 ? -id : id);
  const keyOf = (stream: Stream) => {
    const head = stream.buffer[stream.taken];
    return near(head ? head.message_id : stream.bound);
  };
  // On a tie a known head goes first: channels' streams are disjoint, so an unread one's
  // head lies beyond (the row stream may hold the same id: the channel's is then dropped).
  const heap = new NearestFirst<Stream>((a, b) => {
    const ka = keyOf(a);
    const kb = keyOf(b);
    return ka > kb || (ka === kb && a.buffer[a.taken] !== undefined && b.buffer[b.taken] === undefined);
  });
  for (const stream of streams) heap.push(stream);
  while (found.length < limit) {
    const best = heap.peek();
    if (!best) break;
    const head = best.buffer[best.taken];
    if (head) {
      best.taken++;
      // Asked in scan order, as RowIds wants.
      if (!best.derived || !(await rowIds.has(head.message_id))) found.push(head);
    } else {
      best.buffer = [];
      best.taken = 0;
      const n = Math.min(limit - found.length, Math.min(best.first << best.round, MOST_PER_ROUND));
      best.round++;
      await best.read(n);
    }
    if (best.taken >= best.buffer.length && best.exhausted) heap.pop();
    else heap.topChanged();
  }
  return full && documents ? withDocuments(model, found) : found;
}

/** The deferred entries' documents and senders, read for the entries kept; one gone since (a deletion) is left out. */
async function withDocuments(model: Model, found: PersonalEntry[]): Promise<PersonalEntry[]> {
  const deferred: number[] = [];
  for (const entry of found) if (entry.deferred) deferred.push(entry.message_id);
  if (deferred.length === 0) return found;
  const documents = new Map((await model.messages.getMany(deferred)).map((m) => [m._id, m]));
  const complete: PersonalEntry[] = [];
  for (const entry of found) {
    if (!entry.deferred) complete.push(entry);
    else {
      const message = documents.get(entry.message_id);
      if (message) complete.push(entryOf(message, entry.flags));
    }
  }
  return complete;
}

/** The user's rows meeting the filter, read through the rows' indexes. */
function rowStream(model: Model, userId: number, filter: Filter, bounds: Bounds, direction: 1 | -1): Stream {
  let cursor = bounds;
  const stream: Stream = {
    buffer: [],
    taken: 0,
    bound: direction === 1 ? bounds.lo : bounds.hi,
    exhausted: false,
    round: 0,
    first: FIRST_ROUND,
    derived: false,
    async read(n) {
      const rowFilter = within({ ...filter, user_id: userId }, 'message_id', cursor);
      const rows = await model.personal.rows.find(rowFilter, { sort: ['message_id', direction], limit: n });
      stream.buffer = rows.map(fromRow);
      if (rows.length < n) stream.exhausted = true;
      else {
        const last = rows.at(-1)!.message_id;
        cursor = direction === 1 ? { lo: last + 1, hi: cursor.hi } : { lo: cursor.lo, hi: last - 1 };
        stream.bound = direction === 1 ? cursor.lo : cursor.hi;
      }
    },
  };
  return stream;
}

/** Row fields a channel message's document has too, under the same name. */
const MESSAGE_FIELDS = new Set(['topic_lc', 'sender_id', 'has_link', 'has_image', 'has_attachment', 'dm_key']);

/**
 * Per channel the user received in, the messages within their intervals without a row
 * of theirs. None when the filter asks for what only rows have (a direct message, a
 * star, a mention).
 */
async function derivedStreams(model: Model, userId: number, filter: Filter, bounds: Bounds, direction: 1 | -1, full: boolean): Promise<Stream[]> {
  if (filter.direct === true || filter.starred === true || filter.mentioned === true || filter.channel_id === null) return [];
  if (typeof filter.dm_key === 'string') return [];
  const messageFilter: Filter = {};
  for (const field of Object.keys(filter)) if (MESSAGE_FIELDS.has(field)) messageFilter[field] = filter[field]!;
  const channelOnly = Object.keys(messageFilter).length === 0;
  // What the channel's places in memory can answer: every message, or one topic's.
  const fromPlaces = channelOnly || (Object.keys(messageFilter).length === 1 && typeof messageFilter.topic_lc === 'string');
  const channelCondition = filter.channel_id;
  const streams: Stream[] = [];
  const marks = await model.personal.marksOf(userId);
  const received = await model.personal.receipts.allIntervals(userId);
  // A scan from places (the index's or memory's) needs the messages moved in from elsewhere
  // (their held rows alone say who has them): kept with a channel's places in memory, else
  // read for every other channel at once, from the index of such messages (a full read of
  // documents sees `own_receipts` itself).
  const movedIn = new Map<number, ReadonlySet<number>>();
  const kept = new Map<number, Places>();
  const unkept: number[] = [];
  // A full read asks a channel's places only once it reads past its recent ids (below).
  if (!full) for (const channelId of received.keys()) {
    if (channelCondition !== undefined && !meetsFilter({ channel_id: channelId }, { channel_id: channelCondition })) continue;
    const places = fromPlaces ? model.places.peek(channelId) : undefined;
    if (places) {
      kept.set(channelId, places);
      movedIn.set(channelId, places.movedIn);
    } else unkept.push(channelId);
  }
  if (!full && unkept.length > 0) {
    const moved = await model.messages.findFields({ own_receipts: true, channel_id: { $in: unkept } }, ['channel_id']);
    for (const message of moved) {
      const channelId = message.channel_id as number;
      if (!movedIn.has(channelId)) movedIn.set(channelId, new Set());
      (movedIn.get(channelId) as Set<number>).add(message._id as number);
    }
  }
  const unloaded: number[] = [];
  for (const channelId of received.keys()) {
    const intervals = received.get(channelId)!;
    if (channelCondition !== undefined && !meetsFilter({ channel_id: channelId }, { channel_id: channelCondition })) continue;
    const mark = marks.get(channelId) ?? 0;
    const byFlag: Bounds = filter.unread === true ? { lo: mark + 1, hi: Number.POSITIVE_INFINITY } : filter.unread === false ? { lo: Number.NEGATIVE_INFINITY, hi: mark } : bounds;
    const parts: Bounds[] = [];
    for (const interval of intervals) {
      const part = intersectAll(bounds, byFlag, boundsOfInterval(interval));
      if (part) parts.push(part);
    }
    if (parts.length === 0) continue;
    if (direction === -1) parts.reverse();
    let newest = Number.POSITIVE_INFINITY;
    // A channel in memory gives its stream's next id itself (channel-stream.ts).
    const inMemory = channelOnly && (full ? model.places.peek(channelId) : kept.get(channelId));
    if (direction === -1 && !inMemory) {
      const ids = (await model.conversationIds({ channel_id: channelId }, {}, -1, 1)) ?? ((await model.messages.findIds({ channel_id: channelId }, { sort: ['_id', -1], limit: 1 })) as number[]);
      if (ids.length === 0) continue;
      newest = ids[0]!;
    }
    // The channel's places when they are in memory; else a full read loads them in the
    // background for the next scans once it reads past the recent ids (channel-stream.ts).
    const places = full ? inMemory || undefined : kept.get(channelId);
    if (!full && fromPlaces && !places) unloaded.push(channelId);
    // A page of messages reads every channel not in memory at least once (its next id is
    // not known without a read): one id first, with its document, not eight.
    const first = full && !inMemory ? 1 : FIRST_ROUND;
    const stream = channelStream(model, { channelId, mark, messageFilter, plain: channelOnly, parts, direction, newest, full, movedIn: movedIn.get(channelId) ?? NONE, fromPlaces, places, first });
    if (stream) streams.push(stream);
  }
  if (unloaded.length > 0) model.places.warm(unloaded);
  return streams;
}

const boundsOfInterval = ([from, to]: Interval): Bounds => ({ lo: from, hi: to === Number.POSITIVE_INFINITY ? to : to - 1 });

function intersectAll(a: Bounds, b: Bounds, c: Bounds): Bounds | undefined {
  const ab = intersect(a, b);
  return ab && intersect(ab, c);
}

/** The listed messages the user holds, meeting the filter, in scan order. */
async function personalEntries(model: Model, userId: number, filter: Filter, ids: number[], direction: 1 | -1, limit: number): Promise<PersonalEntry[]> {
  const messages = await model.messages.getMany([...new Set(ids)]);
  const flags = await model.personal.flagsMany(userId, messages);
  const entries: PersonalEntry[] = [];
  messages.forEach((message, i) => {
    const held = flags[i];
    if (!held) return;
    // As the row would read (message-docs.ts), for the filter.
    const row = { ...flagKeys([...held]), channel_id: message.channel_id, topic_lc: message.topic_lc, dm_key: message.dm_key, direct: message.dm_key !== null, sender_id: message.sender_id, ...linkFields(message) };
    if (meetsFilter(row, filter)) entries.push(entryOf(message, row.flags));
  });
  return entries.sort((a, b) => (a.message_id - b.message_id) * direction).slice(0, limit);
}
