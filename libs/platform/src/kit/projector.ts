/**
 * Runs one projection over the event store: catch-up from the projector's checkpoint,
 * then live. Each fact is applied and the checkpoint moved in one read-model batch, so
 * after a crash the projector resumes where its data ends; projections are idempotent
 * for the engines where the batch is not atomic.
 *
 * `waitFor(position)` is how read-your-writes is kept: a handler that just appended (or a
 * request carrying the caller's last write position) waits until this projector has
 * applied that position before reading.
 */
import { ApiError } from '@teamchat/contracts';
import type { Logger } from 'pino';
import type { EventStore, StoredFact, Subscription } from '../ports/event-store';
import type { ReadModelStore } from '../ports/read-models';

export type Projection = (fact: StoredFact) => Promise<void>;

export interface ProjectorOptions {
  name: string;
  store: EventStore;
  /** Where the checkpoint is kept; absent for projectors that live in memory only. */
  readModels?: ReadModelStore;
  projection: Projection;
  log: Logger;
  /** For in-memory projectors: start at the store's head instead of replaying. */
  startAtHead?: boolean;
  /**
   * The fact types the projection reads. Others only move the in-memory position, with
   * no read-model write: most facts are messages, which most projectors ignore.
   */
  types?: ReadonlySet<string>;
}

interface Waiter {
  position: number;
  resolve: () => void;
}

export class Projector {
  private position = 0;
  private waiters: Waiter[] = [];
  private subscription: Subscription | undefined;
  private failure: unknown;

  constructor(private readonly options: ProjectorOptions) {}

  async start(): Promise<void> {
    const { store, readModels, name, projection, log } = this.options;
    this.position = readModels
      ? await readModels.getCheckpoint(name)
      : this.options.startAtHead
        ? await store.headPosition()
        : 0;
    this.subscription = store.subscribeToAll(
      async (fact) => {
        // A fact at or before the checkpoint was applied already (a re-delivery): skip it,
        // so that fan-out never hands a queue the same event twice.
        if (fact.position <= this.position) return;
        if (this.options.types && !this.options.types.has(fact.type)) {
          // The checkpoint on disk lags behind here; on restart these facts are skipped again.
          this.advance(fact.position);
          return;
        }
        if (readModels) {
          await readModels.batch(async () => {
            await projection(fact);
            await readModels.setCheckpoint(name, fact.position);
          });
        } else {
          await projection(fact);
        }
        this.advance(fact.position);
      },
      {
        after: this.position,
        onError: (err) => {
          // A projection that throws is a bug; stop here rather than skip a fact and
          // serve read models that silently miss it.
          this.failure = err;
          log.error({ err, projector: name }, 'projector stopped');
        },
      },
    );
  }

  get checkpoint(): number {
    return this.position;
  }

  /** Resolves once the projector has applied every fact up to `position`. */
  waitFor(position: number | undefined, timeoutMs = 10_000): Promise<void> {
    if (position === undefined || position <= this.position) return Promise.resolve();
    if (this.failure) return Promise.reject(new ApiError('INTERNAL_SERVER_ERROR', 'Read model is unavailable', 500));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new ApiError('GATEWAY_TIMEOUT', 'Read model did not catch up in time', 504));
      }, timeoutMs);
      timer.unref();
      const waiter: Waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.waiters.push(waiter);
    });
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
  }

  private advance(position: number): void {
    this.position = position;
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.position <= position);
    this.waiters = this.waiters.filter((w) => w.position > position);
    for (const w of ready) w.resolve();
  }
}
