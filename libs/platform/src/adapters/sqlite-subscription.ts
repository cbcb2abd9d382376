import type { FactHandler, StoredFact, SubscribeOptions, Subscription } from '../ports/event-store';

/**
 * One subscription to a SqliteEventStore: a loop that hands each fact after its position
 * to the handler, in order, and waits for the store to announce more once caught up.
 */
export class SqliteSubscription implements Subscription {
  private stopped = false;
  /** Set while the loop waits for new facts; settled by a head move or by stop(). */
  private idle: { promise: Promise<void>; resolve: () => void } | undefined;
  private loop: Promise<void> = Promise.resolve();
  private position: number;

  constructor(
    private readonly read: (after: number) => StoredFact[],
    private readonly handler: FactHandler,
    private readonly options: SubscribeOptions,
    private readonly onEnd: () => void,
  ) {
    this.position = options.after ?? 0;
  }

  start(): void {
    // Deferred so that no handler runs before subscribeToAll has returned.
    this.loop = Promise.resolve()
      .then(() => this.run())
      .finally(this.onEnd);
  }

  notify(): void {
    this.idle?.resolve();
  }

  /** Awaiting this from inside the subscription's own handler would wait for itself. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.idle?.resolve();
    await this.loop;
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped) {
        const facts = this.read(this.position);
        if (facts.length === 0) {
          // No await between the empty read and arming `idle`: a local append notifies
          // after it, and a foreign append moves the head past what the read saw, so the
          // next poll notifies. Facts committed while a handler runs are found by the
          // re-read that follows every batch.
          this.idle = deferred();
          await this.idle.promise;
          this.idle = undefined;
          continue;
        }
        for (const fact of facts) {
          if (this.stopped) return;
          await this.handler(fact);
          this.position = fact.position;
        }
      }
    } catch (err) {
      this.stopped = true;
      this.report(err);
    }
  }

  private report(err: unknown): void {
    try {
      if (this.options.onError) this.options.onError(err);
      else process.stderr.write(`event store subscription stopped: ${err instanceof Error ? err.stack : String(err)}\n`);
    } catch {
      // The subscription is already stopped; a failing error callback has nowhere to go.
    }
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
