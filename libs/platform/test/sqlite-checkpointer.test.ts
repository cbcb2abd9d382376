import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
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

  it('leave a small WAL for up to maxDelayMs, so that its fsyncs do not come at every interval', async () => {
    const file = join(dir, 'rm.sqlite');
    const store = SqliteReadModelStore.open(file, { backgroundCheckpoints: { intervalMs: 50, minFrames: 1000, maxDelayMs: 1500 } });
    const docs = store.collection<{ _id: number; text: string }>('docs');
    try {
      const before = statSync(file).size;
      // About 50 frames: far below minFrames.
      await store.batch(async () => {
        for (let i = 0; i < 50; i++) await docs.put({ _id: i, text: 'x'.repeat(3000) });
      });
      await sleep(700);
      expect(statSync(file).size).toBe(before);
      expect(await sizeReaches(file, before + 100_000, 5000)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it('checkpoint at once when minFrames wait, long before maxDelayMs', async () => {
    const file = join(dir, 'rm.sqlite');
    const store = SqliteReadModelStore.open(file, { backgroundCheckpoints: { intervalMs: 50, minFrames: 20, maxDelayMs: 60_000 } });
    const docs = store.collection<{ _id: number; text: string }>('docs');
    try {
      const before = statSync(file).size;
      await store.batch(async () => {
        for (let i = 0; i < 50; i++) await docs.put({ _id: i, text: 'x'.repeat(3000) });
      });
      expect(await sizeReaches(file, before + 100_000, 5000)).toBe(true);
    } finally {
      await store.close();
    }
  });

  /** Four 2,000-character documents or facts per write. */
  const BYTES_PER_WRITE = 4 * 2000;
  const text = (c: string) => c.repeat(BYTES_PER_WRITE / 4);

  /**
   * Writes `bytes` at up to 8 MB/s, returning the largest WAL size seen. A fixed amount,
   * not a fixed time: after a restart the WAL keeps up to journal_size_limit (4 MiB), a
   * floor that a slow run writing less in the same time would come too close to. A
   * bounded rate: the WAL grows by what is written between two checkpoints (100 ms), so
   * a fast machine writing unpaced would outgrow any fixed bound.
   */
  async function writeSteadily(wal: string, bytes: number, write: (i: number) => Promise<void>): Promise<number> {
    const bytesPerMs = 8000;
    const started = Date.now();
    let largest = 0;
    for (let i = 0; i * BYTES_PER_WRITE < bytes; i++) {
      await write(i);
      const due = started + (i * BYTES_PER_WRITE) / bytesPerMs;
      // As a server does between requests: timers and the worker's messages run.
      await new Promise((resolve) => (Date.now() < due ? setTimeout(resolve, due - Date.now()) : setImmediate(resolve)));
      if (existsSync(wal)) largest = Math.max(largest, statSync(wal).size);
    }
    return largest;
  }

  /**
   * Without restarts the WAL would hold everything written since the start. Half of it is
   * the bound: on an idle machine the WAL stays under a sixth, but the checkpoints run on a
   * worker thread, which a loaded two-core machine (other test files, other processes)
   * starves for whole seconds.
   */
  const WRITTEN = 24_000_000;

  it('keep a read-model WAL bounded under steady writes: it starts over once large', async () => {
    const file = join(dir, 'rm.sqlite');
    // 100 frames: about 400 KB.
    const store = SqliteReadModelStore.open(file, { backgroundCheckpoints: { intervalMs: 100, restartFrames: 100 }, commitWithinMs: 5 });
    const docs = store.collection<{ _id: number; text: string }>('docs');
    try {
      const largest = await writeSteadily(`${file}-wal`, WRITTEN, (i) =>
        store.batch(async () => {
          for (let k = 0; k < 4; k++) await docs.put({ _id: i * 4 + k, text: text('x') });
        }),
      );
      expect(largest).toBeLessThan(WRITTEN / 2);
      expect((await docs.get(0))?.text).toHaveLength(2000);
    } finally {
      await store.close();
    }
  }, 60_000);

  it('keep an event-store WAL bounded under steady appends', async () => {
    const file = join(dir, 'events.sqlite');
    const store = SqliteEventStore.open(file, { backgroundCheckpoints: { intervalMs: 100, restartFrames: 100 } });
    try {
      const largest = await writeSteadily(`${file}-wal`, WRITTEN, async (i) => {
        await Promise.all(
          Array.from({ length: 4 }, (_, k) => store.append(`s-${i}-${k}`, [{ id: `f-${i}-${k}`, type: 'Big', data: { text: text('y') } }], 'no_stream')),
        );
      });
      expect(largest).toBeLessThan(WRITTEN / 2);
      expect(await store.readStream('s-0-0')).toHaveLength(1);
    } finally {
      await store.close();
    }
  }, 60_000);

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
