import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteEventStore } from '../src/adapters/sqlite-event-store';
import { SqliteReadModelStore } from '../src/adapters/sqlite-read-models';
import { enterWalMode } from '../src/adapters/sqlite-wal';

/**
 * Another process holds the write lock of a new (rollback-journal) database file: what a
 * second service meets when it opens the shared event store while the first is switching
 * it to WAL. Resolves once the lock is held. With `holdMs` the holder lets go by itself
 * then (for a store that retries synchronously, blocking this process); without it, it
 * holds until `release` is called, so a slow moment of this process cannot outlast it.
 */
function holdWriteLock(file: string, holdMs?: number): Promise<{ released: Promise<void>; release: () => void }> {
  const script = `
    const Database = require(${JSON.stringify(require.resolve('better-sqlite3'))});
    const db = new Database(${JSON.stringify(file)});
    db.exec('BEGIN IMMEDIATE');
    process.stdout.write('HELD\\n');
    const letGo = () => { db.exec('ROLLBACK'); db.close(); process.exit(0); };
    ${holdMs === undefined ? "process.stdin.on('data', letGo); process.stdin.on('end', letGo);" : `setTimeout(letGo, ${holdMs});`}`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'inherit'] });
  const released = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  const release = () => child.stdin.end('release\n');
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('HELD')) resolve({ released, release });
    });
    child.on('exit', (code) => reject(new Error(`lock holder exited (${code}) before holding the lock`)));
  });
}

describe('entering WAL mode while another process holds the lock', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'teamchat-wal-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('SQLite itself refuses at once, despite the busy timeout (why enterWalMode retries)', async () => {
    const file = join(dir, 'plain.sqlite');
    const { released, release } = await holdWriteLock(file);
    const db = new Database(file, { timeout: 5000 });
    try {
      expect(() => db.pragma('journal_mode = WAL')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
    } finally {
      db.close();
      release();
      await released;
    }
  });

  it('the event store opens once the lock is released', async () => {
    const file = join(dir, 'events.sqlite');
    const { released } = await holdWriteLock(file, 300);
    const store = SqliteEventStore.open(file);
    const { positions } = await store.append('s-1', [{ id: 'f-1', type: 'Noted', data: {} }], 'no_stream');
    expect(positions).toEqual([1]);
    await store.close();
    await released;
    const check = new Database(file);
    expect(check.pragma('journal_mode', { simple: true })).toBe('wal');
    check.close();
  });

  it('the read-model store opens once the lock is released', async () => {
    const file = join(dir, 'rm.sqlite');
    const { released } = await holdWriteLock(file, 300);
    const store = SqliteReadModelStore.open(file);
    const docs = store.collection<{ _id: string; n: number }>('docs');
    await store.batch(() => docs.put({ _id: 'a', n: 1 }));
    expect(await docs.get('a')).toEqual({ _id: 'a', n: 1 });
    await store.close();
    await released;
  });

  /** A connection whose pragma always fails with `err`, counting the attempts. */
  function alwaysFailing(err: Error) {
    const attempts = { count: 0 };
    const db = {
      pragma: () => {
        attempts.count++;
        throw err;
      },
    };
    return { db: db as never, attempts };
  }

  it('gives up with the error when the lock outlasts the timeout', () => {
    const busy = Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY' });
    const { db, attempts } = alwaysFailing(busy);
    expect(() => enterWalMode(db, 50)).toThrow(busy);
    expect(attempts.count).toBeGreaterThan(1);
  });

  it('does not retry other errors', () => {
    const corrupt = Object.assign(new Error('file is not a database'), { code: 'SQLITE_NOTADB' });
    const { db, attempts } = alwaysFailing(corrupt);
    expect(() => enterWalMode(db, 1000)).toThrow(corrupt);
    expect(attempts.count).toBe(1);
  });
});
