import Database from 'better-sqlite3';
import { deepFreeze } from './deep-freeze';
import { LRUCache } from 'lru-cache';
import { BackgroundCheckpointer, type BackgroundCheckpoints } from './sqlite-checkpointer';
import { enterWalMode } from './sqlite-wal';
import type {
  Collection,
  CollectionOptions,
  Doc,
  DocId,
  FieldCondition,
  Filter,
  FindOptions,
  IndexSpec,
  ReadModelStore,
} from '../ports/read-models';

/**
 * Field and collection names end up inside SQL text (json paths, table and index names),
 * where they cannot be bound as parameters; this keeps them inert.
 */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkName(kind: string, name: string): string {
  if (!NAME.test(name)) throw new Error(`invalid ${kind} name: ${JSON.stringify(name)}`);
  return name;
}

type Scalar = string | number | boolean | null;

/** Values as SQLite sees them: json_extract yields JSON true/false as 1/0. */
function bindable(value: Scalar): string | number | null {
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === null || typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) {
    return value;
  }
  throw new Error(`filter values must be strings, finite numbers, booleans or null, got ${JSON.stringify(value)}`);
}

function checkId(id: DocId): DocId {
  if (typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id))) return id;
  throw new Error(`document ids must be strings or finite numbers, got ${JSON.stringify(id)}`);
}

/**
 * How long a server's read models keep finished batches in an open transaction before
 * committing them together (see SqliteReadModelStore.batch). Short enough that a crash
 * loses little to replay; long enough that a busy moment's batches share a commit.
 */
export const READ_MODEL_COMMIT_WITHIN_MS = 10;

