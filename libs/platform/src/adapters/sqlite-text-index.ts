import type Database from 'better-sqlite3';
import { textWords, type TextSearch } from '../ports/read-models';

/**
 * A collection's text index (IndexSpec.text) in SQLite: an FTS5 table keyed by the
 * document's id, holding only the index (contentless: the text is in the document
 * already), written in the same transaction as the document.
 *
 * The ascii tokenizer splits exactly where textWords() does, so a word of the port is a
 * token of FTS5 and no language rule (stemming, stop words) comes between them.
 *
 * A word searched as a prefix costs FTS5 a merge of every matching word's postings
 * before the first result, unless it has a prefix index of that length: so up to
 * PREFIX_INDEXED characters it has one, and a longer prefix is expanded, through a
 * vocabulary of the words the index has seen, into an OR of whole words, which FTS5
 * reads lazily in id order (a page of a common word costs the same at any size). A
 * prefix of more than MAX_EXPANSIONS words is left to FTS5's merge (still correct; its
 * cost is that of those words' postings).
 */
export const PREFIX_INDEXED = 3;
/** Measured at a million documents: each OR branch costs FTS5 about 40 µs per page read. */
export const MAX_EXPANSIONS = 32;

export class SqliteTextIndex {
  /** The FTS5 table: one row per document, rowid = _id. */
  readonly table: string;
  /** The words longer than PREFIX_INDEXED the index has held (never pruned: an extra word matches nothing). */
  readonly vocabulary: string;

  constructor(
    readonly collection: string,
    readonly field: string,
  ) {
    this.table = `"t_${collection}"`;
    this.vocabulary = `"v_${collection}"`;
  }

  /** Creates the tables; a new index (or one on another field) is filled from `docTable`'s documents. */
  ensure(db: Database.Database, docTable: string): void {
    db.exec('CREATE TABLE IF NOT EXISTS _text_indexes (collection TEXT PRIMARY KEY, field TEXT NOT NULL) STRICT');
    const known = db.prepare('SELECT field FROM _text_indexes WHERE collection = ?').get(this.collection) as { field: string } | undefined;
    if (known?.field === this.field) return;
    this.drop(db);
    db.exec(`
      CREATE VIRTUAL TABLE ${this.table} USING fts5(words, content='', contentless_delete=1,
        tokenize='ascii', prefix='${Array.from({ length: PREFIX_INDEXED }, (_, i) => i + 1).join(' ')}');
      CREATE TABLE ${this.vocabulary} (word TEXT PRIMARY KEY) STRICT, WITHOUT ROWID;`);
    const insert = db.prepare(`INSERT INTO ${this.table} (rowid, words) VALUES (?, ?)`);
    const remember = db.prepare(this.vocabularyInsert());
    // In pages: better-sqlite3 allows no write while a statement is being iterated.
    const page = db.prepare(`SELECT _id, json_extract(doc, '$.${this.field}') FROM ${docTable} WHERE _id > ? ORDER BY _id LIMIT 1000`).raw(true);
    for (let after: unknown = -Infinity; ; ) {
      const rows = page.all(after) as [unknown, unknown][];
      if (rows.length === 0) break;
      for (const [id, text] of rows) {
        if (typeof text !== 'string' || text === '') continue;
        insert.run(rowid(id), text);
        remember.run(longWordsJson(text));
      }
      after = rows[rows.length - 1]![0];
    }
    db.prepare('INSERT OR REPLACE INTO _text_indexes (collection, field) VALUES (?, ?)').run(this.collection, this.field);
  }

