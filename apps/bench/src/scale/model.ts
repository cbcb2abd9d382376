/**
 * The organization the scale bench seeds, as pure functions of its sizes and a fixed seed:
 * the same sizes give the same users, channels, subscriptions and messages on every run
 * and every machine, so a seed killed half-way resumes with exactly the messages it had
 * not sent, and two runs of the bench measure the same data.
 *
 * The shape, chosen to look like a real organization rather than an even spread:
 * - channel c has about 5,000 / (c + 1) subscribers, between 3 and 1,000 (at most every
 *   user): a few channels everyone is in, many small ones;
 * - how busy a channel is follows a Zipf law (weight 1 / (rank + 1)) over a shuffled order
 *   of the channels, independent of its size: the large channels of an organization are
 *   mostly its announcement channels, and its busiest ones mostly team channels;
 * - a channel's topics follow the same law (the busiest channels have hundreds of topics,
 *   quiet ones a few), and message words a Zipf law over a vocabulary of invented words;
 * - 15% of messages are direct (a fifth of them to a group of three), 4% of channel
 *   messages mention someone, and after a message is sent it may get a reaction (5%), a
 *   star (2%) or an edit by its sender (1%).
 * The reader (the first bench user, the "member with many unreads" the reads are measured
 * for) is subscribed to the fifty busiest channels and to every fifth one, takes part in
 * a tenth of the direct messages, gets a quarter of the mentions made where it is a
 * subscriber, and reads nothing.
 */

export interface ScaleSizes {
  users: number;
  channels: number;
  messages: number;
}

/** One message to send, and what is done to it once sent. */
export interface PlannedMessage {
  /** The sender's index among the bench users. */
  sender: number;
  /** A channel message (channel index and topic) or a direct one (the other users' indexes). */
  to: { channel: number; topic: string } | { users: number[] };
  content: string;
  /** The user who reacts, stars (its own copy) or, for an edit, the new content. */
  reaction?: { user: number; emoji: string };
  star?: number;
  edit?: string;
}

/** The word that a rare-word search looks for: in one message of every RARE_EVERY. */
export const RARE_WORD = 'quixotically';
export const RARE_EVERY = 20_000;
const SEED = 0x5ca1ab1e;
const MAX_SUBSCRIBERS = 1_000;
const READER_BUSY_CHANNELS = 50;
const EMOJI = ['thumbs_up', 'tada', 'heart', 'smile', 'octopus', 'rocket'];

/** mulberry32: small, fast and good enough for picking; one generator per message. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const mix = (a: number, b: number) => Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b) ^ (b >>> 13);

/** Draws from a Zipf law over `weights.length` items, given its cumulative weights. */
function zipfCumulative(n: number): Float64Array {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) cumulative[i] = total += 1 / (i + 1);
  for (let i = 0; i < n; i++) cumulative[i]! /= total;
  return cumulative;
}

function draw(cumulative: Float64Array, r: number): number {
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cumulative[mid]! < r) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Pronounceable invented words, none of them the rare word nor an English stop word. */
function vocabulary(size: number): string[] {
  const onsets = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'br', 'tr', 'pl', 'st'];
  const vowels = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou'];
  const words: string[] = [];
  const random = prng(SEED);
  const seen = new Set<string>();
  while (words.length < size) {
    const syllables = 2 + Math.floor(random() * 2);
    let word = '';
    for (let s = 0; s < syllables; s++) word += onsets[Math.floor(random() * onsets.length)]! + vowels[Math.floor(random() * vowels.length)]!;
    if (!seen.has(word)) {
      seen.add(word);
      words.push(word);
    }
  }
  return words;
}

export class ScaleModel {
  readonly words = vocabulary(3_000);
  private readonly wordLaw = zipfCumulative(this.words.length);
  /** Channel indexes from the busiest to the quietest. */
  private readonly byActivity: number[];
  private readonly channelLaw: Float64Array;
  private readonly topicLaws = new Map<number, Float64Array>();
  /** Each channel's subscribers, as user indexes (the reader's included where it is one). */
  private readonly subscribers: number[][];