/** What collections need from their store; kept off the store's public surface. */
interface Engine {
  readonly db: Database.Database;
  /** `raw`: rows as arrays, not objects: cheaper when many rows come back. */
  statement(sql: string, raw?: boolean): Database.Statement<unknown[], unknown>;
  run<R>(operation: () => R): Promise<R>;
  /** Records schema changes made inside a batch so that a rollback can make them redone. */
  schemaChanged(collection: SqliteCollection<Doc>): void;
}

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
    db.pragma('busy_timeout = 5000');
    db.pragma('synchronous = NORMAL');
    // Messaging's indexes outgrow SQLite's 2 MiB default page cache at a few thousand
    // messages; every write then re-reads index pages through the OS.
    db.pragma('cache_size = -262144');
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
      statement: (sql, raw) => this.statement(sql, raw),
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
      this.db.exec(joined ? 'SAVEPOINT batch' : 'BEGIN IMMEDIATE');
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
    try {
      this.db.exec('COMMIT');
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
    this.walRestartWanted = false;
    this.commitNow();
    try {
      await this.checkpointer?.checkpointAll();
    } catch {
      // The worker's own checkpoints go on; a later restart may take.
    }
    // The batch that follows writes first, whatever was reported meanwhile.
    this.walRestartWanted = false;
  }

  async close(): Promise<void> {
    // Let open batches finish rather than cut their transaction off.
    await this.commitPending();
    await this.checkpointer?.stop();
    this.db.close();
  }

  private statement(sql: string, raw = false): Database.Statement<unknown[], unknown> {
    const key = raw ? `raw:${sql}` : sql;
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.db.prepare(sql);
      if (raw) statement.raw(true);
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

interface Compiled {
  where: string;
  params: unknown[];
}

const RANGE_OPERATORS = { $lt: '<', $lte: '<=', $gt: '>', $gte: '>=' } as const;

class SqliteCollection<T extends Doc> implements Collection<T> {
  private readonly table: string;
  private readonly sideTable: string;
  private readonly indexes: IndexSpec[] = [];
  private readonly multikey = new Set<string>();
  /** The fields indexes name (besides _id and multikey fields): each has a column of its own. */
  private columns: string[] = [];
  private readonly columnSet = new Set<string>();
  private ready = false;
  private cache: LRUCache<DocId, T> | undefined;
  private cacheWrites = true;
  /** Prepared for the current columns; reset whenever the schema is (re)ensured. */
  private upsertStatement: Database.Statement<unknown[], unknown> | undefined;
  private readonly putTx: (id: DocId, json: string, doc: Doc) => void;
  private readonly deleteTx: (id: DocId) => void;

  constructor(
    private readonly store: Engine,
    private readonly name: string,
  ) {
    this.table = `"c_${name}"`;
    // Array elements of multikey fields, one row each, so "contains" is an index lookup.
    this.sideTable = `"m_${name}"`;
    // A savepoint inside a batch, a transaction outside: the document and its multikey
    // rows change together or not at all (e.g. on a unique index violation).
    // Kept once looked up: building the SQL text and finding it in the store's map cost
    // as much as the rest of a put's JavaScript. (SQLite re-prepares it if the schema
    // changes.)
    const upsert = (id: DocId, json: string, doc: Doc) => {
      this.upsertStatement ??= store.statement(this.upsertSql());
      const values: unknown[] = [id, json];
      for (const field of this.columns) values.push(columnValue(doc[field]));
      this.upsertStatement.run(...values);
    };
    const putWithElements = store.db.transaction((id: DocId, json: string, doc: Doc) => {
      upsert(id, json, doc);
      store.statement(`DELETE FROM ${this.sideTable} WHERE id = ?`).run(id);
      for (const field of this.multikey) {
        store.statement(this.multikeyInsert(field, '?', `json_each(?, '$.${field}')`)).run(id, json);
      }
    });
    // One statement is atomic on its own; the savepoint is only needed when multikey rows
    // must change with the document (it costs as much as the insert on this hot path).
    this.putTx = (id, json, doc) => (this.multikey.size === 0 ? upsert(id, json, doc) : putWithElements(id, json, doc));
    this.deleteTx = store.db.transaction((id: DocId) => {
      store.statement(`DELETE FROM ${this.table} WHERE _id = ?`).run(id);
      store.statement(`DELETE FROM ${this.sideTable} WHERE id = ?`).run(id);
    });
  }

  declare(indexes: IndexSpec[]): void {
    for (const spec of indexes) {
      if (spec.fields.length === 0) throw new Error(`collection ${this.name}: an index needs fields`);
      for (const field of spec.fields) checkName('field', field);
      if (spec.multikey && spec.fields.length !== 1) {
        throw new Error(`collection ${this.name}: a multikey index covers exactly one field`);
      }
      if (spec.multikey && spec.fields[0] === '_id') throw new Error(`collection ${this.name}: _id cannot be multikey`);
      for (const [field, value] of Object.entries(spec.where ?? {})) {
        checkName('field', field);
        if (typeof value !== 'boolean') throw new Error(`collection ${this.name}: a partial index selects on booleans`);
        if (spec.multikey || spec.unique) throw new Error(`collection ${this.name}: a partial index is neither multikey nor unique`);
      }
      const key = indexKey(spec);
      if (this.indexes.some((known) => indexKey(known) === key)) continue;
      this.indexes.push(spec);
      if (spec.multikey) this.multikey.add(spec.fields[0]!);
    }
    const named = this.indexes.filter((spec) => !spec.multikey).flatMap((spec) => [...spec.fields, ...Object.keys(spec.where ?? {})]);
    this.columns = [...new Set(named)].filter((field) => field !== '_id' && !this.multikey.has(field));
    this.columnSet.clear();
    for (const field of this.columns) this.columnSet.add(field);
    this.ready = false;
  }

  private upsertSql(): string {
    const names = this.columns.map(columnName);
    return (
      `INSERT INTO ${this.table} (_id, doc${names.map((n) => `, ${n}`).join('')}) VALUES (?, ?${', ?'.repeat(names.length)})` +
      ` ON CONFLICT (_id) DO UPDATE SET doc = excluded.doc${names.map((n) => `, ${n} = excluded.${n}`).join('')}`
    );
  }

  forgetSchema(): void {
    this.ready = false;
  }

  cacheUpTo(max: number, cacheWrites: boolean): void {
    if (!this.cache || this.cache.max < max) this.cache = new LRUCache<DocId, T>({ max });
    this.cacheWrites = cacheWrites;
  }

  clearCache(): void {
    this.cache?.clear();
  }

  /** A document as read from its JSON, frozen and cached when this collection caches. */
  private fromJson(id: DocId, json: string): T {
    const cached = this.cache?.get(id);
    if (cached) return cached;
    const doc = JSON.parse(json) as T;
    if (this.cache) this.cache.set(id, deepFreeze(doc));
    return doc;
  }

  ensureSchema(): void {
    if (this.ready) return;
    const db = this.store.db;
    db.transaction(() => {
      // STRICT with type ANY keeps each id's storage class: 1 and '1' stay distinct and
      // come back as a number and a string (a plain table's affinity would coerce them).
      // The side table keeps a rowid: a WITHOUT ROWID key could not hold null elements.
      db.exec(`
        CREATE TABLE IF NOT EXISTS ${this.table} (_id ANY PRIMARY KEY NOT NULL, doc TEXT NOT NULL) STRICT, WITHOUT ROWID;
        CREATE TABLE IF NOT EXISTS ${this.sideTable} (field TEXT NOT NULL, value ANY, id ANY NOT NULL) STRICT;
        CREATE INDEX IF NOT EXISTS "m_${this.name}:value" ON ${this.sideTable} (field, value, id);
        CREATE INDEX IF NOT EXISTS "m_${this.name}:id" ON ${this.sideTable} (id);`);
      // A column added to a table that has documents is filled from them.
      const columnsThere = new Set((db.prepare(`PRAGMA table_info(${this.table})`).all() as { name: string }[]).map((c) => c.name));
      for (const field of this.columns) {
        if (columnsThere.has(`f_${field}`)) continue;
        db.exec(`ALTER TABLE ${this.table} ADD COLUMN ${columnName(field)} ANY`);
        db.exec(`UPDATE ${this.table} SET ${columnName(field)} = json_extract(doc, '$.${field}')`);
      }
      for (const spec of this.indexes) {
        if (spec.multikey) {
          this.populateMultikey(spec.fields[0]!);
          continue;
        }
        const columns = spec.fields.map((f) => this.column(f)).join(', ');
        const where = Object.entries(spec.where ?? {}).map(([field, value]) => `${this.column(field)} = ${value ? 1 : 0}`);
        db.exec(
          `CREATE ${spec.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${indexName(this.name, spec)} ON ${this.table} (${columns})` +
            (where.length ? ` WHERE ${where.join(' AND ')}` : ''),
        );
      }
      // Indexes no longer declared would still be kept up to date on every write.
      const declared = new Set(this.indexes.filter((spec) => !spec.multikey).map((spec) => indexName(this.name, spec)));
      const existing = db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE 'ix:%'`)
        .all(`c_${this.name}`) as { name: string }[];
      for (const { name } of existing) if (!declared.has(`"${name}"`)) db.exec(`DROP INDEX "${name}"`);
      // A column no index names any more would go stale (puts no longer write it), and be
      // trusted if an index named it again: it goes, and comes back filled if needed.
      for (const name of columnsThere) {
        if (name.startsWith('f_') && !this.columnSet.has(name.slice(2))) db.exec(`ALTER TABLE ${this.table} DROP COLUMN "${name}"`);
      }
    })();
    this.ready = true;
    this.upsertStatement = undefined;
    this.store.schemaChanged(this as unknown as SqliteCollection<Doc>);
  }

  get(id: DocId): Promise<T | undefined> {
    return this.run(() => {
      const cached = this.cache?.get(checkId(id));
      if (cached) return cached;
      const row = this.store.statement(`SELECT doc FROM ${this.table} WHERE _id = ?`).get(checkId(id)) as
        | { doc: string }
        | undefined;
      return row === undefined ? undefined : this.fromJson(id, row.doc);
    });
  }

  getMany(ids: DocId[]): Promise<T[]> {
    return this.run(() => {
      if (ids.length === 0) return [];
      const found = new Map<DocId, T>();
      const missing: DocId[] = [];
      for (const id of ids) {
        const cached = this.cache?.get(checkId(id));
        if (cached) found.set(id, cached);
        else missing.push(id);
      }
      if (missing.length > 0) {
        // One statement for any number of ids; JSON keeps each id's type.
        const rows = this.store
          .statement(`SELECT _id, doc FROM ${this.table} WHERE _id IN (SELECT value FROM json_each(?))`, true)
          .all(JSON.stringify(missing.map(checkId))) as [DocId, string][];
        for (const [id, doc] of rows) found.set(id, this.fromJson(id, doc));
      }
      // A loop, not flatMap: V8's flatMap costs about ten times as much.
      const docs: T[] = [];
      for (const id of ids) {
        const doc = found.get(id);
        if (doc) docs.push(doc);
      }
      return docs;
    });
  }

  put(doc: T): Promise<void> {
    return this.run(() => {
      const id = checkId(doc._id);
      try {
        this.putTx(id, JSON.stringify(doc), doc);
        // The caller's object becomes the cached version: it must not change after a put.
        if (this.cache && this.cacheWrites) this.cache.set(id, deepFreeze(doc));
        else this.cache?.delete(id);
      } catch (err) {
        // Re-thrown as a plain Error: callers expect a duplicate to be an ordinary failure,
        // and better-sqlite3's own error class is bound once per process to the first
        // module instance that loaded it (under jest, another test file's realm, where it
        // is not even `instanceof Error`).
        if ((err as { code?: unknown }).code === 'SQLITE_CONSTRAINT_UNIQUE') {
          throw new Error(`collection ${this.name}: document ${JSON.stringify(id)}: ${(err as Error).message}`, {
            cause: err,
          });
        }
        throw err;
      }
    });
  }

  delete(id: DocId): Promise<void> {
    return this.run(() => {
      this.deleteTx(checkId(id));
      this.cache?.delete(id);
    });
  }

  clear(): Promise<void> {
    return this.run(() => {
      this.store.db.exec(`DELETE FROM ${this.table}; DELETE FROM ${this.sideTable};`);
      this.cache?.clear();
    });
  }

  find(filter: Filter, options: FindOptions = {}): Promise<T[]> {
    return this.run(() => {
      const rows = this.select('_id, doc', filter, options) as [DocId, string][];
      return rows.map(([id, doc]) => this.fromJson(id, doc));
    });
  }

  findIds(filter: Filter, options: FindOptions = {}): Promise<DocId[]> {
    return this.run(() => (this.select('_id', filter, options) as [DocId][]).map((row) => row[0]));
  }

  private select(columns: string, filter: Filter, options: FindOptions): unknown[] {
    const { where, params } = this.compile(filter);
    let sql = `SELECT ${columns} FROM ${this.table}${where}`;
    if (options.sort) {
      const [field, direction] = options.sort;
      const order = direction === -1 ? 'DESC' : 'ASC';
      // _id breaks ties so pages are stable; index entries end with it, so an index on
      // the sort field still serves the ORDER BY.
      sql += field === '_id' ? ` ORDER BY _id ${order}` : ` ORDER BY ${this.column(field)} ${order}, _id ${order}`;
    }
    const limit = options.limit;
    // MongoDB reads a limit of 0 as "no limit".
    if (limit !== undefined && limit !== 0) {
      if (!Number.isInteger(limit) || limit < 0) throw new Error(`invalid limit: ${limit}`);
      sql += ' LIMIT ?';
      params.push(limit);
    }
    return this.store.statement(sql, true).all(...params);
  }

  count(filter: Filter): Promise<number> {
    return this.run(() => {
      const { where, params } = this.compile(filter);
      const row = this.store.statement(`SELECT COUNT(*) AS n FROM ${this.table}${where}`).get(...params) as {
        n: number;
      };
      return row.n;
    });
  }

  private run<R>(operation: () => R): Promise<R> {
    return this.store.run(() => {
      this.ensureSchema();
      return operation();
    });
  }

  /** A field as SQL: its column where an index names it, else read from the document. */
  private column(field: string): string {
    checkName('field', field);
    if (field === '_id') return '_id';
    return this.columnSet.has(field) ? columnName(field) : `json_extract(doc, '$.${field}')`;
  }

  /** json_each over a scalar yields that scalar, so a non-array value is indexed as one element. */
  private multikeyInsert(field: string, id: string, source: string): string {
    return `INSERT INTO ${this.sideTable} (field, value, id)
      SELECT '${field}', j.value, ${id} FROM ${source} AS j WHERE j.type NOT IN ('object', 'array')`;
  }

  /** Indexes the documents stored before the field was declared multikey. */
  private populateMultikey(field: string): void {
    const db = this.store.db;
    const known = db
      .prepare('SELECT 1 FROM _multikey_fields WHERE collection = ? AND field = ?')
      .get(this.name, field);
    if (known) return;
    db.prepare(this.multikeyInsert(field, 'c._id', `${this.table} AS c, json_each(c.doc, '$.${field}')`)).run();
    db.prepare('INSERT INTO _multikey_fields (collection, field) VALUES (?, ?)').run(this.name, field);
  }

  private compile(filter: Filter): Compiled {
    const clauses: string[] = [];
    const params: unknown[] = [];
    for (const [field, condition] of Object.entries(filter)) {
      checkName('field', field);
      if (this.multikey.has(field)) this.compileMultikey(field, condition, clauses, params);
      else this.compileScalar(this.column(field), condition, clauses, params);
    }
    return { where: clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`, params };
  }

  private compileScalar(column: string, condition: FieldCondition, clauses: string[], params: unknown[]): void {
    for (const [op, value] of operators(condition)) {
      switch (op) {
        case '$eq':
          if (value === null) clauses.push(`${column} IS NULL`);
          // A boolean is written into the SQL, not bound: SQLite uses a partial index
          // only when the query's terms match the index's condition literally.
          else if (typeof value === 'boolean') clauses.push(`${column} = ${value ? 1 : 0}`);
          else {
            clauses.push(`${column} = ?`);
            params.push(bindable(value as Scalar));
          }
          break;
        case '$ne':
          // IS NOT is null-safe: a missing field differs from any value, as in MongoDB.
          clauses.push(`${column} IS NOT ?`);
          params.push(bindable(value as Scalar));
          break;
        case '$in':
        case '$nin': {
          const { values, hasNull } = splitNull(value, op);
          const inList = `${column} IN (SELECT value FROM json_each(?))`;
          clauses.push(
            op === '$in'
              ? hasNull
                ? `(${inList} OR ${column} IS NULL)`
                : inList
              : hasNull
                ? `(${column} IS NOT NULL AND NOT ${inList})`
                : `(${column} IS NULL OR NOT ${inList})`,
          );
          params.push(JSON.stringify(values));
          break;
        }
        default:
          clauses.push(`${column} ${RANGE_OPERATORS[op]} ?`);
          params.push(rangeValue(op, value));
      }
    }
  }

  /**
   * Conditions on an array field hold when some element satisfies them (each operator on
   * its own, as in MongoDB); negations hold when no element matches.
   */
  private compileMultikey(field: string, condition: FieldCondition, clauses: string[], params: unknown[]): void {
    const elements = (test: string) => `_id IN (SELECT id FROM ${this.sideTable} WHERE field = '${field}' AND ${test})`;
    for (const [op, value] of operators(condition)) {
      switch (op) {
        case '$eq':
          // MongoDB's null also matches a missing field, which has no element rows.
          if (value === null) clauses.push(`(${this.column(field)} IS NULL OR ${elements('value IS NULL')})`);
          else {
            clauses.push(elements('value = ?'));
            params.push(bindable(value as Scalar));
          }
          break;
        case '$ne':
          clauses.push(value === null ? `NOT (${this.column(field)} IS NULL OR ${elements('value IS NULL')})` : `NOT ${elements('value = ?')}`);
          if (value !== null) params.push(bindable(value as Scalar));
          break;
        case '$in':
        case '$nin': {
          const { values, hasNull } = splitNull(value, op);
          const test = `${elements('value IN (SELECT value FROM json_each(?))')}${
            hasNull ? ` OR ${this.column(field)} IS NULL OR ${elements('value IS NULL')}` : ''
          }`;
          clauses.push(op === '$in' ? `(${test})` : `NOT (${test})`);
          params.push(JSON.stringify(values));
          break;
        }
        default:
          clauses.push(elements(`value ${RANGE_OPERATORS[op]} ?`));
          params.push(rangeValue(op, value));
      }
    }
  }
}


/** A field's own column; the prefix keeps it apart from _id and doc. */
const columnName = (field: string) => `"f_${field}"`;

/**
 * What json_extract would read from the document's JSON for a top-level field: JSON
 * true/false as 1/0, absent or null as NULL, objects and arrays as their JSON text.
 */
function columnValue(value: unknown): string | number | null {
  const json = typeof (value as { toJSON?: unknown } | null)?.toJSON === 'function' ? (value as { toJSON(): unknown }).toJSON() : value;
  if (json === undefined || json === null) return null;
  if (typeof json === 'boolean') return json ? 1 : 0;
  if (typeof json === 'number') return Number.isFinite(json) ? json : null;
  if (typeof json === 'string') return json;
  return JSON.stringify(json);
}

/** Names the index by what it is, so a changed declaration creates a new index. */
function indexKey(spec: IndexSpec): string {
  const where = Object.entries(spec.where ?? {})
    .map(([field, value]) => `${field}=${value}`)
    .join(',');
  return `${spec.fields.join(',')}${spec.unique ? ':unique' : ''}${spec.multikey ? ':multikey' : ''}${where ? `:where:${where}` : ''}`;
}

// ":col": built on columns. Indexes of the earlier expression form are dropped as undeclared.
const indexName = (collection: string, spec: IndexSpec) => `"ix:${collection}:${indexKey(spec)}:col"`;

type Operator = '$eq' | '$ne' | '$in' | '$nin' | keyof typeof RANGE_OPERATORS;

function operators(condition: FieldCondition): [Operator, unknown][] {
  if (condition === null || typeof condition !== 'object') return [['$eq', condition]];
  if (Array.isArray(condition)) throw new Error('a filter value cannot be an array; use $in');
  // Optional bounds left undefined (e.g. `{ $gte: from, $lt: until }`) impose nothing.
  const entries = Object.entries(condition).filter(([, value]) => value !== undefined);
  if (entries.length === 0) throw new Error('empty filter condition');
  for (const [op] of entries) {
    if (op !== '$ne' && op !== '$in' && op !== '$nin' && !(op in RANGE_OPERATORS)) {
      throw new Error(`unsupported filter operator: ${op}`);
    }
  }
  return entries as [Operator, unknown][];
}

function splitNull(value: unknown, op: string): { values: (string | number)[]; hasNull: boolean } {
  if (!Array.isArray(value)) throw new Error(`${op} needs an array`);
  // Booleans travel as JSON true/false, which json_each yields as 1/0 like json_extract.
  const values = (value as Scalar[]).map(bindable);
  return { values: values.filter((v): v is string | number => v !== null), hasNull: values.includes(null) };
}

function rangeValue(op: string, value: unknown): string | number {
  const bound = bindable(value as Scalar);
  if (bound === null) throw new Error(`${op} needs a non-null value`);
  return bound;
}
