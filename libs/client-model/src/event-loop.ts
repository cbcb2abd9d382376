/**
 * The client's one event queue, kept for as long as the page lives (zulip-flutter's
 * UpdateMachine; Zulip's web/src/server_events.js): POST /register once, then GET
 * /events long-polled with the last event id, each batch handed over in order.
 *
 * - Errors (the server down, 5xx, 429, a network failure) are retried with a jittered
 *   exponential backoff (100 ms doubling up to 10 s), and reported so the page can say so.
 * - BAD_EVENT_QUEUE_ID (the queue expired, was dropped, or the server lost it) means the
 *   state is stale: register again and hand over the new registration, which replaces the
 *   whole state (the caller refetches its feeds).
 * - A poll that has not answered within the registration's
 *   event_queue_longpoll_timeout_seconds (the heartbeat interval plus a margin) is stalled
 *   (a half-open connection, a suspended laptop): it is abandoned and polled again.
 * - 401 ends the loop: the session is gone, and only logging in again helps.
 *
 * No DOM and no I/O of its own: the transport and the clock are given, so jest drives it.
 */

/** An API failure as the transport reports it: Zulip's error code, or none for a network failure. */
export class ApiError extends Error {
  constructor(
    message: string,
    /** Zulip's `code` (BAD_EVENT_QUEUE_ID, UNAUTHORIZED, ...); NETWORK when the server could not be reached. */
    readonly code: string,
    /** The HTTP status, 0 when there was no response. */
    readonly status: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface AbortToken {
  readonly aborted: boolean;
}

export interface Registration {
  queue_id: string;
  last_event_id: number;
  event_queue_longpoll_timeout_seconds: number;
}

export interface EventTransport<R extends Registration> {
  register(): Promise<R>;
  /** Resolves with the queue's events above lastEventId; `abort` is signalled when the loop gives up on it. */
  getEvents(queueId: string, lastEventId: number, abort: { token: AbortToken; onAbort: (f: () => void) => void }): Promise<{ type: string; id: number }[]>;
}

export interface Clock {
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  random(): number;
}

export type LoopStatus =
  | { kind: 'connecting' }
  | { kind: 'live' }
  /** Failing; the next attempt at `retryInMs`. `error` says what went wrong, in words. */
  | { kind: 'retrying'; error: ApiError; attempt: number; retryInMs: number }
  /** The session ended (401): the loop stopped. */
  | { kind: 'unauthorized'; error: ApiError }
  | { kind: 'stopped' };

export interface EventLoopHandlers<R extends Registration> {
  /** A registration: the first, or a new one after the queue was lost (`reset`). */
  onRegistered(registration: R, reset: boolean): void;
  onEvents(events: { type: string; id: number }[]): void;
  onStatus(status: LoopStatus): void;
}

declare const setTimeout: (f: () => void, ms: number) => unknown;
declare const clearTimeout: (handle: unknown) => void;

const defaultClock: Clock = { setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (h) => clearTimeout(h), random: Math.random };

/** Backoff before attempt n (1-based): uniformly random below min(10 s, 100 ms × 2^n), as zulip-flutter's BackoffMachine. */
export function backoffMs(attempt: number, random: () => number): number {
  return Math.round(random() * Math.min(10_000, 100 * 2 ** attempt));
}

/** Extra time past the server's own long-poll limit before a poll counts as stalled. */
export const STALL_MARGIN_MS = 5_000;

export class EventLoop<R extends Registration> {
  private queueId: string | undefined;
  private lastEventId = -1;
  private stallMs = 90_000;
  private attempt = 0;
  private running = false;
  private registered = false;
  private timer: unknown;
  private wake: (() => void) | undefined;
  private abortCurrent: (() => void) | undefined;
  /** Counts runs of the loop, so that a stopped loop's late answers are ignored. */
  private generation = 0;

  constructor(
    private readonly transport: EventTransport<R>,
    private readonly handlers: EventLoopHandlers<R>,
    private readonly clock: Clock = defaultClock,
  ) {}

  get queue(): string | undefined {
    return this.queueId;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    const generation = ++this.generation;
    void this.run(generation);
  }

  stop(): void {
    this.running = false;
    this.generation++;
    this.abortCurrent?.();
    this.clock.clearTimeout(this.timer);
    this.wake?.();
    this.handlers.onStatus({ kind: 'stopped' });
  }

  /** Skips the current backoff wait (a "Try again now" button, or the browser coming back online). */
  retryNow(): void {
    this.wake?.();
  }

  private async run(generation: number): Promise<void> {
    const live = () => this.running && generation === this.generation;
    this.handlers.onStatus({ kind: 'connecting' });
    while (live()) {
      try {
        if (this.queueId === undefined) {
          const registration = await this.transport.register();
          if (!live()) return;
          this.queueId = registration.queue_id;
          this.lastEventId = registration.last_event_id;
          this.stallMs = registration.event_queue_longpoll_timeout_seconds * 1000 + STALL_MARGIN_MS;
          this.handlers.onRegistered(registration, this.registered);
          this.registered = true;
          this.succeeded();
          continue;
        }
        const events = await this.poll(this.queueId, this.lastEventId);
        if (!live()) return;
        this.succeeded();
        if (events.length > 0) {
          this.lastEventId = Math.max(this.lastEventId, ...events.map((e) => e.id));
          this.handlers.onEvents(events);
        }
      } catch (e) {
        if (!live()) return;
        const error = e instanceof ApiError ? e : new ApiError(e instanceof Error ? e.message : String(e), 'NETWORK', 0);
        if (error.code === 'BAD_EVENT_QUEUE_ID') {
          // The queue is gone and with it the events since: start over from a new registration.
          this.queueId = undefined;
          continue;
        }
        if (error.status === 401) {
          this.running = false;
          this.handlers.onStatus({ kind: 'unauthorized', error });
          return;
        }
        this.attempt++;
        const retryInMs = backoffMs(this.attempt, this.clock.random);
        this.handlers.onStatus({ kind: 'retrying', error, attempt: this.attempt, retryInMs });
        await this.sleep(retryInMs);
      }
    }
  }

  private succeeded(): void {
    if (this.attempt > 0 || !this.wasLive) this.handlers.onStatus({ kind: 'live' });
    this.wasLive = true;
    this.attempt = 0;
  }

  private wasLive = false;

  private poll(queueId: string, lastEventId: number): Promise<{ type: string; id: number }[]> {
    return new Promise((resolve, reject) => {
      let aborted = false;
      const abortHooks: (() => void)[] = [];
      const token = {
        get aborted() {
          return aborted;
        },
      };
      const abort = () => {
        if (aborted) return;
        aborted = true;
        for (const hook of abortHooks) hook();
      };
      this.abortCurrent = abort;
      const stall = this.clock.setTimeout(() => {
        abort();
        reject(new ApiError('The server stopped answering (no heartbeat in time).', 'STALLED', 0));
      }, this.stallMs);
      this.transport.getEvents(queueId, lastEventId, { token, onAbort: (f) => abortHooks.push(f) }).then(
        (events) => {
          this.clock.clearTimeout(stall);
          if (!aborted) resolve(events);
        },
        (error) => {
          this.clock.clearTimeout(stall);
          if (!aborted) reject(error);
        },
      );
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.clock.clearTimeout(this.timer);
        this.wake = undefined;
        resolve();
      };
      this.wake = done;
      this.timer = this.clock.setTimeout(done, ms);
    });
  }
}
