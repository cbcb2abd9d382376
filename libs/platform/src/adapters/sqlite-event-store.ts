import Database from 'better-sqlite3';
import { deepFreeze } from './deep-freeze';
import { BackgroundCheckpointer, type BackgroundCheckpoints } from './sqlite-checkpointer';
import { ForeignCommitPoller } from './sqlite-foreign-commits';
import { SqliteSubscription } from './sqlite-subscription';
import { WalSync } from './sqlite-wal-sync';
import { RecentFacts, toStoredFact, type FactRow } from './sqlite-recent-facts';
import { enterWalMode } from './sqlite-wal';
import { stageTracing, traceStage } from '../kit/stage-trace';
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

export interface SqliteEventStoreOptions {
  /**
   * How often subscriptions look for facts appended by other processes sharing the file.
   * Appends through this instance wake subscribers in the turn after their fsync, whatever the interval.
   */
  pollIntervalMs?: number;
  /** Checkpoint the WAL on a worker thread instead of inside commits (see sqlite-checkpointer). */
  backgroundCheckpoints?: boolean | BackgroundCheckpoints;
  /** Sync a lone append's commit on the calling thread (see WalSync `syncLoneInline`). */
  syncLoneInline?: boolean;
}

interface PendingAppend {
  stream: string;
  facts: NewFact[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (err: unknown) => void;
}

/** A committed append waiting for the fsync that makes it durable. */
interface UnsyncedAppend {
  append: PendingAppend;
  result: AppendResult;
  rows: FactRow[];
}

/** What one append wrote: its result, and its rows as stored (for RecentFacts). */
interface Written {
  result: AppendResult;
  rows: FactRow[];
}

/** Large enough to amortise the query, small enough not to hold thousands of parsed facts. */
const BATCH_SIZE = 500;

const NO_FACTS: StoredFact[] = Object.freeze([]) as unknown as StoredFact[];

/**
 * The embedded event store: one SQLite file in WAL mode, which several processes may share
 * (the distributed mode on one machine). Positions come from an AUTOINCREMENT key, so they
 * are never reused, and are assigned inside a BEGIN IMMEDIATE transaction: writers are
 * serialised, hence commit order equals position order and a reader polling
 * `position > last` can never skip a fact that commits later with a smaller position.
 *
 * Durability without blocking the event loop: better-sqlite3 runs on the main thread, so
 * with synchronous=FULL every commit's fsync would stall every request. Commits run with
 * synchronous=NORMAL (the WAL is written, not synced) and the WAL file is then fsynced
 * on libuv's thread pool; an append is acknowledged, and a fact delivered to
 * subscribers, only after an fsync that began after its commit. That is what FULL
 * guarantees in WAL mode, and one fsync covers every commit made while the previous one
 * ran (group commit). Subscribers never see a fact that a power loss could take back, so
 * read models and fan-out never run ahead of the store.
 */
export class SqliteEventStore implements EventStore {
  private readonly subscriptions = new Set<SqliteSubscription>();
  /** Finds other processes' commits (see sqlite-foreign-commits). */
  private readonly foreign: ForeignCommitPoller;
  /** Head as last seen by this instance; a poll that finds it moved wakes the subscribers. */
  private lastHead = 0;
  /** Every fact up to here is on disk: what subscribers may read. */
  private durableHead = 0;
  /** The group fsync of the WAL: what acknowledges appends and moves the durable head. */
  private readonly walSync: WalSync<UnsyncedAppend>;
  /** The facts this instance committed last, as they are stored (see readAfter). */
  private readonly recent = new RecentFacts();
  private readonly checkpointer: BackgroundCheckpointer | undefined;
  /** The onDurable listener, and the pending turn that tells it and the subscriptions (see becameDurable). */
  private durableListener: ((rows: readonly FactRow[]) => void) | undefined;
  /** The rows of this instance's appends made durable since the listener was last told. */
  private durableRows: FactRow[] = [];
  private durableTold: NodeJS.Immediate | undefined;
  /** The last range a subscription read (see readAfter). */
  private lastRead: { after: number; durableHead: number; facts: StoredFact[] } | undefined;
  private closed = false;

