/**
 * A user's personal history read in id order from the per-user state
 * (projections/personal-state.ts), as if it were a row per message they hold: the
 * narrows without a channel, is:unread, is:starred, is:mentioned, first_unread and
 * register's sections read it here.
 *
 * It is a lazy merge of streams, each in id order: the user's rows (held receipts and
 * corrections, read through their own indexes), and per channel they received in, the
 * channel's messages within their intervals that have no row of theirs (flags derived
 * from the read mark). A stream is read only when it may hold the next message, a few
 * ids at first and more as it keeps winning, so a page of the combined feed costs about
 * the page plus one probe per channel whose newest message could be on it; a channel's
 * newest ids come from memory (RecentConversationIds).
 */
import type { Filter, FieldCondition } from '@teamchat/platform';
import { flagKeys, type MessageDoc, type UserMessageDoc } from '../projections/message-docs';
import type { MessagesReadModel } from '../projections/messages';
import type { Places } from '../projections/channel-places';
import type { IdRange } from '../projections/recent-ids';
import type { Interval } from '../projections/receipts';
import { linkFields } from '../projections/text-features';
import { NearestFirst } from './nearest-first';
import { boundsOf, rangeOf, RowIds, within, type Bounds } from './row-ids';

/** Where a message of the user's personal history is, and their flags on it. */
export interface PersonalPlace {
  message_id: number;
  flags: string[];
  channel_id: number | null;
  topic_lc: string | null;
  dm_key: string | null;
}

/** A message of the user's personal history: its place, sender and their flags. */
export interface PersonalEntry extends PersonalPlace {
  sender_id: number;
  /** The message's document when the scan read it (derived entries always have it). */
  message?: MessageDoc;
  /** Within the scan: a derived entry whose document (and sender) is read once it is kept. */
  deferred?: true;
}

type Model = Pick<MessagesReadModel, 'messages' | 'personal' | 'conversationIds' | 'places'>;

const READ = ['read'];
const UNREAD: string[] = [];
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

/** A message's entry for a user from its flags (shared: not to be changed). */
const entryOf = (message: MessageDoc, flags: string[]): PersonalEntry => ({
  message_id: message._id,
  flags,
  channel_id: message.channel_id,
  topic_lc: message.topic_lc,
  dm_key: message.dm_key,
  sender_id: message.sender_id,
  message,
});

const fromRow = (row: UserMessageDoc): PersonalEntry => ({
  message_id: row.message_id,
  flags: row.flags,
  channel_id: row.channel_id,
  topic_lc: row.topic_lc,
  dm_key: row.dm_key,
  sender_id: row.sender_id,
});

interface Stream {
  /** Entries read and not yet taken, in scan order (places alone when the scan asked for no more). */
  buffer: PersonalEntry[];
  taken: number;
  /** The nearest id the stream may still yield beyond its buffer (±Infinity: unknown). */
  bound: number;
  exhausted: boolean;
  round: number;
  read(n: number): Promise<void>;
}

/**
 * Up to `limit` messages of the user's personal history meeting `filter` (over the rows'
 * fields: the narrow keys, sender, flags, link fields) within `range`, nearest the range's
 * start (per `direction`) first. `range` may instead be a list of ids (`$in`).
 */
export function scanPersonal(
  model: Model,
  userId: number,
  filter: Filter,
  range: IdRange | { $in: number[] },
  direction: 1 | -1,
  limit: number,
): Promise<PersonalEntry[]> {
  if ('$in' in range) return personalEntries(model, userId, filter, range.$in, direction, limit);
  return merge(model, userId, filter, range, direction, limit, true);
}

/**
 * scanPersonal's places alone: a channel message without a row of the user's is read
 * from the channel's index, not its document, so listing 50,000 unread messages (register's
 * unread_msgs) reads no message.
 */
export function scanPersonalPlaces(model: Model, userId: number, filter: Filter, range: IdRange, direction: 1 | -1, limit: number): Promise<PersonalPlace[]> {
  return merge(model, userId, filter, range, direction, limit, false);
}

async function merge(model: Model, userId: number, filter: Filter, range: IdRange, direction: 1 | -1, limit: number, full: boolean): Promise<PersonalEntry[]> {
  if (limit <= 0) return [];

  const bounds = boundsOf(range);
  if (bounds.lo > bounds.hi) return [];
  const streams: Stream[] = [rowStream(model, userId, filter, bounds, direction), ...(await derivedStreams(model, userId, filter, bounds, direction, full, limit >= WHOLE_ROWS_FROM))];
  const found: PersonalEntry[] = [];
  // Larger is nearer: the merge takes the stream whose next id is nearest the range's start.
  const near = (id: number) => (direction === 1 ? -id : id);
  const keyOf = (stream: Stream) => {
    const head = stream.buffer[stream.taken];
    return near(head ? head.message_id : stream.bound);
  };
  // On a tie a known head goes first: streams are disjoint, so an unread one's head lies beyond.
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
      found.push(head);
      best.taken++;
    } else {
      best.buffer = [];
      best.taken = 0;
      const n = Math.min(limit - found.length, Math.min(FIRST_ROUND << best.round, MOST_PER_ROUND));
      best.round++;
      await best.read(n);
    }
    if (best.taken >= best.buffer.length && best.exhausted) heap.pop();
    else heap.topChanged();
  }
  return full ? withDocuments(model, found) : found;
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
async function derivedStreams(model: Model, userId: number, filter: Filter, bounds: Bounds, direction: 1 | -1, full: boolean, wholeRows: boolean): Promise<Stream[]> {
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
  const rowIds = new RowIds(model, userId, bounds, direction, wholeRows);
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
  for (const [channelId, intervals] of received) {
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
    if (direction === -1) {
      const ids = (await model.conversationIds({ channel_id: channelId }, {}, -1, 1)) ?? ((await model.messages.findIds({ channel_id: channelId }, { sort: ['_id', -1], limit: 1 })) as number[]);
      if (ids.length === 0) continue;
      newest = ids[0]!;
    }
    // The channel's places when they are in memory; else they are loaded in the background
    // for the next scans (a deep page of the combined feed reads each channel's index).
    let places: Places | undefined | null = full ? null : kept.get(channelId);
    if (!full && fromPlaces && !places) unloaded.push(channelId);
    const placesOf = () => {
      if (places !== null) return places;
      places = fromPlaces ? model.places.peek(channelId) : undefined;
      if (fromPlaces && !places) model.places.warm([channelId]);
      return places;
    };
    streams.push(channelStream(model, rowIds, channelId, mark, messageFilter, channelOnly && full, parts, direction, newest, full, movedIn.get(channelId) ?? NONE, placesOf));
  }
  if (unloaded.length > 0) model.places.warm(unloaded);
  return streams;
}

