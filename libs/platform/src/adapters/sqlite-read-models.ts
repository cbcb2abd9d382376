import Database from 'better-sqlite3';
import { checkName } from './sqlite-collection-schema';
import { SqliteCollection, type Engine } from './sqlite-collection';
import { SqliteTextIndex } from './sqlite-text-index';
import { BackgroundCheckpointer, type BackgroundCheckpoints } from './sqlite-checkpointer';
import { SqliteTesterThread, TESTER_NICE } from './sqlite-tester-thread';
import { enterWalMode, isSqliteBusy } from './sqlite-wal';
import { traceStage } from '../kit/stage-trace';
import type { Collection, CollectionOptions, Doc, DocTester, IndexSpec, ReadModelStore } from '../ports/read-models';

/**
 * How long a server's read models keep finished batches in an open transaction before
 * committing them together (see SqliteReadModelStore.batch). A commit writes every page
 * its transaction touched, and a message touches about twenty (its row, the newest leaf
 * of each index, one row and index entry per recipient), most of them the same pages as
 * the messages around it: one person sending a message every few milliseconds, with a
 * commit each, wrote 210–230 KB to the disk per message (checkpoints included; 51 KB
 * with this window), and those writes lengthen the event store's own fsync, which
 * every send waits for.
 * Nothing waits for this commit (what a batch wrote is visible on the connection at
 * once), and a crash loses at most this long of projection, replayed from the event
 * store at start.
 */
export const READ_MODEL_COMMIT_WITHIN_MS = 100;

/** How long a connection waits for another process's write lock before it fails. */
const BUSY_TIMEOUT_MS = 5000;

/**
 * The page cache of a read-model connection, in KiB: 256 MiB while serving, 8 MiB while
 * a projector catches up. A rebuild filled the serving cache with pages it had written
 * once and would not read again: measured on a 3,000-message scale organization (300
 * users, 5,400 facts), the server's peak resident memory during a rebuild was 567 MB
 * with 256 MiB and 364 MB with 64 MiB, and the rebuild took as long (60 s and 58 s, on a
 * loaded machine). At 1,000,000 messages (four read-model files catching up at once)
 * 8 MiB instead of 64 MiB took about 100 MiB off the peak, at 5,000–5,500 facts/s either way.
 */
const SERVING_CACHE_KIB = 262_144;
const CATCH_UP_CACHE_KIB = 8_192;

/**
 * Embedded read models: one SQLite file, one table per collection holding each document
 * as JSON, plus a real column for every field an index names (kept equal to what
 * json_extract would read from the document), which the indexes are built on. Not
 * expression indexes: SQLite seeks the table row for every entry of an expression
 * index it scans, even when the query needs nothing but the index, which doubled the
 * cost of every index scan. The file is
 * synchronous=NORMAL: read models are rebuilt from the event store, and the checkpoints
 * live in the same file, so after a crash they never run ahead of the data they cover.
 *
 * better-sqlite3 is synchronous, so one connection serves everything. Batches span awaits
 * and are queued so that two never interleave (and do not nest). Other operations run at
 * once, even while a batch is open: reads may then see the batch's writes before it
 * commits, which the port allows (MongoDB batches are not atomic either). Writes belong
 * in batches: one made outside while a batch is open joins its transaction. Tracking
 * which caller is inside a batch would take AsyncLocalStorage, whose promise hooks slow
 * every await in the process.
 */
export class SqliteReadModelStore implements ReadModelStore {
  private readonly collections = new Map<string, SqliteCollection<Doc>>();
  private readonly engine: Engine;
  /** Keyed by SQL text: filters of the same shape share one compiled statement. */
  private readonly statements = new Map<string, Database.Statement<unknown[], unknown>>();
  /** Tail of the queue of batches. */
  private queueTail: Promise<unknown> = Promise.resolve();
  private batchOpen = false;
  /** Collections whose schema the open batch changed: a rollback undoes the DDL too. */
  private readonly schemaChangedInBatch: SqliteCollection<Doc>[] = [];