  private readonly selectHead: Database.Statement<[], { head: number | null }>;
  private readonly selectAfter: Database.Statement<[number, number, number], FactRow>;
  private readonly selectStream: Database.Statement<[string, number], FactRow>;
  private readonly selectStreamRevision: Database.Statement<[string], { revision: number | null }>;
  private readonly selectByIds: Database.Statement<[string], Pick<FactRow, 'id' | 'stream' | 'revision' | 'position'>>;
  private readonly insertFact: Database.Statement<[string, number, string, string, string, string, number]>;
  private readonly commitGroup: (group: PendingAppend[]) => (Written | Error)[];
  /** Appends waiting for the next group commit. */
  private pending: PendingAppend[] = [];
  /** The WAL has grown: the next group commit first lets a checkpoint copy all of it. */
  private walRestartWanted = false;
  /** That checkpoint, while it runs: appends wait for it (see sqlite-checkpointer). */
  private walRestarting: Promise<void> | undefined;

  static open(path: string, options: SqliteEventStoreOptions = {}): SqliteEventStore {
    return new SqliteEventStore(new Database(path), options);
  }

  private constructor(
    private readonly db: Database.Database,
    options: SqliteEventStoreOptions,
  ) {
    enterWalMode(db);
    // Writers from other processes wait for the lock instead of failing at once.
    db.pragma('busy_timeout = 5000');
    // Durability comes from the WAL sync of WalSync, after the commit.
    db.pragma('synchronous = NORMAL');
    this.walSync = new WalSync<UnsyncedAppend>(
      db.memory ? undefined : `${db.name}-wal`,
      (head, covered, err) => {
        for (const { append, result } of covered) {
          if (err) append.reject(err);
          else append.resolve(result);
        }
        // Told even if a notice made the head durable first: the listener announces these appends.
        if (!err) this.becameDurable(head, covered);
      },
      () => this.lastHead,
      options.syncLoneInline ?? false,
    );
    this.checkpointer = options.backgroundCheckpoints
      ? BackgroundCheckpointer.start(db, {
          ...(options.backgroundCheckpoints === true ? {} : options.backgroundCheckpoints),
          onRestartWanted: () => (this.walRestartWanted = true),
        })
      : undefined;
    db.exec(`
      CREATE TABLE IF NOT EXISTS facts (
        position INTEGER PRIMARY KEY AUTOINCREMENT,
        stream   TEXT    NOT NULL,
        revision INTEGER NOT NULL,
        id       TEXT    NOT NULL UNIQUE,
        type     TEXT    NOT NULL,
        data     TEXT    NOT NULL,
        metadata TEXT    NOT NULL,
        created  INTEGER NOT NULL,
        UNIQUE (stream, revision)
      )`);

    this.selectHead = db.prepare<[], { head: number | null }>('SELECT MAX(position) AS head FROM facts');
    this.selectAfter = db.prepare<[number, number, number], FactRow>(
      'SELECT * FROM facts WHERE position > ? AND position <= ? ORDER BY position LIMIT ?',
    );
    this.selectStream = db.prepare<[string, number], FactRow>(
      'SELECT * FROM facts WHERE stream = ? AND revision >= ? ORDER BY revision',
    );
    this.selectStreamRevision = db.prepare<[string], { revision: number | null }>(
      'SELECT MAX(revision) AS revision FROM facts WHERE stream = ?',
    );
    // One statement whatever the number of ids: they are bound as a single JSON array.
    this.selectByIds = db.prepare<[string], Pick<FactRow, 'id' | 'stream' | 'revision' | 'position'>>(
      'SELECT id, stream, revision, position FROM facts WHERE id IN (SELECT value FROM json_each(?))',
    );
    this.insertFact = db.prepare<[string, number, string, string, string, string, number]>(
      'INSERT INTO facts (stream, revision, id, type, data, metadata, created) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    // Each append runs in its own savepoint (a nested better-sqlite3 transaction), so one
    // refused append does not undo the others committed with it.
    const appendOne = db.transaction((append: PendingAppend) => this.appendInTransaction(append.stream, append.facts, append.expected));
    const group = db.transaction((appends: PendingAppend[]) =>
      appends.map((append) => {
        try {
          return appendOne(append);
        } catch (err) {
          return err instanceof Error ? err : new Error(String(err));
        }
      }),
    );
    // IMMEDIATE takes the write lock before reading the stream's revision, so a writer in
    // another process cannot slip in between the check and the insert.
    this.commitGroup = (appends) => group.immediate(appends);
    this.foreign = new ForeignCommitPoller(
      {
        readHead: () => this.readHead(),
        knownHead: () => this.lastHead,
        foundHead: (head) => {
          this.lastHead = head;
          this.walSync.request();
        },
      },
      options.pollIntervalMs ?? 25,
    );
    // What the file holds at opening survived whatever came before: it is durable.
    this.lastHead = this.readHead();
    this.durableHead = this.lastHead;
  }

  /**
   * Group commit: appends made in the same turn of the event loop share one transaction,
   * and every transaction committed while an fsync runs shares the next one. Each append
   * is acknowledged only after that fsync, so every acknowledged append is durable.
   */
  append(stream: string, facts: NewFact[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closed) return Promise.reject(new Error('event store is closed'));
    if (stageTracing) traceStage('store.append', stream);
    return new Promise((resolve, reject) => {
      this.pending.push({ stream, facts, expected, resolve, reject });
      if (this.pending.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    if (this.walRestarting) return; // flushed when the checkpoint ends
    const appends = this.pending;
    if (appends.length === 0) return;
    if (this.walRestartWanted && this.checkpointer) {
      traceStage('store.wal-restart');
      // Nothing commits until the checkpoint has copied every frame, so that this
      // group's transaction starts the WAL over.
      this.walRestartWanted = false;
      this.walRestarting = this.checkpointer
        .checkpointAll()
        .catch(() => undefined)
        .then(() => {
          // This group commits first, whatever was reported meanwhile.
          this.walRestartWanted = false;
          this.walRestarting = undefined;
          this.flush();
        });
      return;
    }
    this.pending = [];
    let results: (Written | Error)[];
    if (stageTracing) traceStage('store.commit', appends.length);
    try {
      results = this.commitGroup(appends);
    } catch (err) {
      // The commit itself failed (disk, lock timeout): nothing of the group is stored.
      for (const append of appends) append.reject(err);
      return;
    }
    const unsynced: UnsyncedAppend[] = [];
    appends.forEach((append, i) => {
      const written = results[i]!;
      // A refused append changed nothing: it can be answered at once.
      if (written instanceof Error) return append.reject(written);
      unsynced.push({ append, result: written.result, rows: written.rows });
      this.recent.add(written.rows);
    });
    this.lastHead = Math.max(this.lastHead, ...results.flatMap((r) => (r instanceof Error ? [] : r.result.positions)));
    this.walSync.request(unsynced);
  }

  async readStream(stream: string, fromRevision = 0): Promise<StoredFact[]> {
    return this.selectStream.all(stream, fromRevision).map(toStoredFact);
  }

  subscribeToAll(handler: FactHandler, options: SubscribeOptions = {}): Subscription {
    if (this.closed) throw new Error('event store is closed');
    const read = (after: number) => this.readAfter(after);
    const subscription = new SqliteSubscription(read, handler, options, () => {
      this.subscriptions.delete(subscription);
      if (this.subscriptions.size === 0) this.foreign.stop();
    });
    this.subscriptions.add(subscription);
    this.foreign.start();
    subscription.start();
    return subscription;
  }

  /**
   * The facts after a position, up to the durable head. Subscriptions in one process move
   * in step (every one is woken by the same fsync), so the last read is kept and handed
   * to the next subscription asking for the same range: each fact is read and parsed
   * once, not once per projector. Shared, so frozen.
   */
  private readAfter(after: number): StoredFact[] {
    // Nothing past the durable head may be read: a subscription that has reached it is
    // caught up without asking SQLite (whose answer, after another connection's commit,
    // costs a fresh read of the pages — as much as a real read).
    if (after >= this.durableHead) return NO_FACTS;
    const last = this.lastRead;
    if (last && last.after === after && last.durableHead === this.durableHead) return last.facts;
    // What this instance has just committed is at hand, as stored: no query for it.
    const recent = this.recent.range(after, Math.min(this.durableHead, after + BATCH_SIZE));
    if (recent) {
      this.lastRead = { after, durableHead: this.durableHead, facts: recent };
      return recent;
    }
    const facts = this.selectAfter.all(after, this.durableHead, BATCH_SIZE).map((row) => deepFreeze(toStoredFact(row)));
    this.lastRead = { after, durableHead: this.durableHead, facts };
    return facts;
  }

  async headPosition(): Promise<number> {
    this.foreign.pollNow();
    await this.walSync.inFlight;
    return this.durableHead;
  }

  /**
   * Looks for new facts now instead of at the next poll; a notification from the
   * appending process (or thread) calls this. `durableUpTo`: the position up to which
   * the notifier has already fsynced the WAL (it notifies only once its append is
   * durable). The WAL is one file whoever synced it, so facts up to there are readable
   * without an fsync of our own, which would only compete for the disk with the
   * writer's; facts past it are the writer's to sync, and their own notification (or
   * the poll, if it is lost) brings them. `rows`: the notifier's own rows up to there, as
   * it stored them; the subscriptions read those from memory (RecentFacts).
   */
  wake(durableUpTo?: number, rows?: readonly FactRow[]): void {
    if (this.closed) return;
    if (durableUpTo === undefined) return this.foreign.pollNow();
    // The notifier committed that position before it synced: the file holds it, no query needed.
    if (durableUpTo > this.lastHead) this.lastHead = durableUpTo;
    if (stageTracing) traceStage('store.woken', durableUpTo);
    if (rows) this.recent.add(rows.filter((row) => row.position <= durableUpTo));
    this.becameDurable(durableUpTo);
  }

  /**
   * The one listener run in the turn after this instance's appends are synced or the
   * durable head moves, before the subscriptions hear of it; given the rows of this
   * instance's appends made durable since it was last called.
   */
  onDurable(listener: (rows: readonly FactRow[]) => void): void {
    this.durableListener = listener;
  }

  /**
   * Everything up to `head` is on disk: subscriptions may read that far. They are told in
   * the next turn, after this one has sent the appends' replies and after the listener
   * (NotifyingEventStore's notice): told first, the messaging thread projected a message
   * before its notice left, and the main thread's fan-out waited (0.6 ms at the median).
   */
  private becameDurable(head: number, appended: readonly UnsyncedAppend[] = []): void {
    for (const { rows } of appended) for (const row of rows) this.durableRows.push(row);
    if (head > this.durableHead) this.durableHead = head;
    else if (appended.length === 0) return;
    if (this.durableTold) return;
    this.durableTold = setImmediate(() => {
      this.durableTold = undefined;
      const rows = this.durableRows;
      this.durableRows = [];
      this.durableListener?.(rows);
      for (const subscription of this.subscriptions) subscription.notify();
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    // Appends already accepted are committed and synced, not dropped.
    while (this.walRestarting) await this.walRestarting;
    this.walRestartWanted = false;
    this.flush();
    while (this.walSync.inFlight) await this.walSync.inFlight;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    this.foreign.stop();
    await this.checkpointer?.stop();
    this.walSync.close();
    this.db.close();
  }

  private appendInTransaction(stream: string, facts: NewFact[], expected: ExpectedRevision): Written {
    const current = this.selectStreamRevision.get(stream)?.revision ?? null;
    // Idempotence comes before the revision check: a retried append after a lost reply
    // finds the stream already moved past its expected revision. An absent stream holds
    // none of the ids (every message starts one), and an id stored in another stream
    // fails the insert's unique constraint all the same.
    if (facts.length > 0 && current !== null) {
      const existing = this.selectByIds.all(JSON.stringify(facts.map((f) => f.id)));
      if (existing.length > 0) return { result: this.replayedAppend(stream, facts, existing), rows: [] };
    }

    const actual = current ?? 'no_stream';
    if (expected === 'no_stream' ? current !== null : expected !== 'any' && expected !== current) {
      throw new WrongExpectedRevisionError(stream, expected, actual);
    }

    const created = Date.now();
    // An empty append only checks the revision; on an absent stream it answers -1.
    let revision = current ?? -1;
    const rows = facts.map((fact): FactRow => {
      revision += 1;
      const data = JSON.stringify(fact.data ?? null);
      const metadata = JSON.stringify(fact.metadata ?? {});
      const info = this.insertFact.run(stream, revision, fact.id, fact.type, data, metadata, created);
      return { position: Number(info.lastInsertRowid), stream, revision, id: fact.id, type: fact.type, data, metadata, created };
    });
    return { result: { nextRevision: revision, positions: rows.map((row) => row.position) }, rows };
  }

  /** Answers a re-append exactly as the original append was answered. */
  private replayedAppend(
    stream: string,
    facts: NewFact[],
    existing: Pick<FactRow, 'id' | 'stream' | 'revision' | 'position'>[],
  ): AppendResult {
    const byId = new Map(existing.map((row) => [row.id, row]));
    const rows = facts.map((f) => byId.get(f.id));
    if (rows.some((row) => row === undefined || row.stream !== stream)) {
      throw new Error(
        `stream ${stream}: some fact ids are already stored (possibly in another stream) and others are not`,
      );
    }
    const found = rows as NonNullable<(typeof rows)[number]>[];
    return {
      nextRevision: Math.max(...found.map((row) => row.revision)),
      positions: found.map((row) => row.position),
    };
  }

  private readHead(): number {
    return this.selectHead.get()?.head ?? 0;
  }
}