  /** Drops the index's tables (no longer declared, or declared on another field). */
  drop(db: Database.Database): void {
    // Written only if there is something to drop: every collection without a text index
    // runs this at every start, and a write needs the file's write lock.
    const there = (name: string) => db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name.replace(/"/g, '')) !== undefined;
    for (const table of [this.table, this.vocabulary]) if (there(table)) db.exec(`DROP TABLE ${table}`);
    if (there('_text_indexes') && db.prepare('SELECT 1 FROM _text_indexes WHERE collection = ?').get(this.collection)) {
      db.prepare('DELETE FROM _text_indexes WHERE collection = ?').run(this.collection);
    }
  }

  /** SQL reading the indexed text of a stored document (before it is replaced). */
  previousTextSql(docTable: string): string {
    return `SELECT json_extract(doc, '$.${this.field}') FROM ${docTable} WHERE _id = ?`;
  }

  vocabularyInsert(): string {
    return `INSERT OR IGNORE INTO ${this.vocabulary} (word) SELECT value FROM json_each(?)`;
  }

  /**
   * What a put must do to the index: nothing when the text is unchanged (a reaction
   * rewrites the whole document), else the old entry out and the new one in.
   */
  written(statement: (sql: string) => Database.Statement<unknown[], unknown>, id: unknown, previous: unknown, text: unknown): void {
    const before = typeof previous === 'string' ? previous : '';
    const after = typeof text === 'string' ? text : '';
    if (before === after) return;
    const key = rowid(id);
    if (before !== '') statement(`DELETE FROM ${this.table} WHERE rowid = ?`).run(key);
    if (after === '') return;
    statement(`INSERT INTO ${this.table} (rowid, words) VALUES (?, ?)`).run(key, after);
    statement(this.vocabularyInsert()).run(longWordsJson(after));
  }

  deleteSql(): string {
    return `DELETE FROM ${this.table} WHERE rowid = ?`;
  }

  clearSql(): string {
    return `INSERT INTO ${this.table} (${this.table}) VALUES ('delete-all'); DELETE FROM ${this.vocabulary};`;
  }

  /**
   * The FTS5 query for a search, or null when it cannot match (a prefix no word starts
   * with). Every word is checked to be one word and written as a quoted string: nothing
   * a caller passes is read as FTS5 syntax.
   */
  expression(search: TextSearch, statement: (sql: string) => Database.Statement<unknown[], unknown>): string | null {
    const phrases = checkedPhrases(search);
    const parts: string[] = [];
    for (const phrase of phrases) {
      const head = phrase.slice(0, -1);
      const last = phrase[phrase.length - 1]!;
      if ([...last].length <= PREFIX_INDEXED) {
        parts.push(`${quoted(phrase)}*`);
        continue;
      }
      const upper = successor(last);
      const words = (
        upper === undefined
          ? statement(`SELECT word FROM ${this.vocabulary} WHERE word >= ? LIMIT ?`).all(last, MAX_EXPANSIONS + 1)
          : statement(`SELECT word FROM ${this.vocabulary} WHERE word >= ? AND word < ? LIMIT ?`).all(last, upper, MAX_EXPANSIONS + 1)
      ) as { word: string }[];
      const matching = words.filter(({ word }) => word.startsWith(last));
      if (matching.length === 0) return null;
      if (matching.length > MAX_EXPANSIONS) parts.push(`${quoted(phrase)}*`);
      else parts.push(`(${matching.map(({ word }) => quoted([...head, word])).join(' OR ')})`);
    }
    return parts.join(' AND ');
  }
}

/** The phrases of a search, each word checked to be exactly one word of the index. */
export function checkedPhrases(search: TextSearch): string[][] {
  if (!search || !Array.isArray(search.phrases) || search.phrases.length === 0) throw new Error('$text needs at least one phrase');
  for (const phrase of search.phrases) {
    if (!Array.isArray(phrase) || phrase.length === 0) throw new Error('$text: a phrase needs at least one word');
    for (const word of phrase) {
      const words = typeof word === 'string' ? textWords(word) : [];
      if (words.length !== 1 || words[0] !== word) throw new Error(`$text: not one word of the index: ${JSON.stringify(word)}`);
    }
  }
  return search.phrases;
}

const quoted = (words: string[]) => `"${words.join(' ').replace(/"/g, '""')}"`;

function rowid(id: unknown): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) throw new Error(`a collection with a text index needs integer ids, got ${JSON.stringify(id)}`);
  return id;
}

/** The distinct words longer than PREFIX_INDEXED, as JSON (the vocabulary's input). */
function longWordsJson(text: string): string {
  return JSON.stringify([...new Set(textWords(text).filter((w) => w.length > PREFIX_INDEXED && [...w].length > PREFIX_INDEXED))]);
}

/** The least string after every string that starts with `prefix` (code point order, as SQLite compares UTF-8). */
export function successor(prefix: string): string | undefined {
  const points = [...prefix];
  while (points.length > 0) {
    const code = points.pop()!.codePointAt(0)!;
    if (code >= 0x10ffff) continue;
    const next = code + 1 === 0xd800 ? 0xe000 : code + 1;
    return points.join('') + String.fromCodePoint(next);
  }
  return undefined;
}
