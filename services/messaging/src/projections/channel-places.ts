/**
 * Every message of a channel as (id, lower-cased topic), in memory, for the scans that
 * pass thousands of a channel's messages: register's `unread_msgs` lists up to 50,000
 * unread messages from a user's hundreds of channels, which from the index took a
 * thousand queries and about half of register's time at a million messages
 * (queries/personal-scan.ts).
 *
 * A channel is loaded when such a scan first needs it, in the background (in chunks, other
 * work running between them; that scan reads the index meanwhile), extended by every new
 * message, and forgotten when a move or a deletion touches it, to be loaded again when
 * next needed. 12 bytes a message (an id and a topic number), so a
 * million messages hold 12 MB; channels past MAX_PLACES messages in all are dropped,
 * least recently used first.
 */
import { stageTracing, traceStage } from '@teamchat/platform';
import { LRUCache } from 'lru-cache';
import type { KnownSpellings } from './topic-spellings';

/** Messages kept in all channels (about 12 bytes each). */
const MAX_PLACES = 4_000_000;
const FIRST_CAPACITY = 64;

/**
 * Ids read per query while loading a channel: other requests run between chunks, so a
 * chunk is what one of them may wait for. At 1,000,000 messages 16,384 took about 9 ms,
 * 4,096 about 3 and 1,024 about 1: with every channel loaded at the start, 4,096 raised
 * the p50 of the pages read meanwhile by a millisecond, 1,024 by none measurable.
 */
const LOAD_CHUNK = 1_024;

/**
 * What loading a channel reads: up to `limit` of its message ids after `after`, ascending,
 * each with its topic; and (`after` and `limit` absent) the ids of its messages moved in
 * from another channel (`own_receipts`).
 */
export interface PlacesSource {
  chunk(channelId: number, after: number, limit: number): Promise<{ ids: number[]; topics: (string | null)[] }>;
  movedIn(channelId: number): Promise<number[]>;
  /** Its topics' spellings, read after its ids (see TopicSpellings.ofChannel); absent or undefined: not known. */
  spellings?(channelId: number): Promise<KnownSpellings | undefined>;
}

/** A channel's messages in id order. */
export class Places {
  private ids: Float64Array;
  private topicNumbers: Uint32Array;
  /** Topics by number; the first topic seen is 0. */
  private readonly topicNames: (string | null)[] = [];
  private readonly numberOf = new Map<string | null, number>();
  /**
   * By topic number, the spelling every message of the topic has (topic-spellings.ts);
   * undefined where two spellings met, or where it is not known.
   */
  private readonly spellings: (string | undefined)[] = [];
  length = 0;
  /**
   * Its messages moved in from another channel: theirs who hold a row for them, not
   * everyone whose receipts cover them (personal-state.ts). Only a move changes them, and
   * a move drops the channel's places.
   */
  movedIn: ReadonlySet<number> = new Set();

  constructor(ids: readonly number[], topics: readonly (string | null)[]) {
    const capacity = Math.max(FIRST_CAPACITY, ids.length);
    this.ids = new Float64Array(capacity);
    this.topicNumbers = new Uint32Array(capacity);
    for (let i = 0; i < ids.length; i++) this.push(ids[i]!, topics[i] ?? null);
  }

  get capacity(): number {
    return this.ids.length;
  }

  /**
   * Adds the channel's newest message; false (nothing added) when it is not past the newest.
   * `spelling`: its topic as it spells it, where known.
   */
  push(id: number, topic: string | null, spelling?: string): boolean {
    if (this.length > 0 && id <= this.ids[this.length - 1]!) return false;
    if (this.length === this.ids.length) {
      const ids = new Float64Array(this.ids.length * 2);
      ids.set(this.ids);
      const topics = new Uint32Array(this.ids.length * 2);
      topics.set(this.topicNumbers);
      [this.ids, this.topicNumbers] = [ids, topics];
    }
    let number = this.numberOf.get(topic);
    if (number === undefined) {
      number = this.topicNames.length;
      this.topicNames.push(topic);
      this.numberOf.set(topic, number);
      // Its first message: places hold every message of the channel.
      this.spellings.push(spelling);
    } else if (this.spellings[number] !== spelling) {
      this.spellings[number] = undefined;
    }
    this.ids[this.length] = id;
    this.topicNumbers[this.length] = number;
    this.length++;
    return true;
  }

