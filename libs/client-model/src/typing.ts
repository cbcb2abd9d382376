/**
 * Typing notifications, both ways, as Zulip's clients pace them. Pure: the caller passes
 * the time and does the requests and timers.
 *
 * Sending (`TypingSender`): the first keystroke towards a conversation sends `start`; while
 * the person goes on typing there, `start` is sent again every
 * `server_typing_started_wait_period_milliseconds` (so the others' notice does not expire);
 * `stop` goes when they pause for `server_typing_stopped_wait_period_milliseconds`, empty
 * the box, send, or turn to another conversation (which then gets its own `start`).
 *
 * Receiving (`TypingPeople`): who is typing where, from `typing` events; a `start` not
 * renewed within `server_typing_started_expiry_period_milliseconds` lapses (its `stop`
 * may never come: a closed laptop).
 */
import type { Narrow } from './narrow';

export interface TypingTimings {
  startedWaitMs: number;
  stoppedWaitMs: number;
  startedExpiryMs: number;
}

/** Zulip's defaults, for a registration that does not say. */
export const DEFAULT_TYPING_TIMINGS: TypingTimings = { startedWaitMs: 10_000, stoppedWaitMs: 5_000, startedExpiryMs: 15_000 };

export function typingTimingsOf(state: Record<string, unknown>): TypingTimings {
  const ms = (key: string, fallback: number) => (typeof state[key] === 'number' && (state[key] as number) > 0 ? (state[key] as number) : fallback);
  return {
    startedWaitMs: ms('server_typing_started_wait_period_milliseconds', DEFAULT_TYPING_TIMINGS.startedWaitMs),
    stoppedWaitMs: ms('server_typing_stopped_wait_period_milliseconds', DEFAULT_TYPING_TIMINGS.stoppedWaitMs),
    startedExpiryMs: ms('server_typing_started_expiry_period_milliseconds', DEFAULT_TYPING_TIMINGS.startedExpiryMs),
  };
}

/** Where one types: a channel's topic, or direct to people (their ids, without oneself). */
export type TypingTarget = { type: 'stream'; streamId: number; topic: string } | { type: 'direct'; to: number[] };

export interface TypingRequest {
  op: 'start' | 'stop';
  target: TypingTarget;
}

const targetKey = (t: TypingTarget) => (t.type === 'stream' ? `s:${t.streamId}:${t.topic.toLowerCase()}` : `d:${[...t.to].sort((a, b) => a - b).join(',')}`);

export class TypingSender {
  private current: { target: TypingTarget; key: string; startedAt: number } | undefined;
  private lastInputAt = 0;

  constructor(private readonly timings: TypingTimings) {}

  /**
   * The box changed: `target` is where it is addressed (undefined when nowhere, or when it
   * is empty, which counts as not typing). Returns the requests to send, in order.
   */
  input(target: TypingTarget | undefined, now: number): TypingRequest[] {
    const out: TypingRequest[] = [];
    const key = target && targetKey(target);
    if (this.current && this.current.key !== key) out.push(...this.stop());
    if (!target || !key) return out;
    this.lastInputAt = now;
    if (!this.current) {
      this.current = { target, key, startedAt: now };
      out.push({ op: 'start', target });
    } else if (now - this.current.startedAt >= this.timings.startedWaitMs) {
      this.current.startedAt = now;
      out.push({ op: 'start', target });
    }
    return out;
  }

  /** A timer's check: `stop` once the person has paused long enough. When to check next is `nextCheckIn`. */
  idle(now: number): TypingRequest[] {
    if (!this.current || now - this.lastInputAt < this.timings.stoppedWaitMs) return [];
    return this.stop();
  }

  /** Milliseconds until `idle` may have something to send (undefined: nothing pending). */
  nextCheckIn(now: number): number | undefined {
    return this.current ? Math.max(0, this.lastInputAt + this.timings.stoppedWaitMs - now) : undefined;
  }

  /** The message was sent, or the box closed: `stop` now if a `start` is out. */
  stop(): TypingRequest[] {
    const current = this.current;
    this.current = undefined;
    return current ? [{ op: 'stop', target: current.target }] : [];
  }
}

interface TypingUser {
  user_id: number;
}

/** A `typing` event, as the server sends it. */
export type TypingEventLike =
  | { type: 'typing'; op: 'start' | 'stop'; message_type: 'direct' | 'private'; sender: TypingUser; recipients: TypingUser[] }
  | { type: 'typing'; op: 'start' | 'stop'; message_type: 'stream'; sender: TypingUser; stream_id: number; topic: string };

export class TypingPeople {
  /** By conversation key, by user id: when their notice lapses (and the topic as typed, for a channel's view). */
  private typing = new Map<string, { topic?: string; until: Map<number, number> }>();

  constructor(
    private readonly self: number,
    private timings: TypingTimings = DEFAULT_TYPING_TIMINGS,
  ) {}

  setTimings(timings: TypingTimings): void {
    this.timings = timings;
  }

  apply(event: TypingEventLike, now: number): void {
    const sender = event.sender?.user_id;
    if (typeof sender !== 'number' || sender === this.self) return;
    let key: string;
    let topic: string | undefined;
    if (event.message_type === 'stream') {
      key = `s:${event.stream_id}:${event.topic.toLowerCase()}`;
      topic = event.topic;
    } else {
      const people = new Set([...(event.recipients ?? []).map((u) => u.user_id), sender]);
      people.delete(this.self);
      key = `d:${[...people].sort((a, b) => a - b).join(',')}`;
    }
    const here = this.typing.get(key) ?? { topic, until: new Map<number, number>() };
    if (event.op === 'start') here.until.set(sender, now + this.timings.startedExpiryMs);
    else here.until.delete(sender);
    if (here.until.size) this.typing.set(key, here);
    else this.typing.delete(key);
  }

  /**
   * Who is typing in what a narrow shows, in the order they started: in a topic or a
   * direct conversation its typists; in a channel, those typing in any of its topics.
   */
  in(narrow: Narrow, now: number): { userId: number; topic?: string }[] {
    const found: { userId: number; topic?: string }[] = [];
    for (const [key, here] of this.typing) {
      let topic: string | undefined;
      if (narrow.kind === 'topic') {
        if (key !== `s:${narrow.streamId}:${narrow.topic.toLowerCase()}`) continue;
      } else if (narrow.kind === 'channel') {
        const prefix = `s:${narrow.streamId}:`;
        if (!key.startsWith(prefix)) continue;
        topic = here.topic;
      } else if (narrow.kind === 'dm') {
        if (key !== `d:${[...narrow.userIds].sort((a, b) => a - b).join(',')}`) continue;
      } else continue;
      for (const [userId, until] of here.until) if (until > now) found.push({ userId, topic });
    }
    return found;
  }

  /** When the next notice lapses (undefined: none shown), for the caller's timer. */
  nextExpiry(now: number): number | undefined {
    let next: number | undefined;
    for (const here of this.typing.values()) for (const until of here.until.values()) if (until > now && (next === undefined || until < next)) next = until;
    return next;
  }
}