  private readonly selectCheckpoint: Database.Statement<[string], { position: number }>;
  private readonly upsertCheckpoint: Database.Statement<[string, number]>;

  private checkpointer: BackgroundCheckpointer | undefined;
  /** The threads that test documents, by the test's module (see offThreadTester). */
  private readonly testers = new Map<string, SqliteTesterThread>();

  /**
   * `backgroundCheckpoints`: checkpoint the WAL on a worker thread (see sqlite-checkpointer).
   * `commitWithinMs`: group commit (see `batch`).
   */
  static open(
    path: string,
    options: { backgroundCheckpoints?: boolean | BackgroundCheckpoints; commitWithinMs?: number } = {},
  ): SqliteReadModelStore {
    const store = new SqliteReadModelStore(new Database(path), options.commitWithinMs ?? 0);
    if (options.backgroundCheckpoints) {
      store.checkpointer = BackgroundCheckpointer.start(store.db, {
        ...(options.backgroundCheckpoints === true ? {} : options.backgroundCheckpoints),
        onRestartWanted: () => (store.walRestartWanted = true),
      });
    }
    return store;
  }

  /** The group commit's timer, while finished batches wait in the open transaction. */
  private commitTimer: NodeJS.Timeout | undefined;
  /** A group commit that failed: nothing more is written. */
  private failure: unknown;
  /** The WAL has grown: the next batch first lets a checkpoint copy all of it. */
  private walRestartWanted = false;

  private constructor(
    private readonly db: Database.Database,
    private readonly commitWithinMs: number,
  ) {
    enterWalMode(db);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma('synchronous = NORMAL');
    // Messaging's indexes outgrow SQLite's 2 MiB default page cache at a few thousand
    // messages; every write then re-reads index pages through the OS.
    db.pragma(`cache_size = -${SERVING_CACHE_KIB}`);
    // A batch inside the group commit's open transaction is a savepoint, and SQLite keeps
    // the page images a savepoint may roll back to in a sub-journal that moves to a temp
    // file once it passes 64 KiB: a batch of one sent message touches a hundred pages, so
    // every batch wrote them all to a file nobody reads (a sixth of the messaging
    // thread's time under one sending client, measured with perf). In memory it is a copy.
    db.pragma('temp_store = MEMORY');
    db.exec(`
      CREATE TABLE IF NOT EXISTS _checkpoints (projector TEXT PRIMARY KEY, position INTEGER NOT NULL) STRICT;
      CREATE TABLE IF NOT EXISTS _multikey_fields (collection TEXT NOT NULL, field TEXT NOT NULL,
        PRIMARY KEY (collection, field)) STRICT, WITHOUT ROWID;`);
    this.selectCheckpoint = db.prepare<[string], { position: number }>(
      'SELECT position FROM _checkpoints WHERE projector = ?',
    );
    this.upsertCheckpoint = db.prepare<[string, number]>(
      `INSERT INTO _checkpoints (projector, position) VALUES (?, ?)
       ON CONFLICT (projector) DO UPDATE SET position = excluded.position`,
    );
    this.engine = {
      db,
      statement: (sql, mode) => this.statement(sql, mode),
      run: (operation) => this.run(operation),
      schemaChanged: (collection) => {
        if (this.batchOpen) this.schemaChangedInBatch.push(collection);
      },
    };
  }

  /**
   * Opening the same collection again adds any new indexes to it. Open collections at
   * startup: tables created inside a batch disappear if that batch rolls back (they are
   * re-created on next use).
   */
  collection<T extends Doc>(name: string, indexes: IndexSpec[] = [], options: CollectionOptions = {}): Collection<T> {
    checkName('collection', name);
    let collection = this.collections.get(name);
    if (!collection) {
      collection = new SqliteCollection(this.engine, name);
      this.collections.set(name, collection);
    }
    if (options.cacheSize) collection.cacheUpTo(options.cacheSize, options.cacheWrites ?? true);
    collection.declare(indexes);
    if (!this.db.inTransaction) collection.ensureSchema();
    return collection as unknown as Collection<T>;
  }

