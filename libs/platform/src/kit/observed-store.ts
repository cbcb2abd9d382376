/**
 * An event store that tells its owner of each successful append, in the same turn the
 * append resolves and before the appender goes on. A service uses it for what must be
 * known elsewhere before the command's reply leaves (accounts: a revoked credential),
 * which a projector, running after the reply in the embedded mode, would tell too late.
 */
import type { AppendResult, EventStore, ExpectedRevision, FactHandler, NewFact, StoredFact, SubscribeOptions, Subscription } from '../ports/event-store';

export type AppendObserver = (stream: string, facts: readonly NewFact[], result: AppendResult) => void;

export class ObservedEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly observe: AppendObserver,
  ) {}

  async append(stream: string, facts: NewFact[], expected: ExpectedRevision): Promise<AppendResult> {
    const result = await this.inner.append(stream, facts, expected);
    this.observe(stream, facts, result);
    return result;
  }

  readStream(stream: string, fromRevision?: number): Promise<StoredFact[]> {
    return this.inner.readStream(stream, fromRevision);
  }

  subscribeToAll(handler: FactHandler, options?: SubscribeOptions): Subscription {
    return this.inner.subscribeToAll(handler, options);
  }

  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
