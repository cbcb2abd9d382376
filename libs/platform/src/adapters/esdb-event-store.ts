import { v5 } from 'uuid';
import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type FactHandler,
  type NewFact,
  type StoredFact,
  type SubscribeOptions,
  type Subscription,
} from '../ports/event-store';
import {
  DEFAULT_MAX_APPEND_BYTES,
  fromCurrentRevision,
  isAfter,
  isUuid,
  reconnectDelayMs,
  resumePoint,
  toExpectedRevision,
  toProjectPosition,
  type EsdbPosition,
} from './esdb-positions';

/** An event as EventStoreDB returns it (the client's RecordedEvent, JSON events only). */
export interface EsdbRecordedEvent {
  streamId: string;
  id: string;
  revision: bigint;
  type: string;
  data: unknown;
  metadata: unknown;
  created: Date | number;
  position?: EsdbPosition;
}

export interface EsdbEventData {
  id: string;
  type: string;
  data: unknown;
  metadata: unknown;
}

/** A live subscription: events in $all order until the connection drops (the iterator throws) or it is closed. */
export interface EsdbLiveSubscription extends AsyncIterable<EsdbRecordedEvent> {
  unsubscribe(): Promise<void>;
}

/**
 * What the adapter needs of @eventstore/db-client, narrowed so that the adapter's own logic
 * (idempotence, positions, resuming) runs in unit tests against an in-memory double.
 * `esdb-client.ts` implements it over the real client.
 */
export interface EsdbClient {
  /** Throws EsdbWrongExpectedVersion when the expectation does not hold. */
  append(stream: string, events: EsdbEventData[], expected: 'no_stream' | 'any' | bigint): Promise<{ nextExpectedRevision: bigint }>;
  /** Empty when the stream does not exist. */
  readStream(stream: string, options: { fromRevision: bigint | 'start' | 'end'; direction: 'forwards' | 'backwards'; maxCount: number }): AsyncIterable<EsdbRecordedEvent>;
  /** The newest events of the project's types, newest first. */
  readAllBackwards(maxCount: number): AsyncIterable<EsdbRecordedEvent>;
  /** Catch-up then live, the project's event types only, strictly after `from`. */
  subscribeToAll(from: 'start' | EsdbPosition): EsdbLiveSubscription;
  dispose(): Promise<void>;
}

export class EsdbWrongExpectedVersion extends Error {
  constructor(readonly current: bigint | 'no_stream' | undefined) {
    super('wrong expected version');
  }
}

/** How far back from a stream's end a retried 'any' append is looked for. */
const RECENT_EVENTS = 1000;

/** Event ids the project derives from fact ids that are not UUIDs (EventStoreDB requires UUIDs). */
const FACT_ID_NAMESPACE = '4d2f1c8e-5b7a-4e3d-9f60-1a2b3c4d5e6f';

interface StoredMetadata {
  /** The fact's own id: its UUID is the event id, or the event id was derived from it. */
  factId: string;
  metadata: Record<string, unknown>;
}

export function toEventData(fact: NewFact): EsdbEventData {
  const metadata: StoredMetadata = { factId: fact.id, metadata: fact.metadata ?? {} };
  return { id: eventIdOf(fact.id), type: fact.type, data: fact.data ?? null, metadata };
}

export function eventIdOf(factId: string): string {
  return isUuid(factId) ? factId.toLowerCase() : v5(factId, FACT_ID_NAMESPACE);
}

export function toStoredFact(event: EsdbRecordedEvent): StoredFact {
  const stored = (event.metadata ?? {}) as Partial<StoredMetadata>;
  return {
    id: typeof stored.factId === 'string' ? stored.factId : event.id,
    stream: event.streamId,
    revision: Number(event.revision),
    position: toProjectPosition(event.position),
    type: event.type,
    data: event.data,
    metadata: stored.metadata ?? {},
    // Not instanceof: a Date from another realm (a worker, a test sandbox) is a Date too.
    created: typeof event.created === 'number' ? event.created : new Date(event.created).getTime(),
  };
}

export interface EsdbEventStoreOptions {
  /** The server's MaxAppendSize, if raised above EventStoreDB's default (see esdb-positions). */
  maxAppendBytes?: number;
  /** Called when a subscription loses its connection and tries again (for logs). */
  onReconnect?: (err: unknown, attempt: number) => void;
}

/**
 * The event store on EventStoreDB. One project stream is one EventStoreDB stream; facts are
 * JSON events whose id is the fact's id (so EventStoreDB's own idempotence applies), and
 * the fact's id and metadata travel in the event's metadata. See esdb-positions for
 * positions.
 */
export class EsdbEventStore implements EventStore {
  private readonly subscriptions = new Set<EsdbSubscription>();
  private closed = false;

  constructor(
    private readonly client: EsdbClient,
    private readonly options: EsdbEventStoreOptions = {},
  ) {}