  constructor(readonly sizes: ScaleSizes) {
    const { channels } = sizes;
    const random = prng(mix(SEED, 1));
    this.byActivity = Array.from({ length: channels }, (_, i) => i);
    for (let i = channels - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [this.byActivity[i], this.byActivity[j]] = [this.byActivity[j]!, this.byActivity[i]!];
    }
    this.channelLaw = zipfCumulative(channels);
    const activityRank = new Map(this.byActivity.map((channel, rank) => [channel, rank]));
    this.subscribers = Array.from({ length: channels }, (_, c) => {
      const count = this.subscriberCount(c);
      const start = Math.floor(prng(mix(SEED, 1_000 + c))() * sizes.users);
      const members = new Set<number>();
      for (let k = 0; members.size < count; k++) members.add((start + k) % sizes.users);
      if (activityRank.get(c)! < READER_BUSY_CHANNELS || c % 5 === 0) members.add(0);
      return [...members].sort((a, b) => a - b);
    });
  }

  /** Which channel the reader is most likely to read, and where the rare word goes. */
  get readerBusiestChannel(): number {
    return this.byActivity.find((c) => this.subscribers[c]!.includes(0))!;
  }

  /** A channel with the most subscribers (1,000, or every user in a small organization). */
  get largestChannel(): number {
    return 0;
  }

  subscriberCount(channel: number): number {
    return Math.max(3, Math.min(MAX_SUBSCRIBERS, this.sizes.users, Math.floor(5_000 / (channel + 1))));
  }

  subscribersOf(channel: number): readonly number[] {
    return this.subscribers[channel]!;
  }

  /** Topics of a channel: busier channels have more of them. */
  topicCount(channel: number): number {
    const rank = this.byActivity.indexOf(channel);
    return Math.max(2, Math.min(300, Math.floor(3_000 / (rank + 1))));
  }

  /** Message `i` (0-based): the same for the same sizes, whenever it is asked for. */
  message(i: number): PlannedMessage {
    const random = prng(mix(SEED, i + 7));
    const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
    const { users } = this.sizes;
    const words = 6 + Math.floor(random() * 15);
    const text: string[] = [];
    for (let w = 0; w < words; w++) text.push(this.words[draw(this.wordLaw, random())]!);
    const rare = i % RARE_EVERY === RARE_EVERY / 2;
    if (rare) text.splice(Math.floor(text.length / 2), 0, RARE_WORD);

    let planned: PlannedMessage;
    let audience: readonly number[];
    if (!rare && random() < 0.15) {
      const sender = Math.floor(random() * users);
      const withReader = random() < 0.1 && sender !== 0;
      const others = new Set<number>(withReader ? [0] : []);
      const size = random() < 0.2 ? 2 : 1;
      while (others.size < size) {
        const other = Math.floor(random() * users);
        if (other !== sender) others.add(other);
      }
      audience = [sender, ...others];
      planned = { sender, to: { users: [...others] }, content: text.join(' ') };
    } else {
      const channel = rare ? this.readerBusiestChannel : this.byActivity[draw(this.channelLaw, random())]!;
      const topics = this.topicLaws.get(channel) ?? zipfCumulative(this.topicCount(channel));
      this.topicLaws.set(channel, topics);
      audience = this.subscribers[channel]!;
      const sender = pick(audience);
      if (random() < 0.04) {
        const mentioned = audience.includes(0) && random() < 0.25 ? 0 : pick(audience);
        text.unshift(`@**${fullName(mentioned)}**`);
      }
      planned = { sender, to: { channel, topic: `topic ${draw(topics, random())}` }, content: text.join(' ') };
    }
    if (random() < 0.05) planned.reaction = { user: pick(audience), emoji: pick(EMOJI) };
    if (random() < 0.02) planned.star = audience.includes(0) && random() < 0.5 ? 0 : pick(audience);
    if (random() < 0.01) planned.edit = `${planned.content} (edited)`;
    return planned;
  }
}

export const emailOf = (user: number) => `scale-${user}@example.com`;
export const fullName = (user: number) => `Scale User ${user}`;
export const channelName = (channel: number) => `scale-${channel}`;
