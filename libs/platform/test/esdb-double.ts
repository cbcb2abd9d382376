/**
 * An in-memory stand-in for EventStoreDB behind the EsdbClient port, faithful where the
 * adapter's logic depends on it: a byte-offset log whose appends are one transaction
 * each (every event of an append carries the append's first offset as its commit
 * position and its own offset as prepare position), system events of its own in $all,
 * expected-revision checks with EventStoreDB's per-stream idempotence, $all ordered by
 * (commit, prepare) and resumed strictly after a pair, and connections that can be cut.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  EsdbWrongExpectedVersion,
  type EsdbClient,
  type EsdbEventData,
  type EsdbLiveSubscription,
  type EsdbRecordedEvent,
} from '../src/adapters/esdb-event-store';
import { PROJECT_EVENT_TYPES, type EsdbPosition } from '../src/adapters/esdb-positions';

const before = (a: EsdbPosition, b: EsdbPosition) => a.commit < b.commit || (a.commit === b.commit && a.prepare < b.prepare);

export class EsdbDouble implements EsdbClient {
  readonly log: EsdbRecordedEvent[] = [];
  private offset = 0n;
  private readonly waiters = new Set<() => void>();
  /** Bumped by `cutConnections`: live subscriptions of an older generation fail. */
  private generation = 0;
  /** While set, every call fails as an unreachable server would. */
  down = false;
  disposed = false;

  constructor() {
    this.write('$epoch-information', [{ id: crypto.randomUUID(), type: '$epoch-information', data: {}, metadata: {} }]);
  }

  /** A system event of EventStoreDB's own (statistics, metadata), which the adapter must skip. */
  systemEvent(): void {
    this.write('$stats-127.0.0.1:2113', [{ id: crypto.randomUUID(), type: '$statsCollected', data: { cpu: 1 }, metadata: {} }]);
  }

  cutConnections(): void {
    this.generation += 1;
    this.notify();
  }

  private check(): void {
    if (this.down || this.disposed) throw Object.assign(new Error('14 UNAVAILABLE: No connection established'), { type: 'unavailable' });
  }

  private write(stream: string, events: EsdbEventData[]): bigint {
    const commit = this.offset;
    let revision = this.revisionOf(stream);
    for (const event of events) {
      revision += 1n;
      const size = BigInt(JSON.stringify(event).length + 120);
      this.log.push({
        streamId: stream,
        id: event.id,
        revision,
        type: event.type,
        data: structuredClone(event.data),
        metadata: structuredClone(event.metadata),
        created: new Date(),
        position: { commit, prepare: this.offset },
      });
      this.offset += size;
    }
    this.notify();
    return revision;
  }

  private notify(): void {
    for (const wake of [...this.waiters]) wake();
  }

  private streamEvents(stream: string): EsdbRecordedEvent[] {
    return this.log.filter((event) => event.streamId === stream);
  }

  private revisionOf(stream: string): bigint {
    const events = this.streamEvents(stream);
    return events.length === 0 ? -1n : events.at(-1)!.revision;
  }

  async append(stream: string, events: EsdbEventData[], expected: 'no_stream' | 'any' | bigint): Promise<{ nextExpectedRevision: bigint }> {
    this.check();
    const existing = this.streamEvents(stream);
    const current = this.revisionOf(stream);
    const expectedNumber = expected === 'no_stream' ? -1n : expected === 'any' ? undefined : expected;
    // EventStoreDB's idempotence: the same ids right after the expected revision (or, for
    // 'any', anywhere in the stream's recent events) make the write a success that stores nothing.
    if (events.length > 0) {
      const start = expectedNumber === undefined ? existing.findIndex((e) => e.id === events[0]!.id) : Number(expectedNumber) + 1;
      if (start >= 0 && start < existing.length) {
        const slice = existing.slice(start, start + events.length);
        if (slice.length === events.length && slice.every((e, i) => e.id === events[i]!.id)) return { nextExpectedRevision: current };
        if (slice.some((e, i) => e.id === events[i]?.id)) throw new EsdbWrongExpectedVersion(current < 0n ? 'no_stream' : current);
      }
    }
    if (expectedNumber !== undefined && expectedNumber !== current) {
      throw new EsdbWrongExpectedVersion(current < 0n ? 'no_stream' : current);
    }
    if (events.length === 0) return { nextExpectedRevision: current };
    return { nextExpectedRevision: this.write(stream, events) };
  }

  async *readStream(
    stream: string,
    options: { fromRevision: bigint | 'start' | 'end'; direction: 'forwards' | 'backwards'; maxCount: number },
  ): AsyncIterable<EsdbRecordedEvent> {
    this.check();
    let events = this.streamEvents(stream);
    if (options.direction === 'forwards') {
      const from = options.fromRevision === 'start' ? 0n : options.fromRevision === 'end' ? current(events) + 1n : options.fromRevision;
      events = events.filter((e) => e.revision >= from);
    } else {
      const from = options.fromRevision === 'end' || options.fromRevision === 'start' ? current(events) : options.fromRevision;
      events = events.filter((e) => e.revision <= from).reverse();
    }
    for (const event of events.slice(0, options.maxCount)) yield structuredClone(event);
  }

  async *readAllBackwards(maxCount: number): AsyncIterable<EsdbRecordedEvent> {
    this.check();
    const events = this.log.filter((e) => PROJECT_EVENT_TYPES.test(e.type)).reverse();
    for (const event of events.slice(0, maxCount)) yield structuredClone(event);
  }

  subscribeToAll(from: 'start' | EsdbPosition): EsdbLiveSubscription {
    const generation = this.generation;
    let closed = false;
    let wake: (() => void) | undefined;
    const double = this;
    return {
      async *[Symbol.asyncIterator]() {
        double.check();
        let index = from === 'start' ? 0 : double.log.findIndex((e) => before(from, e.position!));
        if (index < 0) index = double.log.length;
        while (!closed && !double.disposed) {
          if (double.generation !== generation) throw Object.assign(new Error('14 UNAVAILABLE: connection reset'), { type: 'unavailable' });
          if (index < double.log.length) {
            const event = double.log[index++]!;
            if (PROJECT_EVENT_TYPES.test(event.type)) yield structuredClone(event);
            continue;
          }
          await new Promise<void>((resolve) => {
            wake = resolve;
            double.waiters.add(resolve);
          });
          double.waiters.delete(wake!);
        }
      },
      unsubscribe: async () => {
        closed = true;
        wake?.();
        await sleep(0);
      },
    };
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    this.notify();
  }
}

function current(events: EsdbRecordedEvent[]): bigint {
  return events.length === 0 ? -1n : events.at(-1)!.revision;
}