  async append(stream: string, facts: NewFact[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) throw new Error('event store is closed');
    const events = facts.map(toEventData);
    let appended: { nextExpectedRevision: bigint };
    try {
      appended = await this.client.append(stream, events, toExpectedRevision(expected));
    } catch (err) {
      if (!(err instanceof EsdbWrongExpectedVersion)) throw err;
      // A retry after a lost reply finds the stream moved past its expectation: if every
      // fact is already there, it is answered as the original append was.
      const replayed = facts.length > 0 ? await this.findStored(stream, facts, expected) : undefined;
      if (replayed) return replayed;
      throw new WrongExpectedRevisionError(stream, expected, fromCurrentRevision(err.current));
    }
    if (facts.length === 0) return { nextRevision: Number(appended.nextExpectedRevision), positions: [] };
    // The reply names the last revision but not each event's position: read them back.
    // EventStoreDB's idempotence may also have answered a retry with the stream's current
    // revision instead of the original one; the ids tell.
    const first = appended.nextExpectedRevision - BigInt(facts.length - 1);
    if (first >= 0n) {
      const read = await collect(this.client.readStream(stream, { fromRevision: first, direction: 'forwards', maxCount: facts.length }));
      if (read.length === facts.length && read.every((event, i) => event.id === events[i]!.id)) {
        return { nextRevision: Number(read.at(-1)!.revision), positions: read.map((event) => toProjectPosition(event.position)) };
      }
    }
    const found = await this.findStored(stream, facts, expected);
    if (!found) throw new Error(`stream ${stream}: the appended facts are not where EventStoreDB said it put them`);
    return found;
  }

  /**
   * Where the facts already are in `stream`: all of them, or undefined when none is; some
   * but not all is an error. A retried append's facts sit right after the revision it
   * expected (EventStoreDB's own idempotence looks there too); after 'any', among the
   * stream's newest events.
   */
  private async findStored(stream: string, facts: NewFact[], expected: ExpectedRevision): Promise<AppendResult | undefined> {
    const wanted = new Set(facts.map((fact) => eventIdOf(fact.id)));
    const read =
      expected === 'any'
        ? this.client.readStream(stream, { fromRevision: 'end', direction: 'backwards', maxCount: RECENT_EVENTS })
        : this.client.readStream(stream, {
            fromRevision: expected === 'no_stream' ? 0n : BigInt(expected + 1),
            direction: 'forwards',
            maxCount: facts.length,
          });
    const found = new Map<string, EsdbRecordedEvent>();
    for await (const event of read) {
      if (wanted.has(event.id)) found.set(event.id, event);
      if (found.size === wanted.size) break;
    }
    if (found.size === 0) return undefined;
    if (found.size < wanted.size) {
      throw new Error(`stream ${stream}: some fact ids are already stored and others are not`);
    }
    const events = facts.map((fact) => found.get(eventIdOf(fact.id))!);
    return {
      nextRevision: Math.max(...events.map((event) => Number(event.revision))),
      positions: events.map((event) => toProjectPosition(event.position)),
    };
  }

  async readStream(stream: string, fromRevision = 0): Promise<StoredFact[]> {
    const events = await collect(
      this.client.readStream(stream, { fromRevision: BigInt(fromRevision), direction: 'forwards', maxCount: Number.MAX_SAFE_INTEGER }),
    );
    return events.map(toStoredFact);
  }

  subscribeToAll(handler: FactHandler, options: SubscribeOptions = {}): Subscription {
    if (this.closed) throw new Error('event store is closed');
    const subscription = new EsdbSubscription(this.client, handler, options, this.options, () => this.subscriptions.delete(subscription));
    this.subscriptions.add(subscription);
    subscription.start();
    return subscription;
  }

  async headPosition(): Promise<number> {
    for await (const event of this.client.readAllBackwards(1)) return toProjectPosition(event.position);
    return 0;
  }

  /** Subscriptions are pushed by the engine: a notice from another process adds nothing. */
  wake(): void {}

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    await this.client.dispose();
  }
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of iterable) items.push(item);
  return items;
}

/**
 * A catch-up subscription that outlives connections: when the engine's stream fails, it
 * subscribes again from the last fact its handler finished (after a growing pause) and
 * drops what it had already delivered, so the handler sees every fact once, in order.
 */
export class EsdbSubscription implements Subscription {
  private stopped = false;
  private live: EsdbLiveSubscription | undefined;
  private loop: Promise<void> = Promise.resolve();
  private position: number;
  private wakeSleep: (() => void) | undefined;

  constructor(
    private readonly client: EsdbClient,
    private readonly handler: FactHandler,
    private readonly options: SubscribeOptions,
    private readonly storeOptions: EsdbEventStoreOptions,
    private readonly onEnd: () => void,
  ) {
    this.position = options.after ?? 0;
  }

  start(): void {
    this.loop = Promise.resolve()
      .then(() => this.run())
      .finally(this.onEnd);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wakeSleep?.();
    await this.live?.unsubscribe().catch(() => undefined);
    await this.loop;
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopped) {
      try {
        this.live = this.client.subscribeToAll(resumePoint(this.position, this.storeOptions.maxAppendBytes ?? DEFAULT_MAX_APPEND_BYTES));
        for await (const event of this.live) {
          if (this.stopped) return;
          const fact = toStoredFact(event);
          if (!isAfter(fact.position, this.position)) continue;
          failures = 0;
          try {
            await this.handler(fact);
          } catch (err) {
            this.stopped = true;
            this.report(err);
            return;
          }
          this.position = fact.position;
        }
        // The engine ended the stream (it is shutting down): subscribe again.
      } catch (err) {
        if (this.stopped) return;
        failures += 1;
        this.storeOptions.onReconnect?.(err, failures);
      }
      if (this.stopped) return;
      await this.pause(reconnectDelayMs(failures));
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeSleep = done;
    });
  }

  private report(err: unknown): void {
    try {
      if (this.options.onError) this.options.onError(err);
      else process.stderr.write(`event store subscription stopped: ${err instanceof Error ? err.stack : String(err)}\n`);
    } catch {
      // Stopped already; a failing error callback has nowhere to go.
    }
  }
}
