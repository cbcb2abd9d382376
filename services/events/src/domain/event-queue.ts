import type { QueueNarrow } from './queue-narrow';

/**
 * One client's event queue: events get increasing ids, a client acknowledges by asking
 * for events after an id (which drops the older ones), and a blocked long-poll is woken
 * by the next event.
 *
 * Event ids are derived from the event store, not counted, so that a queue rebuilt after
 * a restart (by replaying the store from its descriptor's position through the same
 * fan-out) gives every event the id it had before:
 *
 *   id = position × IDS_PER_POSITION + k
 *
 * where `position` is the stored fact's place in the store and `k` counts the events this
 * queue took from that fact (0, 1, …; a fact yields at most a few per queue). Replaying a
 * fact yields the same events in the same order, so the same ids. Heartbeats are not
 * facts: a heartbeat takes the next free id after both the last id handed out and the
 * client's `last_event_id`, inside the current position's range, so it stays below every
 * id a later fact can get and above everything the client acknowledged — before or after
 * a restart. Ids are increasing but not consecutive, as the spec allows.
 */
export const IDS_PER_POSITION = 1000;

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
  /** Client capability `include_deactivated_groups`: a deactivated group is updated, not removed. */
  include_deactivated_groups?: boolean;
  /**
   * Client capability `archived_channels`: an archived channel stays and is updated; a
   * client without it sees the channel deleted when archived and created when unarchived.
   */
  archived_channels?: boolean;
  /** Client capability `individual_emoji_changes`: realm_emoji add/update_one instead of the whole set. */
  individual_emoji_changes?: boolean;
  /** Client capability `bulk_message_deletion`: one delete_message with message_ids, else one per message. */
  bulk_message_deletion?: boolean;
  /** Client capability `linkifier_url_template`: realm_linkifiers events (none without it). */
  linkifier_url_template?: boolean;
}

/** Where a queue starts: a new one at the store's head, a rebuilt one from its descriptor. */
export interface QueueStart {
  /** The store position the queue was registered at: it takes facts after it. */
  after: number;
  /** The highest id the client acknowledged (-1: none). */
  acked: number;
  lastAccess: number;
  /** At most this many unacknowledged events; one more overflows the queue. */
  maxEvents: number;
}

/** What a queue holds: it reads only an event's type, and gives each its id. */
export interface QueueableEvent {
  type: string;
  [field: string]: unknown;
}

export type Queued<E extends QueueableEvent> = E & { id: number };

/** The greatest id any event of facts up to `position` (or a heartbeat while there) can have. */
export const lastIdAt = (position: number) => (position + 1) * IDS_PER_POSITION - 1;

/** The position a queue must replay after so that every event above `acked` comes again. */
export const replayAfter = (start: { after: number; acked: number }) =>
  Math.max(start.after, Math.floor(start.acked / IDS_PER_POSITION) - 1);

/**
 * Each event's JSON without its id, made once however many queues hold it: a fan-out hands
 * the same event object to every queue that sees it alike (see fan-out.ts), and with a
 * thousand clients long-polling, serializing it for each would be most of a delivery's
 * cost. Keys are held weakly: the text goes when the last queue lets the event go.
 */
const serializedEvents = new WeakMap<object, string>();

function eventJson(event: QueueableEvent, id: number): string {
  let json = serializedEvents.get(event);
  if (json === undefined) {
    json = JSON.stringify(event);
    serializedEvents.set(event, json);
  }
  // `{"type":…}` becomes `{"id":N,"type":…}`: an event always has a type, so the object is
  // never empty.
  return `{"id":${id},${json.slice(1)}`;
}

export class EventQueue<E extends QueueableEvent = QueueableEvent> {
  /**
   * The queued events as they came (shared with every other queue that took the same
   * event) and, alongside, the id each has here: a delivery to a thousand queues copies
   * no event, and each one's JSON is made once (eventJson).
   */
  private sources: E[] = [];
  private ids: number[] = [];
  private waiters = new Set<() => void>();
  /** The greatest id handed out (events and heartbeats), -1 before any. */
  private lastId = -1;
  /** The fact being taken and how many events this queue took from it. */
  private factPosition = -1;
  private taken = 0;
  readonly startAfter: number;
  /** Events up to this id are gone for good. */
  acked: number;
  lastAccess: number;
  /** Set once more than `maxEvents` waited: the queue is then dead. */
  overflowed = false;
  private readonly maxEvents: number;

