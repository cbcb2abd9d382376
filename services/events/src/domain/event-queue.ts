import type { QueueNarrow } from './queue-narrow';

/**
 * One client's event queue: events get increasing ids, a client acknowledges by asking
 * for events after an id (which drops the older ones), and a blocked long-poll is woken
 * by the next event. Queues live in memory: a client whose queue is gone (restart,
 * expiry) registers again, as Zulip clients do on BAD_EVENT_QUEUE_ID.
 */

export interface QueueOptions {
  user_id: number;
  /** Null means every event type. */
  event_types: Set<string> | null;
  apply_markdown: boolean;
  client_gravatar: boolean;
  /** The client handles the empty topic itself (client capability `empty_topic_name`). */
  empty_topic_name: boolean;
  /** Only message events matching this narrow are queued (empty: all). */
  narrow: QueueNarrow;
  /** Client capabilities of the ephemeral events (domain/ephemeral-routing.ts). */
  stream_typing_notifications?: boolean;
  simplified_presence_events?: boolean;
}

/** What a queue holds: it reads only an event's type, and gives each its id. */
export interface QueueableEvent {
  type: string;
  [field: string]: unknown;
}

export type Queued<E extends QueueableEvent> = E & { id: number };

export class EventQueue<E extends QueueableEvent = QueueableEvent> {
  private events: Queued<E>[] = [];
  private nextId = 0;
  private waiters = new Set<() => void>();
  lastAccess = Date.now();

  constructor(
    readonly id: string,
    readonly options: QueueOptions,
  ) {}

  wants(type: string): boolean {
    return type === 'heartbeat' || this.options.event_types === null || this.options.event_types.has(type);
  }

  push(event: E): void {
    if (!this.wants(event.type)) return;
    this.events.push({ ...event, id: this.nextId++ });
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }

  /** Drops what the client acknowledged and returns the rest. */
  after(lastEventId: number): Queued<E>[] {
    this.lastAccess = Date.now();
    this.events = this.events.filter((e) => e.id > lastEventId);
    return this.events;
  }

  /** Resolves at the next push, after `ms`, or when the queue is released. */
  waitForEvent(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      timer.unref();
      const self = this;
      function done() {
        clearTimeout(timer);
        self.waiters.delete(done);
        resolve();
      }
      this.waiters.add(done);
    });
  }

  get hasWaiters(): boolean {
    return this.waiters.size > 0;
  }

  /** Ends every blocked long-poll (queue deleted or service stopping). */
  release(): void {
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }
}