  dropCollection(name: string): Promise<void> {
    return this.run(() => {
      checkName('collection', name);
      if (this.collections.has(name)) throw new Error(`collection ${name} is open: it cannot be dropped`);
      this.db.transaction(() => {
        this.db.exec(`DROP TABLE IF EXISTS "c_${name}"; DROP TABLE IF EXISTS "m_${name}";`);
        this.db.prepare('DELETE FROM _multikey_fields WHERE collection = ?').run(name);
        new SqliteTextIndex(name, '').drop(this.db);
        // IMMEDIATE, as the schema checks (sqlite-collection-schema.ts): it reads, then writes.
      }).immediate();
    });
  }

  /** Projectors of this file catching up now (see catchingUp). */
  private catchUps = 0;

  catchingUp(started: boolean): void {
    this.catchUps += started ? 1 : -1;
    const kib = this.catchUps > 0 ? CATCH_UP_CACHE_KIB : SERVING_CACHE_KIB;
    // Lowering the limit frees the pages past it (SQLite keeps no more than the limit).
    this.db.pragma(`cache_size = -${kib}`);
  }

  getCheckpoint(projector: string): Promise<number> {
    return this.run(() => this.selectCheckpoint.get(projector)?.position ?? 0);
  }

  setCheckpoint(projector: string, position: number): Promise<void> {
    return this.run(() => {
      this.upsertCheckpoint.run(projector, position);
    });
  }

  /**
   * Batches do not nest: a batch started inside another would wait for it forever.
   *
   * With `commitWithinMs`, a finished batch is released as a savepoint and its
   * transaction stays open for up to that long, so that the batches of a busy moment
   * share one commit: a commit writes every page the transaction touched, and the
   * batches of one projector touch mostly the same pages (the newest leaves of each
   * index). What a finished batch wrote is visible at once on this connection, the only
   * one that reads. It is not yet durable, which read models need not be: their
   * checkpoints commit with them, so after a crash the projector replays what was lost.
   */
  batch<R>(work: () => Promise<R>): Promise<R> {
    const result = this.queueTail.then(async () => {
      if (this.walRestartWanted) await this.restartWal();
      if (this.failure) throw this.failure;
      this.batchOpen = true;
      const joined = this.db.inTransaction;
      if (joined) this.db.exec('SAVEPOINT batch');
      else await this.beginWrite();
      try {
        const value = await work();
        if (joined) this.db.exec('RELEASE batch');
        if (this.commitWithinMs > 0) this.commitTimer ??= setTimeout(() => void this.commitPending(), this.commitWithinMs);
        else this.db.exec('COMMIT');
        return value;
      } catch (err) {
        // Undo this batch only; batches already finished in the open transaction stay.
        if (this.db.inTransaction) {
          if (joined) this.db.exec('ROLLBACK TO batch; RELEASE batch');
          else this.db.exec('ROLLBACK');
        }
        for (const collection of this.schemaChangedInBatch) collection.forgetSchema();
        // Cached documents may hold writes that were just undone.
        for (const collection of this.collections.values()) collection.clearCache();
        throw err;
      } finally {
        this.schemaChangedInBatch.length = 0;
        this.batchOpen = false;
      }
    });
    this.queueTail = result.catch(() => undefined);
    return result;
  }

  async durable(): Promise<void> {
    await this.commitPending();
    if (this.failure) throw this.failure;
  }

