import type Database from 'better-sqlite3';
import type { IndexSpec } from '../ports/read-models';
import { SqliteTextIndex } from './sqlite-text-index';
import { isSqliteBusy } from './sqlite-wal';

/**
 * Field and collection names end up inside SQL text (json paths, table and index names),
 * where they cannot be bound as parameters; this keeps them inert.
 */
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export function checkName(kind: string, name: string): string {
  if (!NAME.test(name)) throw new Error(`invalid ${kind} name: ${JSON.stringify(name)}`);
  return name;
}

/**
 * A collection's tables, columns and indexes: what its declared indexes need, and bringing
 * the file in line with them. The document table holds each document as JSON, plus a real
 * column for every field an index names (kept equal to what json_extract would read from
 * the document), which the indexes are built on; the side table holds multikey fields'
 * elements.
 */
export class CollectionSchema {
  readonly table: string;
  readonly sideTable: string;
  private readonly indexes: IndexSpec[] = [];
  readonly multikey = new Set<string>();
  /** The fields indexes name (besides _id and multikey fields): each has a column of its own. */
  columns: string[] = [];
  private readonly columnSet = new Set<string>();
  /** The text index, when one is declared (IndexSpec.text). */
  text: SqliteTextIndex | undefined;
  /** Whether the file is known to match the declaration. */
  ready = false;

  constructor(readonly name: string) {
    this.table = `"c_${name}"`;
    // Array elements of multikey fields, one row each, so "contains" is an index lookup.
    this.sideTable = `"m_${name}"`;
  }

  declare(indexes: IndexSpec[]): void {
    for (const spec of indexes) {
      if (spec.fields.length === 0) throw new Error(`collection ${this.name}: an index needs fields`);
      for (const field of spec.fields) checkName('field', field);
      if (spec.text) {
        if (spec.fields.length !== 1 || spec.unique || spec.multikey || spec.where || spec.fields[0] === '_id') {
          throw new Error(`collection ${this.name}: a text index covers one field, and is nothing else`);
        }
        if (this.text && this.text.field !== spec.fields[0]) throw new Error(`collection ${this.name}: one text index per collection`);
        this.text ??= new SqliteTextIndex(this.name, spec.fields[0]!);
        this.ready = false;
        continue;
      }
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

  upsertSql(): string {
    const names = this.columns.map(columnName);
    return (
      `INSERT INTO ${this.table} (_id, doc${names.map((n) => `, ${n}`).join('')}) VALUES (?, ?${', ?'.repeat(names.length)})` +
      ` ON CONFLICT (_id) DO UPDATE SET doc = excluded.doc${names.map((n) => `, ${n} = excluded.${n}`).join('')}`
    );
  }

  forget(): void {
    this.ready = false;
  }

  /**
   * Creates what is missing and drops what is no longer declared, in one transaction.
   * A schema as declared is only read. One that must change is read, then written: if
   * another process (an operator tool beside a running server) committed in between,
   * SQLite refuses the write at once (SQLITE_BUSY_SNAPSHOT, "database is locked", which no
   * busy handler waits out), and the check runs again taking the write lock first. Not
   * always first: a store opened while another connection of this thread holds an open
   * transaction (a crash test, a second store in one process) would wait on itself.
   */
  ensure(db: Database.Database): void {
    try {
      this.check(db);
    } catch (err) {
      if (!isSqliteBusy(err) || db.inTransaction) throw err;
      this.check(db, true);
    }
    this.ready = true;
  }

  private check(db: Database.Database, writeLockFirst = false): void {
    const run = db.transaction(() => {
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
          this.populateMultikey(db, spec.fields[0]!);
          continue;
        }
        // A partial index leads with the columns of its own condition. Without them SQLite
        // cannot tell from the index alone that an entry meets the query's condition, and
        // looks each one up in the table (a B-tree descent per entry: 29,000 unread rows
        // of one user cost 24,000 page reads rather than 300). Leading rather than
        // trailing, they are equalities the ORDER BY skips, so order still comes from
        // the index.
        const conditions = Object.keys(spec.where ?? {});
        const columns = [...conditions, ...spec.fields].map((f) => this.column(f)).join(', ');
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
      if (this.text) this.text.ensure(db, this.table);
      else new SqliteTextIndex(this.name, '').drop(db);
    });
    if (writeLockFirst) run.immediate();
    else run();
  }

  /** A field as SQL: its column where an index names it, else read from the document. */
  column(field: string): string {
    checkName('field', field);
    if (field === '_id') return '_id';
    return this.columnSet.has(field) ? columnName(field) : `json_extract(doc, '$.${field}')`;
  }

  /** json_each over a scalar yields that scalar, so a non-array value is indexed as one element. */
  multikeyInsert(field: string, id: string, source: string): string {
    return `INSERT INTO ${this.sideTable} (field, value, id)
      SELECT '${field}', j.value, ${id} FROM ${source} AS j WHERE j.type NOT IN ('object', 'array')`;
  }

  /** Indexes the documents stored before the field was declared multikey. */
  private populateMultikey(db: Database.Database, field: string): void {
    const known = db
      .prepare('SELECT 1 FROM _multikey_fields WHERE collection = ? AND field = ?')
      .get(this.name, field);
    if (known) return;
    db.prepare(this.multikeyInsert(field, 'c._id', `${this.table} AS c, json_each(c.doc, '$.${field}')`)).run();
    db.prepare('INSERT INTO _multikey_fields (collection, field) VALUES (?, ?)').run(this.name, field);
  }
}

/** A field's own column; the prefix keeps it apart from _id and doc. */
const columnName = (field: string) => `"f_${field}"`;

/**
 * What json_extract would read from the document's JSON for a top-level field: JSON
 * true/false as 1/0, absent or null as NULL, objects and arrays as their JSON text.
 */
export function columnValue(value: unknown): string | number | null {
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

// ":col": built on columns. Indexes of the earlier expression form are dropped as undeclared,
// as are partial indexes of the form without their condition's columns (":col" alone).
const indexName = (collection: string, spec: IndexSpec) => `"ix:${collection}:${indexKey(spec)}:${spec.where ? 'cover' : 'col'}"`;
