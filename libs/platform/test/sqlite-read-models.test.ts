import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteReadModelStore, type Doc } from '@teamchat/platform';
import { readModelContract, textIndexContract } from '@teamchat/platform/testing';
import Database from 'better-sqlite3';
import { Worker } from 'node:worker_threads';

function tempFile(): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'teamchat-read-models-'));
  return { file: join(dir, 'read-models.sqlite'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

const openSqlite = async () => {
  const { file, remove } = tempFile();
  let store = SqliteReadModelStore.open(file);
  return {
    store,
    atomicBatch: true,
    reopen: async () => {
      await store.close();
      store = SqliteReadModelStore.open(file);
      return store;
    },
    cleanup: async () => {
      await store.close();
      remove();
    },
  };
};
readModelContract('SqliteReadModelStore', openSqlite);
textIndexContract('SqliteReadModelStore', openSqlite);

// The same contract with group commit: finished batches wait in an open transaction.
readModelContract('SqliteReadModelStore (group commit)', async () => {
  const { file, remove } = tempFile();
  let store = SqliteReadModelStore.open(file, { commitWithinMs: 5 });
  return {
    store,
    atomicBatch: true,
    reopen: async () => {
      await store.close();
      store = SqliteReadModelStore.open(file, { commitWithinMs: 5 });
      return store;
    },
    cleanup: async () => {
      await store.close();
      remove();
    },
  };
});

describe('SqliteReadModelStore with group commit', () => {
  let file: string;
  let remove: () => void;
  let store: SqliteReadModelStore;
  /** Another connection to the file: it sees only what was committed. */
  let other: Database.Database;
  const committedIds = () => (other.prepare('SELECT _id FROM c_items ORDER BY _id').pluck().all() as string[]);

  beforeEach(() => {
    ({ file, remove } = tempFile());
    store = SqliteReadModelStore.open(file, { commitWithinMs: 50 });
    store.collection<Doc>('items');
    other = new Database(file, { readonly: true });
  });
  afterEach(async () => {
    other.close();
    await store.close();
    remove();
  });

  it('shows finished batches at once and commits them together within the window', async () => {
    const items = store.collection<Doc>('items');
    await store.batch(() => items.put({ _id: 'a' }));
    await store.batch(() => items.put({ _id: 'b' }));
    expect(await items.find({})).toEqual([{ _id: 'a' }, { _id: 'b' }]);
    expect(committedIds()).toEqual([]);
    await sleep(100);
    expect(committedIds()).toEqual(['a', 'b']);
  });

  it('keeps a lone batch open for the window too: the next writes share its commit', async () => {
    const items = store.collection<Doc>('items');
    await store.batch(() => items.put({ _id: 'lone' }));
    // The thread goes idle, and still nothing is committed: the window has not ended.
    await new Promise((resolve) => setImmediate(resolve));
    await sleep(1);
    expect(committedIds()).toEqual([]);
    await store.batch(() => items.put({ _id: 'next' }));
    await sleep(100);
    expect(committedIds()).toEqual(['lone', 'next']);
  });

  it('commits at once when asked to make the finished batches durable', async () => {
    const items = store.collection<Doc>('items');
    await store.batch(() => items.put({ _id: 'acknowledged' }));
    expect(committedIds()).toEqual([]);
    await store.durable();
    expect(committedIds()).toEqual(['acknowledged']);
    // Nothing left open: the next batch starts a transaction of its own.
    await store.durable();
    expect(committedIds()).toEqual(['acknowledged']);
  });

  it('undoes a failed batch alone, keeping the finished ones before it', async () => {
    const items = store.collection<Doc>('items');
    await store.batch(() => items.put({ _id: 'kept' }));
    await expect(
      store.batch(async () => {
        await items.put({ _id: 'undone' });
        throw new Error('projection failed');
      }),
    ).rejects.toThrow('projection failed');
    expect(await items.get('undone')).toBeUndefined();
    await sleep(100);
    expect(committedIds()).toEqual(['kept']);
  });

  // SQLite's temporary files are unlinked once open: only /proc shows them (etilqs_*).
  const openTempFiles = () =>
    readdirSync('/proc/self/fd').flatMap((fd) => {
      try {
        return readlinkSync(`/proc/self/fd/${fd}`).includes('etilqs_') ? [fd] : [];
      } catch {
        return [];
      }
    });

  (existsSync('/proc/self/fd') ? it : it.skip)('keeps a batch\'s savepoint journal in memory, not in a temporary file', async () => {
    const items = store.collection<Doc>('items');
    const big = 'x'.repeat(2000);
    await store.batch(async () => {
      for (let i = 0; i < 300; i++) await items.put({ _id: `doc-${i}`, body: big });
    });
    // The second batch joins the open transaction as a savepoint. Rewriting pages that
    // existed when it began journals each of them first: a few hundred KiB, far beyond
    // the 64 KiB SQLite holds in memory before it spills to a file, unless temp_store is MEMORY.
    let during: string[] = [];
    await store.batch(async () => {
      for (let i = 0; i < 300; i++) await items.put({ _id: `doc-${i}`, body: big.toUpperCase() });
      during = openTempFiles();
    });
    expect(during).toEqual([]);
    expect((await items.get('doc-7'))?.body).toBe(big.toUpperCase());
  });

  it('waits for another writer of the file without blocking the thread that holds an open transaction', async () => {
    // A second store on the same file, as an operator tool beside a running server has:
    // its batch finds the write lock held by the first store's open transaction, which
    // commits only when this thread's timer for it runs. Sleeping on the thread for the
    // lock (SQLite's busy handler) kept that timer from running until the 5 s timeout.
    const second = SqliteReadModelStore.open(file, { commitWithinMs: 50 });
    try {
      const items = store.collection<Doc>('items');
      const theirs = second.collection<Doc>('items');
      await store.batch(() => items.put({ _id: 'first' }));
      const started = Date.now();
      await second.batch(() => theirs.put({ _id: 'second' }));
      expect(Date.now() - started).toBeLessThan(4000);
      await second.durable();
      expect(committedIds()).toEqual(['first', 'second']);
    } finally {
      await second.close();
    }
  });

  it('commits what is pending when closed', async () => {
    const items = store.collection<Doc>('items');
    await store.batch(() => items.put({ _id: 'last' }));
    await store.close();
    expect(committedIds()).toEqual(['last']);
    store = SqliteReadModelStore.open(file, { commitWithinMs: 50 });
  });
});

interface Message extends Doc {
  _id: number;
  recipients: number[];
  topic: string;
}

describe('SqliteReadModelStore', () => {
  let file: string;
  let remove: () => void;
  let store: SqliteReadModelStore;

  beforeEach(() => {
    ({ file, remove } = tempFile());
    store = SqliteReadModelStore.open(file);
  });
  afterEach(async () => {
    await store.close();
    remove();
  });

  it('answers a filter that requires the partial index condition from that index', async () => {
    const rows = store.collection<Doc>('rows', [{ fields: ['user_id', 'message_id'] }, { fields: ['user_id', 'message_id'], where: { unread: true } }]);
    for (let i = 1; i <= 50; i++) await rows.put({ _id: i, user_id: 1, message_id: i, unread: i % 10 === 0 });
    expect(await rows.findIds({ user_id: 1, unread: true }, { sort: ['message_id', 1] })).toEqual([10, 20, 30, 40, 50]);
    const plan = (
      // The statement the adapter prepares for that find: bound user id, literal flag.
      (store as unknown as { db: { prepare(sql: string): { all(...params: unknown[]): { detail: string }[] } } }).db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT _id FROM "c_rows" WHERE "f_user_id" = ? AND "f_unread" = 1 ORDER BY "f_message_id" ASC, _id ASC`,
        )
        .all(1)
    ).map((row) => row.detail);
    expect(plan.join(' ')).toContain('COVERING INDEX ix:rows:user_id,message_id:where:unread=true:cover');
    // Ordered by the index, not sorted afterwards.
    expect(plan.join(' ')).not.toContain('TEMP B-TREE');
    // Each entry is taken as it is: no seek into the table to check the condition.
    const opcodes = (store as unknown as { db: { prepare(sql: string): { all(...params: unknown[]): { opcode: string }[] } } }).db
      .prepare(`EXPLAIN SELECT "f_message_id" FROM "c_rows" WHERE "f_user_id" = ? AND "f_unread" = 1 ORDER BY "f_message_id" DESC, _id DESC`)
      .all(1)
      .map((row) => row.opcode);
    expect(opcodes).not.toContain('NotFound');
  });

  it('replaces a partial index without its condition columns (the earlier form)', async () => {
    const db = (store as unknown as { db: { exec(sql: string): void; prepare(sql: string): { all(): { name: string }[] } } }).db;
    const first = store.collection<Doc>('flags', [{ fields: ['user_id'] }]);
    await first.put({ _id: 1, user_id: 1, message_id: 5, unread: true });
    await first.put({ _id: 2, user_id: 1, message_id: 6, unread: false });
    db.exec(`ALTER TABLE "c_flags" ADD COLUMN "f_message_id" ANY; ALTER TABLE "c_flags" ADD COLUMN "f_unread" ANY;
      UPDATE "c_flags" SET "f_message_id" = json_extract(doc, '$.message_id'), "f_unread" = json_extract(doc, '$.unread');
      CREATE INDEX "ix:flags:user_id,message_id:where:unread=true:col" ON "c_flags" ("f_user_id", "f_message_id") WHERE "f_unread" = 1;`);
    await store.close();
    store = SqliteReadModelStore.open(file);
    const flags = store.collection<Doc>('flags', [{ fields: ['user_id'] }, { fields: ['user_id', 'message_id'], where: { unread: true } }]);
    expect(await flags.findIds({ user_id: 1, unread: true }, { sort: ['message_id', -1] })).toEqual([1]);
    const names = (store as unknown as { db: typeof db }).db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c_flags' ORDER BY name`)
      .all()
      .map((row) => row.name);
    expect(names).toEqual(['ix:flags:user_id,message_id:where:unread=true:cover', 'ix:flags:user_id:col']);
  });

  it('scans an index without reading the table when only ids are wanted', async () => {
    const rows = store.collection<Doc>('rows', [{ fields: ['user_id', 'message_id'] }]);
    for (let i = 1; i <= 20; i++) await rows.put({ _id: i, user_id: i % 2, message_id: i });
    expect(await rows.findIds({ user_id: 1, message_id: { $lt: 10 } }, { sort: ['message_id', -1], limit: 3 })).toEqual([9, 7, 5]);
    const opcodes = (store as unknown as { db: { prepare(sql: string): { all(...params: unknown[]): { opcode: string; p1: number }[] } } }).db
      .prepare(`EXPLAIN SELECT _id FROM "c_rows" WHERE "f_user_id" = ? AND "f_message_id" < ? ORDER BY "f_message_id" DESC, _id DESC LIMIT ?`)
      .all(1, 10, 3)
      .map((row) => row.opcode);
    // An index over json_extract expressions costs a seek into the table per entry (NotFound).
    expect(opcodes).toContain('SeekLT');
    expect(opcodes).not.toContain('NotFound');
  });

  it('moves a collection kept as expression indexes onto columns, documents and all', async () => {
    const db = (store as unknown as { db: { exec(sql: string): void } }).db;
    // The layout earlier versions wrote.
    db.exec(`CREATE TABLE "c_old" (_id ANY PRIMARY KEY NOT NULL, doc TEXT NOT NULL) STRICT, WITHOUT ROWID;
      CREATE INDEX "ix:old:a" ON "c_old" (json_extract(doc, '$.a'));
      INSERT INTO "c_old" VALUES (1, '{"_id":1,"a":5,"flag":true}'), (2, '{"_id":2,"a":"x","flag":false}'), (3, '{"_id":3}');`);
    const old = store.collection<Doc>('old', [{ fields: ['a'] }, { fields: ['a'], where: { flag: true } }]);
    expect(await old.findIds({ a: 5 })).toEqual([1]);
    expect(await old.findIds({ a: 'x' })).toEqual([2]);
    expect(await old.findIds({ a: null }, { sort: ['_id', 1] })).toEqual([3]);
    expect(await old.findIds({ flag: true })).toEqual([1]);
    const names = (store as unknown as { db: { prepare(sql: string): { all(): { name: string }[] } } }).db
      .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c_old' ORDER BY name`)
      .all()
      .map((row) => row.name);
    expect(names).toEqual(['ix:old:a:col', 'ix:old:a:where:flag=true:cover']);
  });

  it('keeps each column what json_extract reads from the document', async () => {
    const items = store.collection<Doc>('items', [{ fields: ['v'] }]);
    const values: unknown[] = [1, 1.5, -0, 'text', '', true, false, null, undefined, [1, 'a'], { b: { c: 1 } }, new Date(0), Number.NaN];
    for (const [i, v] of values.entries()) await items.put({ _id: i, ...(v === undefined ? {} : { v }) } as Doc);
    const mismatches = (store as unknown as { db: { prepare(sql: string): { all(): unknown[] } } }).db
      .prepare(`SELECT _id FROM "c_items" WHERE "f_v" IS NOT json_extract(doc, '$.v') OR typeof("f_v") <> typeof(json_extract(doc, '$.v')) AND typeof("f_v") NOT IN ('integer', 'real')`)
      .all();
    expect(mismatches).toEqual([]);
  });

  it('drops the indexes a collection no longer declares', async () => {
    const indexes = () =>
      ((store as unknown as { db: { prepare(sql: string): { all(): { name: string }[] } } }).db
        .prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'c_items' AND name LIKE 'ix:%'`)
        .all()).map((row) => row.name).sort();
    const items = store.collection<Doc>('items', [{ fields: ['a'] }, { fields: ['b'] }]);
    await items.put({ _id: 1, a: 1, b: 2 });
    expect(indexes()).toEqual(['ix:items:a:col', 'ix:items:b:col']);
    await store.close();
    store = SqliteReadModelStore.open(file);
    const reopened = store.collection<Doc>('items', [{ fields: ['b'] }]);
    expect(await reopened.findIds({ b: 2 })).toEqual([1]);
    expect(indexes()).toEqual(['ix:items:b:col']);
    // The column of the dropped index goes too, so that it cannot go stale meanwhile:
    // declared again later, it is filled from the documents as they are then.
    await reopened.put({ _id: 1, a: 10, b: 2 });
    await store.close();
    store = SqliteReadModelStore.open(file);
    const again = store.collection<Doc>('items', [{ fields: ['a'] }, { fields: ['b'] }]);
    expect(await again.findIds({ a: 10 })).toEqual([1]);
    expect(await again.findIds({ a: 1 })).toEqual([]);
  });

  it('indexes the elements of documents stored before a field was declared multikey', async () => {
    const before = store.collection<Message>('messages', [{ fields: ['topic'] }]);
    await before.put({ _id: 1, recipients: [10, 11], topic: 'a' });
    await before.put({ _id: 2, recipients: [11], topic: 'b' });
    await store.close();
    store = SqliteReadModelStore.open(file);
    const messages = store.collection<Message>('messages', [{ fields: ['topic'] }, { fields: ['recipients'], multikey: true }]);
    expect((await messages.find({ recipients: 11 }, { sort: ['_id', 1] })).map((m) => m._id)).toEqual([1, 2]);
    expect((await messages.find({ recipients: 10 })).map((m) => m._id)).toEqual([1]);
  });

  it('never interleaves two batches', async () => {
    const log: string[] = [];
    const items = store.collection<Doc>('items');
    const batch = (label: string) =>
      store.batch(async () => {
        log.push(`${label} start`);
        await sleep(10);
        await items.put({ _id: label });
        log.push(`${label} end`);
      });
    await Promise.all([batch('a'), batch('b')]);
    expect(log).toEqual(['a start', 'a end', 'b start', 'b end']);
  });

  it('answers reads while a batch is open without waiting for the batch', async () => {
    const items = store.collection<Doc>('items');
    await items.put({ _id: 'before' });
    let opened!: () => void;
    let release!: () => void;
    const batchOpen = new Promise<void>((resolve) => (opened = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    const batch = store.batch(async () => {
      await items.put({ _id: 'inside' });
      opened();
      await released;
    });
    await batchOpen;
    // The batch is still open (it waits for `release`), yet the read is answered.
    expect(await items.get('before')).toEqual({ _id: 'before' });
    release();
    await batch;
    expect(await items.get('inside')).toEqual({ _id: 'inside' });
  });

  it('recreates a collection whose creation a failed batch rolled back', async () => {
    await expect(
      store.batch(async () => {
        const late = store.collection<Doc>('late', [{ fields: ['x'], unique: true }]);
        await late.put({ _id: 1, x: 1 });
        throw new Error('projection failed');
      }),
    ).rejects.toThrow('projection failed');
    const late = store.collection<Doc>('late', [{ fields: ['x'], unique: true }]);
    expect(await late.get(1)).toBeUndefined();
    await late.put({ _id: 2, x: 1 });
    await expect(late.put({ _id: 3, x: 1 })).rejects.toThrow();
  });

  it('opens a collection while another process holds the write lock, waiting for its commit', async () => {
    // Another process (a thread here) takes the write lock, writes, and commits 300 ms
    // later. Opening a collection checks and changes the schema in one transaction that
    // reads it first: once the other commit landed, its write could not be made on that
    // older snapshot (SQLITE_BUSY_SNAPSHOT, "database is locked" at once, which no busy
    // handler waits out); the check then runs again with the write lock taken first.
    // Collections as a running server left them; the other store opens one as declared
    // (only read) and one with an index more (read, then written).
    const things = store.collection<Doc>('things', [{ fields: ['kind'] }]);
    store.collection<Doc>('notes', [{ fields: ['body'], text: true }]);
    await store.batch(() => things.put({ _id: 'a', kind: 'x' }));
    await store.durable();
    const holder = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const db = new (require(workerData.module))(workerData.file);
       db.exec('BEGIN IMMEDIATE');
       db.prepare("INSERT INTO _checkpoints (projector, position) VALUES ('other', 1)").run();
       parentPort.postMessage('locked');
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
       db.exec('COMMIT');
       db.close();
       parentPort.postMessage('committed');`,
      { eval: true, workerData: { file, module: require.resolve('better-sqlite3') } },
    );
    const messages: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      holder.on('message', (m: string) => messages.push(m));
      holder.on('error', reject);
      holder.on('exit', () => resolve());
    });
    while (messages.length === 0) await sleep(5);
    const other = SqliteReadModelStore.open(file);
    try {
      // As declared: only read, so it need not wait.
      expect((await other.collection<Doc>('notes', [{ fields: ['body'], text: true }]).get('none'))).toBeUndefined();
      // One more index: written once the other process has committed.
      const theirs = other.collection<Doc>('things', [{ fields: ['kind'] }, { fields: ['size'] }]);
      expect((await theirs.get('a'))?.kind).toBe('x');
    } finally {
      await other.close();
      await done;
    }
    expect(messages).toEqual(['locked', 'committed']);
  });

  it('rejects invalid collection names', () => {
    expect(() => store.collection('users"; DROP TABLE x; --')).toThrow();
  });
});

describe('SqliteReadModelStore while a projector catches up', () => {
  it('holds a smaller page cache until every catch-up of the file has ended', async () => {
    const { file, remove } = tempFile();
    const store = SqliteReadModelStore.open(file);
    const cacheKib = () => -((store as unknown as { db: Database.Database }).db.pragma('cache_size', { simple: true }) as number);
    try {
      expect(cacheKib()).toBe(262_144);
      store.catchingUp(true);
      store.catchingUp(true);
      expect(cacheKib()).toBe(8_192);
      store.catchingUp(false);
      expect(cacheKib()).toBe(8_192);
      store.catchingUp(false);
      expect(cacheKib()).toBe(262_144);
    } finally {
      await store.close();
      remove();
    }
  });
});
