/**
 * The EsdbClient port over @eventstore/db-client: the only file that knows the client's
 * types. Connection strings are EventStoreDB's (`esdb://host:2113?tls=false`).
 */
import type { AllStreamResolvedEvent, AppendExpectedRevision, EventStoreDBClient, ResolvedEvent } from '@eventstore/db-client';
import { PROJECT_EVENT_TYPES, type EsdbPosition } from './esdb-positions';
import {
  EsdbWrongExpectedVersion,
  type EsdbClient,
  type EsdbEventData,
  type EsdbLiveSubscription,
  type EsdbRecordedEvent,
} from './esdb-event-store';
import { esdbDriver } from './lazy-driver';

export function connectEsdb(connectionString: string): EsdbClient {
  return new RealEsdbClient(esdbDriver().EventStoreDBClient.connectionString(connectionString));
}

function commandErrorType(err: unknown): string | undefined {
  const type = (err as { type?: unknown } | null)?.type;
  return typeof type === 'string' ? type : undefined;
}

function recorded(resolved: ResolvedEvent | AllStreamResolvedEvent): EsdbRecordedEvent | undefined {
  const event = resolved.event;
  if (!event || !event.isJson) return undefined;
  return {
    streamId: event.streamId,
    id: event.id,
    revision: event.revision,
    type: event.type,
    data: event.data,
    metadata: event.metadata,
    created: event.created,
    position: event.position as EsdbPosition | undefined,
  };
}

class RealEsdbClient implements EsdbClient {
  private readonly driver = esdbDriver();

  constructor(private readonly client: EventStoreDBClient) {}

  async append(stream: string, events: EsdbEventData[], expected: 'no_stream' | 'any' | bigint): Promise<{ nextExpectedRevision: bigint }> {
    const expectedRevision: AppendExpectedRevision = expected;
    try {
      const result = await this.client.appendToStream(
        stream,
        events.map((event) => this.driver.jsonEvent({ id: event.id, type: event.type, data: event.data as never, metadata: event.metadata as never })),
        { expectedRevision },
      );
      return { nextExpectedRevision: result.nextExpectedRevision };
    } catch (err) {
      if (commandErrorType(err) === this.driver.ErrorType.WRONG_EXPECTED_VERSION) {
        const actual = (err as { actualVersion?: bigint | 'no_stream' }).actualVersion;
        throw new EsdbWrongExpectedVersion(actual);
      }
      throw err;
    }
  }

  async *readStream(
    stream: string,
    options: { fromRevision: bigint | 'start' | 'end'; direction: 'forwards' | 'backwards'; maxCount: number },
  ): AsyncIterable<EsdbRecordedEvent> {
    const fromRevision = options.fromRevision === 'start' ? this.driver.START : options.fromRevision === 'end' ? this.driver.END : options.fromRevision;
    try {
      for await (const resolved of this.client.readStream(stream, {
        fromRevision,
        direction: options.direction === 'forwards' ? this.driver.FORWARDS : this.driver.BACKWARDS,
        maxCount: options.maxCount,
      })) {
        const event = recorded(resolved);
        if (event) yield event;
      }
    } catch (err) {
      if (commandErrorType(err) === this.driver.ErrorType.STREAM_NOT_FOUND) return;
      throw err;
    }
  }

  async *readAllBackwards(maxCount: number): AsyncIterable<EsdbRecordedEvent> {
    let yielded = 0;
    // readAll takes no server-side filter: system events are skipped here.
    for await (const resolved of this.client.readAll({ fromPosition: this.driver.END, direction: this.driver.BACKWARDS, maxCount: 4096 })) {
      const event = recorded(resolved);
      if (!event || !PROJECT_EVENT_TYPES.test(event.type)) continue;
      yield event;
      if (++yielded >= maxCount) return;
    }
  }

  subscribeToAll(from: 'start' | EsdbPosition): EsdbLiveSubscription {
    const subscription = this.client.subscribeToAll({
      fromPosition: from === 'start' ? this.driver.START : from,
      filter: this.driver.eventTypeFilter({ regex: PROJECT_EVENT_TYPES.source }),
    });
    return {
      async *[Symbol.asyncIterator]() {
        for await (const resolved of subscription) {
          const event = recorded(resolved);
          if (event) yield event;
        }
      },
      unsubscribe: () => subscription.unsubscribe(),
    };
  }

  dispose(): Promise<void> {
    return this.client.dispose();
  }
}
