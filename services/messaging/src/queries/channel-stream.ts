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

type Model = Pick<MessagesReadModel, 'messages' | 'conversationIds' | 'places'>;

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
  /** Whether the filter is the channel alone: every message of it is a candidate, and its places answer. */
  plain: boolean;
  /** The channel's parts of the scan's range (its intervals within it), in scan order. */
  parts: Bounds[];
  direction: 1 | -1;
  /** The channel's newest id (+Infinity when unknown or scanning forward). */
  newest: number;
  /** Entries with their documents (read for the kept ones only when from places), else places alone. */
  full: boolean;
  /** Messages moved in from elsewhere: their held rows alone say who has them (a full read's documents say it themselves). */
  movedIn: ReadonlySet<number>;
  /** Whether the channel's places in memory answer the filter (every message, or one topic's). */
  fromPlaces: boolean;
  /** The channel's places, when the scan found them in memory. */
  places: Places | undefined;
  /** Ids read on the stream's first round. */
  first: number;
}

/** The channel's stream, or none when its places in memory hold nothing within its parts. */
export function channelStream(model: Model, options: ChannelStreamOptions): Stream | undefined {
  const stream = new ChannelStream(model, options);
  const first = stream.nearest();
  if (first === undefined) return undefined;
  stream.bound = first;
  return stream;
}

/**
 * A class, not closures: a scan makes one per channel the user received in (hundreds per
 * page), and most are never read.
 */
class ChannelStream implements Stream {
  buffer: PersonalEntry[] = [];
  taken = 0;
  bound = 0;
  exhausted = false;
  round = 0;
  readonly first: number;
  readonly derived = true;
  private part = 0;
  /** Within parts[part], what is left to read. */
  private cursor: Bounds;
  private places: Places | undefined;
  /** Whether loading the places was asked for (a scan of places alone asks for all of them at once). */
  private warmed: boolean;

  constructor(
    private readonly model: Model,
    private readonly o: ChannelStreamOptions,
  ) {
    this.first = o.first;
    this.cursor = o.parts[0]!;
    this.places = o.places;
    this.warmed = !o.full;
  }

  /** The channel's places in memory, if the filter is one they answer; `load`: loaded in the background if not. */
  private placesOf(load: boolean): Places | undefined {
    if (this.places || !this.o.fromPlaces) return this.places;
    this.places = this.model.places.peek(this.o.channelId);
    if (!this.places && load && !this.warmed) {
      this.warmed = true;
      this.model.places.warm([this.o.channelId]);
    }
    return this.places;
  }

  /** The next id when the channel is in memory (undefined: none left), else the cursor's edge. */
  nearest(): number | undefined {
    const { parts, direction, newest } = this.o;
    const places = this.o.plain ? this.placesOf(false) : undefined;
    if (!places) return direction === 1 ? this.cursor.lo : Math.min(this.cursor.hi, newest);
    for (let p = this.part; p < parts.length; p++) {
      const next = nextPlace(places, p === this.part ? this.cursor : parts[p]!, direction);
      if (next !== undefined) return next;
    }
    return undefined;
  }

  /** Reads until something is found or the parts are exhausted: the merge then knows the head. */
  async read(n: number): Promise<void> {
    const { model } = this;
    const { channelId, mark, messageFilter, plain, parts, direction, full, movedIn } = this.o;
    const topic = typeof messageFilter.topic_lc === 'string' ? messageFilter.topic_lc : undefined;
    while (this.buffer.length === 0 && !this.exhausted) {
      const cursor = this.cursor;
      const indexFilter = () => within({ ...messageFilter, channel_id: channelId }, '_id', cursor);
      const sort = { sort: ['_id', direction] as ['_id', 1 | -1], limit: n };
      let places: ({ _id: number | string } & Record<'topic_lc', string | number | null>)[] | undefined;
      // A full read of a channel in memory takes its places, and the merge reads the
      // documents of the messages it keeps, not of every one a stream offered (a deep page
      // read the documents of a quiet channel's recent ids, far below the cached ones).
      // Else recent ids (and their documents, mostly cached) first, and past them the
      // places, loaded for the next scans.
      const inMemory = full && plain ? this.placesOf(false) : undefined;
      let ids = full && plain && !inMemory ? await model.conversationIds({ channel_id: channelId }, rangeOf(cursor), direction, n) : undefined;
      const kept = inMemory ?? (ids ? undefined : this.placesOf(true));
      const deferred = !ids && full && plain && kept !== undefined;
      if (!ids && full && !deferred) ids = (await model.messages.findIds(indexFilter(), sort)) as number[];
      if (!ids) places = kept ? kept.slice(cursor, direction, n, topic) : await model.messages.findFields(indexFilter(), ['topic_lc'], sort);
      const count = ids ? ids.length : places!.length;
      if (count < n) {
        this.part++;
        if (this.part === parts.length) this.exhausted = true;
        else this.cursor = parts[this.part]!;
      } else {
        const last = ids ? ids.at(-1)! : (places!.at(-1)!._id as number);
        this.cursor = direction === 1 ? { lo: last + 1, hi: cursor.hi } : { lo: cursor.lo, hi: last - 1 };
      }
      if (!this.exhausted) {
        const next = this.nearest();
        if (next === undefined) this.exhausted = true;
        else this.bound = next;
      }
      if (count === 0) continue;
      if (places) {
        for (const place of places) {
          const id = place._id as number;
          if (movedIn.has(id) || (deferred && kept!.movedIn.has(id))) continue;
          const entry = { message_id: id, flags: id <= mark ? READ : UNREAD, channel_id: channelId, topic_lc: place.topic_lc as string | null, dm_key: null } as PersonalEntry;
          if (deferred) entry.deferred = true;
          this.buffer.push(entry);
        }
        continue;
      }
      const wanted = movedIn.size === 0 ? ids! : ids!.filter((id) => !movedIn.has(id));
      for (const message of await model.messages.getMany(wanted)) {
        if (message.own_receipts || message.channel_id !== channelId) continue;
        this.buffer.push(entryOf(message, message._id <= mark ? READ : UNREAD));
      }
    }
  }
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