  /**
   * Takes the file's write lock for a batch, waiting for another process's writer
   * without blocking the thread. SQLite's busy handler sleeps on the thread: a thread
   * holding one store's open group-commit transaction while it slept on another store's
   * lock could not commit the first, and an operator tool beside a running server (both
   * project into the same files) then deadlocked with it until the timeout, each holding
   * the lock the other waited for (seen: create-organization failing "database is
   * locked" after 5 s, 3 runs in 12). Waiting between tries lets the thread's own commit
   * timers run, so one side always lets go.
   */
  private async beginWrite(): Promise<void> {
    const deadline = Date.now() + BUSY_TIMEOUT_MS;
    for (let pause = 1; ; pause = Math.min(2 * pause, 25)) {
      this.db.pragma('busy_timeout = 0');
      try {
        this.db.exec('BEGIN IMMEDIATE');
        return;
      } catch (err) {
        if (!isSqliteBusy(err) || Date.now() >= deadline) throw err;
      } finally {
        this.db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
      }
      await new Promise((resolve) => setTimeout(resolve, pause));
    }
  }

  /** Commits the finished batches waiting in the open transaction, in turn with batches. */
  private commitPending(): Promise<void> {
    const committed = this.queueTail.then(() => this.commitNow());
    this.queueTail = committed;
    return committed;
  }

  /** Only between batches (in the queue). */
  private commitNow(): void {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    if (!this.db.inTransaction) return;
    traceStage('readmodels.commit');
    try {
      this.db.exec('COMMIT');
      traceStage('readmodels.committed');
    } catch (err) {
      // Batches already reported as written are lost: refuse every later batch, so
      // their projectors stop (and replay on restart) instead of serving a read model
      // that misses them.
      if (this.db.inTransaction) this.db.exec('ROLLBACK');
      for (const collection of this.collections.values()) collection.clearCache();
      this.failure = err;
    }
  }

  /**
   * Lets the WAL start over (see sqlite-checkpointer): commit, have the worker copy every
   * frame while no batch runs, and the next write transaction begins the WAL anew. Reads
   * go on meanwhile; only the projectors' next batches wait.
   */
  private async restartWal(): Promise<void> {
    traceStage('readmodels.wal-restart');
    this.walRestartWanted = false;
    this.commitNow();
    try {
      await this.checkpointer?.checkpointAll();
      traceStage('readmodels.wal-restarted');
    } catch {
      // The worker's own checkpoints go on; a later restart may take.
    }
    // The batch that follows writes first, whatever was reported meanwhile.
    this.walRestartWanted = false;
  }

  offThreadTester(module: string): DocTester | undefined {
    if (this.db.memory) return undefined;
    let tester = this.testers.get(module);
    if (!tester) {
      tester = new SqliteTesterThread(
        { path: this.db.name, module, nice: TESTER_NICE, busyTimeoutMs: BUSY_TIMEOUT_MS },
        (collection) => {
          checkName('collection', collection);
          return `"c_${collection}"`;
        },
        // Only when batches wait in the group commit's open transaction.
        () => (this.db.inTransaction ? this.commitPending() : Promise.resolve()),
      );
      this.testers.set(module, tester);
    }
    // A thread that is gone is not started again (a module that cannot load would fail
    // each time): callers test on their own thread, as without one, and pace their work so.
    return tester.failed ? undefined : tester;
  }

  async close(): Promise<void> {
    await Promise.all([...this.testers.values()].map((tester) => tester.stop()));
    // Let open batches finish rather than cut their transaction off.
    await this.commitPending();
    await this.checkpointer?.stop();
    this.db.close();
  }

  private statement(sql: string, mode: 'rows' | 'raw' | 'pluck' = 'rows'): Database.Statement<unknown[], unknown> {
    const key = mode === 'rows' ? sql : `${mode}:${sql}`;
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (mode === 'raw') statement.raw(true);
      else if (mode === 'pluck') statement.pluck(true);
      this.statements.set(key, statement);
    }
    return statement;
  }

  /** Runs a synchronous operation, turning a throw into a rejection. */
  private run<R>(operation: () => R): Promise<R> {
    try {
      return Promise.resolve(operation());
    } catch (err) {
      return Promise.reject(err);
    }
  }
}