  idAt(position: number): number {
    return this.ids[position]!;
  }

  /** The number of the topic of the message at the position (topicName gives the topic). */
  topicNumberAt(position: number): number {
    return this.topicNumbers[position]!;
  }

  /** How many topics have a number (0 to this, exclusive). */
  get topicCount(): number {
    return this.topicNames.length;
  }

  /** The topic by its number (the same string for every message of a topic). */
  topicName(number: number): string | null {
    return this.topicNames[number]!;
  }

  /** The spelling every message of the topic (lower-cased key) has; undefined when mixed or not known. */
  spellingOf(topic: string): string | undefined {
    const number = this.numberOf.get(topic);
    return number === undefined ? undefined : this.spellings[number];
  }

  /** What the store knows of the topics' spellings, for the messages loaded before any arrived. */
  learnSpellings(known: KnownSpellings): void {
    this.topicNames.forEach((topic, number) => {
      if (topic !== null) this.spellings[number] = known.get(topic);
    });
  }

  /** The position of the first message whose id is at least `id` (the length when none is). */
  firstAtLeast(id: number): number {
    let [lo, hi] = [0, this.length];
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! < id) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Up to `limit` messages within `range` (in `topic` when given), nearest the range's
   * start (per `direction`) first, shaped as the index's rows are.
   */
  slice(range: { lo: number; hi: number }, direction: 1 | -1, limit: number, topic?: string | null): { _id: number; topic_lc: string | null }[] {
    const found: { _id: number; topic_lc: string | null }[] = [];
    let wanted: number | undefined;
    if (topic !== undefined) {
      wanted = this.numberOf.get(topic);
      if (wanted === undefined) return found;
    }
    const from = this.firstAtLeast(range.lo);
    const to = range.hi === Number.POSITIVE_INFINITY ? this.length : this.firstAtLeast(range.hi + 1);
    const step = direction === 1 ? 1 : -1;
    for (let i = direction === 1 ? from : to - 1; i >= from && i < to && found.length < limit; i += step) {
      const number = this.topicNumbers[i]!;
      if (wanted !== undefined && number !== wanted) continue;
      found.push({ _id: this.ids[i]!, topic_lc: this.topicNames[number]! });
    }
    return found;
  }
}

/** A load in progress: what arrived or changed meanwhile. */
interface Loading {
  done: Promise<Places | undefined>;
  /** New messages of the channel while it loads (a chunk may or may not have read them). */
  arrivals: [id: number, topic: string | null, spelling: string | undefined][];
  /** A move or deletion touched the channel: what was read may be stale. */
  stale: boolean;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

export class ChannelPlaces {
  private readonly channels: LRUCache<number, Places>;
  private readonly loading = new Map<number, Loading>();
  /** Channels to load in the background, in order, each with the share of the bound it may fill up to (see warm). */
  private readonly queue = new Map<number, number>();
  private readonly maxPlaces: number;
  private warming = false;
  /**
   * Told when a background load fails (the service logs it): the scan that asked has its
   * answer from the index either way, and a later one asks again.
   */
  onWarmFailure: (err: unknown) => void = () => undefined;

  constructor(
    private readonly source: PlacesSource,
    /** Messages kept in all channels (array slots, counting room to grow). */
    maxPlaces = MAX_PLACES,
    /** Ids read per query while loading: between chunks other work runs. */
    private readonly chunk = LOAD_CHUNK,
  ) {
    this.maxPlaces = maxPlaces;
    this.channels = new LRUCache<number, Places>({ maxSize: maxPlaces, sizeCalculation: (places) => places.capacity });
  }

  /** The channel's places if they are in memory (not loading them). */
  peek(channelId: number): Places | undefined {
    return this.channels.get(channelId);
  }

  /** The channel's places, loaded (and kept) if they are not in memory. */
  async of(channelId: number): Promise<Places> {
    for (;;) {
      const kept = this.channels.get(channelId);
      if (kept) return kept;
      const places = await (this.loading.get(channelId)?.done ?? this.loadWhole(channelId));
      // A move or deletion overtook the load: read again.
      if (places) return places;
    }
  }

