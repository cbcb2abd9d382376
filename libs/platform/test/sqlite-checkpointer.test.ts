import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteEventStore } from '../src/adapters/sqlite-event-store';
import { SqliteReadModelStore } from '../src/adapters/sqlite-read-models';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sizeReaches(file: string, bytes: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (Date.now() < deadline) {
    if (statSync(file).size >= bytes) return true;
    await sleep(50);
  }
  return false;
}

describe('background WAL checkpoints', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'teamchat-checkpoint-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('copy read-model writes into the database file without a commit doing it', async () => {
    const file = join(dir, 'rm.sqlite');
    const store = SqliteReadModelStore.open(file, { backgroundCheckpoints: true });
    const docs = store.collection<{ _id: number; text: string }>('docs');
    // 2 MB, below SQLite's own threshold (1000 pages): only the worker moves it.
    await store.batch(async () => {
      for (let i = 0; i < 1000; i++) await docs.put({ _id: i, text: 'x'.repeat(2000) });
    });
    expect(statSync(file).size).toBeLessThan(500_000);
    expect(await sizeReaches(file, 2_000_000, 5000)).toBe(true);
    expect((await docs.get(999))?.text).toHaveLength(2000);
    await store.close();
  });

  it('copy event-store appends into the database file, and the store reopens with them', async () => {
    const file = join(dir, 'events.sqlite');
    const store = SqliteEventStore.open(file, { backgroundCheckpoints: true });
    const facts = Array.from({ length: 500 }, (_, i) => ({ id: `f${i}`, type: 'Big', data: { text: 'y'.repeat(4000) } }));
    await store.append('s', facts, 'no_stream');
    expect(await sizeReaches(file, 2_000_000, 5000)).toBe(true);
    await store.close();
    const reopened = SqliteEventStore.open(file);
    expect(await reopened.readStream('s')).toHaveLength(500);
    await reopened.close();
  });
});
