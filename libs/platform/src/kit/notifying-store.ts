/**
 * In the distributed mode several processes share one SQLite event store file; each
 * learns of the others' appends by polling. This decorator shortens that wait: after each
 * append (once it is durable) it publishes the new head on the bus, and a notification
 * from any process wakes this process's subscriptions at once, without an fsync of
 * their own for what the notifier already synced. Polling stays as the fallback, so a
 * lost notification only costs latency.
 *
 * The appends one fsync made durable finish together; they are announced together, once,
 * with the newest position. One notification per append would wake every subscriber in
 * every other process once per fact, each wake a read of the store.
 *
 * The notice leaves when the store says its appends are durable (onDurable): after the
 * appenders have their answers, before the store's own subscriptions hear of them. A
 * message's sender gets its reply first; the other threads' fan-out does not wait for
 * this thread's projectors.
 *
 * Between the threads of one process (`sharesRows`), the notice carries the rows those
 * appends stored, when they are small: the others add them to what they read from memory
 * (RecentFacts) instead of each querying the file for them, which on a connection that
 * did not write them reads the pages afresh. Between processes a notice is only a hint to
 * read the store: what projectors apply then comes from the file, whoever can publish on
 * the bus.
 */
import { storeAppended, type StoreAppended } from '@teamchat/contracts';
import type { Bus, BusSubscription } from '../ports/bus';
import type { AppendResult, EventStore, ExpectedRevision, FactHandler, NewFact, SubscribeOptions, Subscription } from '../ports/event-store';

/** A fact as the SQLite store holds it, as a notice carries it. */
export type AnnouncedRow = NonNullable<StoreAppended['rows']>[number];

export interface WakeableEventStore extends EventStore {
  /** `durableUpTo`: the notifier's append is durable up to that position; `rows`: its own rows up to there. */
  wake(durableUpTo?: number, rows?: readonly AnnouncedRow[]): void;
  /**
   * `listener` runs in the turn after the store's appends are synced (or its durable head
   * moved), before its subscriptions are told, with the rows of its appends made durable since.
   */
  onDurable(listener: (rows: readonly AnnouncedRow[]) => void): void;
}

/**
 * Past this many characters of facts a notice carries only the position, and a receiver
 * queries for the rows. A lone append's rows cost less to copy than the query; the many
 * rows one fsync covers under load do not (one query reads them all, while each row in a
 * notice is serialized, copied and checked on every hop): with 64 KiB, 32 connections
 * sending lost about 4% of their throughput.
 */
const MAX_ANNOUNCED_CHARS = 16 * 1024;

export interface NotifyingOptions {
  /** The bus stays inside this process: notices carry rows, and rows in notices are used. */
  sharesRows?: boolean;
}

export class NotifyingEventStore implements EventStore {
  private listener: BusSubscription | undefined;
  /** The newest position appended and not yet announced. */
  private unannounced: number | undefined;
  /** Their rows, while they are few enough to announce (see MAX_ANNOUNCED_CHARS). */
  private unannouncedRows: AnnouncedRow[] | undefined = [];
  private unannouncedChars = 0;
  private closed = false;

  private constructor(
    private readonly inner: WakeableEventStore,
    private readonly bus: Bus,
  ) {}

  static async wrap(inner: WakeableEventStore, bus: Bus, options: NotifyingOptions = {}): Promise<NotifyingEventStore> {
    const store = new NotifyingEventStore(inner, bus);
    const sharesRows = options.sharesRows ?? false;
    inner.onDurable((rows) => {
      if (sharesRows) store.keepRows(rows);
      store.publishUnannounced();
    });
    store.listener = await bus.subscribe(storeAppended.subject, (payload) => {
      // A malformed notice still wakes the store: it then reads up to the durable head.
      const notice = storeAppended.payload.safeParse(payload);
      if (notice.success) inner.wake(notice.data.position, sharesRows ? notice.data.rows : undefined);
      else inner.wake();
    });
    return store;
  }

  async append(stream: string, facts: NewFact[], expected: ExpectedRevision): Promise<AppendResult> {
    const result = await this.inner.append(stream, facts, expected);
    // Announced when the store tells of the fsync (onDurable), after this append's caller
    // has had its answer: every append that fsync covered, in one notice.
    const position = result.positions.at(-1);
    if (position !== undefined) this.unannounced = Math.max(position, this.unannounced ?? 0);
    return result;
  }

  private keepRows(rows: readonly AnnouncedRow[]): void {
    if (!this.unannouncedRows) return;
    for (const row of rows) {
      this.unannouncedChars += row.data.length + row.metadata.length + row.id.length + row.stream.length;
      if (this.unannouncedChars > MAX_ANNOUNCED_CHARS) {
        this.unannouncedRows = undefined;
        return;
      }
      this.unannouncedRows.push(row);
    }
  }

  private publishUnannounced(): void {
    const position = this.unannounced;
    const rows = this.unannouncedRows;
    this.unannounced = undefined;
    this.unannouncedRows = [];
    this.unannouncedChars = 0;
    if (position === undefined || this.closed) return;
    try {
      const notice: StoreAppended = rows && rows.length > 0 ? { position, rows } : { position };
      this.bus.publish(storeAppended.subject, notice);
    } catch {
      // The bus is closing: the others learn of it by polling, as of any lost notification.
    }
  }

  readStream(stream: string, fromRevision?: number) {
    return this.inner.readStream(stream, fromRevision);
  }

  subscribeToAll(handler: FactHandler, options?: SubscribeOptions): Subscription {
    return this.inner.subscribeToAll(handler, options);
  }

  headPosition(): Promise<number> {
    return this.inner.headPosition();
  }

  async close(): Promise<void> {
    this.publishUnannounced();
    this.closed = true;
    await this.listener?.unsubscribe();
    await this.inner.close();
  }
}