  /**
   * Loads these channels in the background, one chunk at a time, so that a later scan
   * finds them in memory; the scan asking now reads the index instead of waiting.
   * `upToShare`: these are loaded only while what is kept fills less than this share of
   * the bound (the service's start asks for every channel, and must not push out, in a
   * large organization, the channels scans asked for).
   */
  warm(channelIds: Iterable<number>, upToShare = 1): void {
    for (const id of channelIds) {
      if (this.channels.has(id) || this.loading.has(id)) continue;
      this.queue.set(id, Math.max(upToShare, this.queue.get(id) ?? 0));
    }
    if (this.warming || this.queue.size === 0) return;
    this.warming = true;
    void (async () => {
      try {
        while (this.queue.size > 0) {
          const [[id, share]] = this.queue;
          this.queue.delete(id);
          const full = this.channels.calculatedSize >= share * this.maxPlaces;
          if (!full && !this.channels.has(id)) await this.of(id);
          // The reads are synchronous (their awaits only microtasks), so without a turn here
          // a run of small channels, one chunk each, loaded back to back: at 1,000,000
          // messages requests waited 60-114 ms behind 11-44 channels.
          await nextTurn();
        }
      } catch (err) {
        // The read models closed (shutdown) or failed: a later scan asks again.
        this.queue.clear();
        this.onWarmFailure(err);
      } finally {
        this.warming = false;
      }
    })();
  }

  /** Reads the channel in chunks; kept unless a move or deletion touched it meanwhile (then undefined). */
  private loadWhole(channelId: number): Promise<Places | undefined> {
    const loading: Loading = { done: Promise.resolve(undefined), arrivals: [], stale: false };
    loading.done = (async () => {
      try {
        const places = new Places([], []);
        for (let after = Number.NEGATIVE_INFINITY; ; ) {
          const { ids, topics } = await this.source.chunk(channelId, after, this.chunk);
          for (let i = 0; i < ids.length; i++) places.push(ids[i]!, topics[i] ?? null);
          if (stageTracing) traceStage('places.chunk', `${channelId} ${ids.length}`);
          if (ids.length < this.chunk) break;
          after = ids.at(-1)!;
          await nextTurn();
        }
        places.movedIn = new Set(await this.source.movedIn(channelId));
        // After the ids: a topic the chunks read has its spelling here (the projection
        // writes it before the message reaches the places).
        const known = await this.source.spellings?.(channelId);
        if (known) places.learnSpellings(known);
        if (loading.stale) return undefined;
        // Arrivals the last chunk did not read: ids only grow, so they come after it. One
        // the chunks did read is skipped by push, its spelling counted already.
        for (const [id, topic, spelling] of loading.arrivals) places.push(id, topic, spelling);
        this.channels.set(channelId, places);
        return places;
      } finally {
        this.loading.delete(channelId);
      }
    })();
    this.loading.set(channelId, loading);
    return loading.done;
  }

  /** A new channel message (`topic`: as it spells it): appended where its channel is in memory or loading. */
  remember(message: { _id: number; channel_id: number | null; topic_lc: string | null; topic?: string }): void {
    if (message.channel_id === null) return;
    this.loading.get(message.channel_id)?.arrivals.push([message._id, message.topic_lc, message.topic]);
    const places = this.channels.get(message.channel_id);
    if (!places) return;
    const capacity = places.capacity;
    if (!places.push(message._id, message.topic_lc, message.topic)) this.channels.delete(message.channel_id);
    // Set again when the arrays grew, so the bound on memory counts them.
    else if (places.capacity !== capacity) this.channels.set(message.channel_id, places);
  }

  /** Channels a move or a deletion changed: loaded again when next needed. */
  forget(channelIds: readonly (number | null)[]): void {
    for (const id of channelIds) {
      if (id === null) continue;
      const loading = this.loading.get(id);
      if (loading) loading.stale = true;
      this.channels.delete(id);
    }
  }

  clear(): void {
    for (const loading of this.loading.values()) loading.stale = true;
    this.queue.clear();
    this.channels.clear();
  }
}
