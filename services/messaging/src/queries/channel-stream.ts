/**
 * The streams a personal scan merges (personal-scan.ts), and the one each channel the user
 * received in gives: its messages within the user's intervals, flags derived from the
 * read mark, read from the channel's places in memory (ChannelPlaces), its recent ids or
 * its index.
 *
 * A channel in memory says where its next message is before it is read (a bisection of
 * its places), so the merge reads only the channels whose messages it keeps: a deep page
 * of the combined feed, merging 250 channels, read a batch of each of them, and more of
 * them were read the further back the page was (more channels have messages there).
 */
import type { Filter } from '@teamchat/platform';
import type { MessageDoc } from '../projections/message-docs';
import type { MessagesReadModel } from '../projections/messages';
import type { Places } from '../projections/channel-places';
import { rangeOf, within, type Bounds } from './row-ids';

type Model = Pick<MessagesReadModel, 'messages' | 'conversationIds'>;

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

export interface Stream {
  /** Entries read and not yet taken, in scan order (places alone when the scan asked for no more). */
  buffer: PersonalEntry[];
  taken: number;
  /** The nearest id the stream may still yield beyond its buffer (±Infinity: unknown). */
  bound: number;
  exhausted: boolean;
  round: number;
  /** Ids read on its first round (doubled each round it keeps being read). */
  first: number;
  /** A channel's messages without a row of the user's: each is checked for one as the merge keeps it. */
  derived: boolean;
  read(n: number): Promise<void>;
}

const READ = ['read'];
const UNREAD: string[] = [];

/** A message's entry for a user from its flags (shared: not to be changed). */
export const entryOf = (message: MessageDoc, flags: string[]): PersonalEntry => ({
  message_id: message._id,
  flags,
  channel_id: message.channel_id,
  topic_lc: message.topic_lc,
  dm_key: message.dm_key,
  sender_id: message.sender_id,
  message,
});

/** What a channel's stream reads. */
export interface ChannelStreamOptions {
  channelId: number;
  mark: number;
  /** The scan's filter over the message's own fields (topic, sender, link fields). */
  messageFilter: Filter;
  /** The channel's parts of the scan's range (its intervals within it), in scan order. */
  parts: Bounds[];
  direction: 1 | -1;
  /** The channel's newest id (+Infinity when unknown or scanning forward). */
  newest: number;
  /** Entries with their documents (read for the kept ones only when from places), else places alone. */
  full: boolean;
  /** Messages moved in from elsewhere: their held rows alone say who has them (a full read's documents say it themselves). */
  movedIn: ReadonlySet<number>;
  /** The channel's messages in memory, when the filter is one they answer (`load`: loaded in the background if not). */
  placesOf: (load: boolean) => Places | undefined;
  /** Ids read on the stream's first round. */
  first: number;
}

/** The channel's stream, or none when its places in memory hold nothing within its parts. */
export function channelStream(model: Model, options: ChannelStreamOptions): Stream | undefined {
  const { channelId, mark, messageFilter, parts, direction, newest, full, movedIn, placesOf } = options;
  const topic = typeof messageFilter.topic_lc === 'string' ? messageFilter.topic_lc : undefined;
  // Every message of the channel is a candidate: its places answer (with documents read for the kept ones).
  const plain = Object.keys(messageFilter).length === 0;
  let part = 0;
  // Within parts[part], what is left to read.
  let cursor: Bounds = parts[0]!;
  // The next id when the channel is in memory (undefined: none left), else the cursor's edge.
  const nearest = (): number | undefined => {
    const places = plain ? placesOf(false) : undefined;
    if (!places) return direction === 1 ? cursor.lo : Math.min(cursor.hi, newest);
    for (let p = part; p < parts.length; p++) {
      const next = nextPlace(places, p === part ? cursor : parts[p]!, direction);
      if (next !== undefined) return next;
    }
    return undefined;
  };
  const first = nearest();
  if (first === undefined) return undefined;
  const stream: Stream = {
    buffer: [],
    taken: 0,
    bound: first,
    exhausted: false,
    round: 0,
    first: options.first,
    derived: true,
    async read(n) {
      // Reads until something is found or the parts are exhausted: the merge then knows the head.
      while (stream.buffer.length === 0 && !stream.exhausted) {
        const indexFilter = () => within({ ...messageFilter, channel_id: channelId }, '_id', cursor);
        const sort = { sort: ['_id', direction] as ['_id', 1 | -1], limit: n };
        let places: ({ _id: number | string } & Record<'topic_lc', string | number | null>)[] | undefined;
        // A full read of a channel in memory takes its places, and the merge reads the
        // documents of the messages it keeps, not of every one a stream offered (a deep page
        // read the documents of a quiet channel's recent ids, far below the cached ones).
        // Else recent ids (and their documents, mostly cached) first, and past them the
        // places, loaded for the next scans.
        const inMemory = full && plain ? placesOf(false) : undefined;
        let ids = full && plain && !inMemory ? await model.conversationIds({ channel_id: channelId }, rangeOf(cursor), direction, n) : undefined;
        const kept = inMemory ?? (ids ? undefined : placesOf(true));
        const deferred = !ids && full && plain && kept !== undefined;
        if (!ids && full && !deferred) ids = (await model.messages.findIds(indexFilter(), sort)) as number[];
        if (!ids) places = kept ? kept.slice(cursor, direction, n, topic) : await model.messages.findFields(indexFilter(), ['topic_lc'], sort);
        const count = ids ? ids.length : places!.length;
        if (count < n) {
          part++;
          if (part === parts.length) stream.exhausted = true;
          else cursor = parts[part]!;
        } else {
          const last = ids ? ids.at(-1)! : (places!.at(-1)!._id as number);
          cursor = direction === 1 ? { lo: last + 1, hi: cursor.hi } : { lo: cursor.lo, hi: last - 1 };
        }
        if (!stream.exhausted) {
          const next = nearest();
          if (next === undefined) stream.exhausted = true;
          else stream.bound = next;
        }
        if (count === 0) continue;
        if (places) {
          for (const place of places) {
            const id = place._id as number;
            if (movedIn.has(id) || (deferred && kept!.movedIn.has(id))) continue;
            const entry = { message_id: id, flags: id <= mark ? READ : UNREAD, channel_id: channelId, topic_lc: place.topic_lc as string | null, dm_key: null } as PersonalEntry;
            if (deferred) entry.deferred = true;
            stream.buffer.push(entry);
          }
          continue;
        }
        const wanted = movedIn.size === 0 ? ids! : ids!.filter((id) => !movedIn.has(id));
        for (const message of await model.messages.getMany(wanted)) {
          if (message.own_receipts || message.channel_id !== channelId) continue;
          stream.buffer.push(entryOf(message, message._id <= mark ? READ : UNREAD));
        }
      }
    },
  };
  return stream;
}

/** The first of the places within `range` in scan order (undefined: none). */
function nextPlace(places: Places, range: Bounds, direction: 1 | -1): number | undefined {
  if (direction === 1) {
    const at = places.firstAtLeast(range.lo);
    return at < places.length && places.idAt(at) <= range.hi ? places.idAt(at) : undefined;
  }
  const at = (range.hi === Number.POSITIVE_INFINITY ? places.length : places.firstAtLeast(range.hi + 1)) - 1;
  return at >= 0 && places.idAt(at) >= range.lo ? places.idAt(at) : undefined;
}