  constructor(
    readonly id: string,
    readonly options: QueueOptions,
    start: QueueStart = { after: 0, acked: -1, lastAccess: Date.now(), maxEvents: Number.POSITIVE_INFINITY },
  ) {
    this.startAfter = start.after;
    this.acked = start.acked;
    this.lastAccess = start.lastAccess;
    this.maxEvents = start.maxEvents;
  }

  wants(type: string): boolean {
    return type === 'heartbeat' || this.options.event_types === null || this.options.event_types.has(type);
  }

  /** Whether the fact at `position` can give this queue an event it does not have. */
  takes(position: number): boolean {
    return position > this.startAfter && lastIdAt(position) > this.acked;
  }

  /**
   * Adds the next event of the fact at `position` (facts come in store order). Returns
   * false when the queue overflowed: it is then emptied and must be dropped.
   */
  push(event: E, position: number): boolean {
    if (this.overflowed) return false;
    if (!this.takes(position) || !this.wants(event.type)) return true;
    if (position !== this.factPosition) {
      this.factPosition = position;
      this.taken = 0;
    }
    const id = position * IDS_PER_POSITION + this.taken++;
    // A replayed event the client had acknowledged before the restart.
    if (id <= this.acked) return true;
    return this.append(event, id);
  }

  /**
   * Adds an event of no stored fact (typing, presence): like a heartbeat, it takes the next
   * free id inside the range of the store's `head`, below every id a later fact can get.
   * Such events are never replayed, so the ids of fact events stay the same after a
   * restart. When the range is used up (about a thousand ephemeral events with no fact
   * stored in between) the event is left out: it is only ever a hint. Returns false when
   * the queue overflowed, as `push` does.
   */
  pushLive(event: E, head: number): boolean {
    if (this.overflowed) return false;
    if (!this.wants(event.type)) return true;
    const id = Math.max(this.lastId, head * IDS_PER_POSITION - 1) + 1;
    if (id > lastIdAt(head)) return true;
    return this.append(event, id);
  }

  /** Queues the event under its id; past the event limit the queue empties and overflows. */
  private append(event: E, id: number): boolean {
    this.lastId = Math.max(this.lastId, id);
    this.sources.push(event);
    this.ids.push(id);
    if (this.sources.length > this.maxEvents) {
      this.overflowed = true;
      this.sources = [];
      this.ids = [];
    }
    this.wake();
    return !this.overflowed;
  }

  /**
   * A heartbeat above both what was handed out and `lastEventId`, while the store is at
   * `head`; null when the position's ids are used up (about a thousand heartbeats with no
   * fact stored in between), and the poll then answers with no event.
   */
  heartbeat(lastEventId: number, head: number): Queued<E> | null {
    const id = Math.max(this.lastId, lastEventId, head * IDS_PER_POSITION - 1) + 1;
    if (id > lastIdAt(head)) return null;
    this.lastId = id;
    this.sources.push({ type: 'heartbeat' } as E);
    this.ids.push(id);
    return { type: 'heartbeat', id } as Queued<E>;
  }

  /**
   * Drops what the client acknowledged (events up to `lastEventId`) and returns how many
   * are left: a poll needs no copy of them to know whether to wait.
   */
  acknowledge(lastEventId: number): number {
    this.lastAccess = Date.now();
    if (lastEventId > this.acked) {
      this.acked = lastEventId;
      // Usually a prefix (ids grow along the queue), but not always: an event held for its
      // queue's initial state (StateCutoffs) may come after a heartbeat with a higher id.
      const ids: number[] = [];
      const sources: E[] = [];
      for (let i = 0; i < this.ids.length; i++) {
        if (this.ids[i]! <= lastEventId) continue;
        ids.push(this.ids[i]!);
        sources.push(this.sources[i]!);
      }
      this.ids = ids;
      this.sources = sources;
    }
    return this.ids.length;
  }

  /** Drops what the client acknowledged and returns the rest, each event with its id. */
  after(lastEventId: number): Queued<E>[] {
    this.acknowledge(lastEventId);
    return this.sources.map((event, i) => ({ ...event, id: this.ids[i]! }));
  }

  /** The events left after the last acknowledgement, as a JSON array. */
  toJson(): string {
    let json = '[';
    for (let i = 0; i < this.ids.length; i++) json += (i ? ',' : '') + eventJson(this.sources[i]!, this.ids[i]!);
    return `${json}]`;
  }

  get size(): number {
    return this.ids.length;
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
    this.wake();
  }

  private wake(): void {
    for (const wake of this.waiters) wake();
    this.waiters.clear();
  }
}