const boundsOfInterval = ([from, to]: Interval): Bounds => ({ lo: from, hi: to === Number.POSITIVE_INFINITY ? to : to - 1 });

function intersectAll(a: Bounds, b: Bounds, c: Bounds): Bounds | undefined {
  const ab = intersect(a, b);
  return ab && intersect(ab, c);
}

function channelStream(
  model: Model,
  rowIds: RowIds,
  channelId: number,
  mark: number,
  messageFilter: Filter,
  channelOnly: boolean,
  parts: Bounds[],
  direction: 1 | -1,
  newest: number,
  full: boolean,
  /** Messages moved in from elsewhere: their held rows alone say who has them (a full read's documents say it themselves). */
  movedIn: ReadonlySet<number>,
  /** The channel's messages in memory, when the filter is one they answer (ChannelPlaces). */
  placesOf: () => Places | undefined,
): Stream {
  const topic = typeof messageFilter.topic_lc === 'string' ? messageFilter.topic_lc : undefined;
  let part = 0;
  // Within parts[part], what is left to read.
  let cursor: Bounds = parts[0]!;
  const nearest = () => (direction === 1 ? cursor.lo : Math.min(cursor.hi, newest));
  const stream: Stream = {
    buffer: [],
    taken: 0,
    bound: nearest(),
    exhausted: false,
    round: 0,
    async read(n) {
      // Reads until something is found or the parts are exhausted: the merge then knows the head.
      while (stream.buffer.length === 0 && !stream.exhausted) {
        const filter = within({ ...messageFilter, channel_id: channelId }, '_id', cursor);
        const sort = { sort: ['_id', direction] as ['_id', 1 | -1], limit: n };
        let places: ({ _id: number | string } & Record<'topic_lc', string | number | null>)[] | undefined;
        // Recent ids (and their documents, mostly cached) first; past them, a full read of a
        // channel in memory takes its places too, and the merge reads the documents of the
        // messages it keeps, not of every one a stream offered (a deep page).
        let ids = channelOnly ? await model.conversationIds({ channel_id: channelId }, rangeOf(cursor), direction, n) : undefined;
        const kept = ids ? undefined : placesOf();
        const deferred = !ids && full && channelOnly && kept !== undefined;
        if (!ids && full && !deferred) ids = (await model.messages.findIds(filter, sort)) as number[];
        if (!ids) places = kept ? kept.slice(cursor, direction, n, topic) : await model.messages.findFields(filter, ['topic_lc'], sort);
        const count = ids ? ids.length : places!.length;
        if (count < n) {
          part++;
          if (part === parts.length) stream.exhausted = true;
          else cursor = parts[part]!;
        } else {
          const last = ids ? ids.at(-1)! : (places!.at(-1)!._id as number);
          cursor = direction === 1 ? { lo: last + 1, hi: cursor.hi } : { lo: cursor.lo, hi: last - 1 };
        }
        if (!stream.exhausted) stream.bound = nearest();
        if (count === 0) continue;
        if (places) {
          // Places alone (register's 50,000 unreads): one pass, no list of ids when every row is known.
          const withRow = await rowIds.among(rowIds.whole ? [] : places.map((p) => p._id as number));
          for (const place of places) {
            const id = place._id as number;
            if (withRow.has(id) || movedIn.has(id) || (deferred && kept!.movedIn.has(id))) continue;
            const entry = { message_id: id, flags: id <= mark ? READ : UNREAD, channel_id: channelId, topic_lc: place.topic_lc as string | null, dm_key: null } as PersonalEntry;
            if (deferred) entry.deferred = true;
            stream.buffer.push(entry);
          }
          continue;
        }
        const withRow = await rowIds.among(ids!);
        const wanted = withRow.size === 0 && movedIn.size === 0 ? ids! : ids!.filter((id) => !withRow.has(id) && !movedIn.has(id));
        for (const message of await model.messages.getMany(wanted)) {
          if (message.own_receipts || message.channel_id !== channelId) continue;
          stream.buffer.push(entryOf(message, message._id <= mark ? READ : UNREAD));
        }
      }
    },
  };
  return stream;
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
