/**
 * The event store acknowledges an append, and hands its facts to subscribers, only after
 * an fsync of the WAL that began after the commit. Here every fsync is held back until
 * the test releases it, to show that nothing gets out before.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

type Callback = (err: NodeJS.ErrnoException | null) => void;
const held: (() => void)[] = [];
/** For each inline sync, how many appends had been acknowledged when it began. */
const inlineSyncs: number[] = [];
let acknowledgedCount = 0;
const acknowledgedSoFar = () => acknowledgedCount;

jest.mock('node:fs', () => {
  const actual = jest.requireActual<typeof import('node:fs')>('node:fs');
  return {
    ...actual,
    // The store syncs its WAL with fdatasync (see WalSync); the real one runs when the test releases it.
    fdatasync: (fd: number, callback: Callback) => {
      held.push(() => actual.fdatasync(fd, callback));
    },
    // A lone append's inline sync (syncLoneInline): recorded, then run.
    fdatasyncSync: (fd: number) => {
      inlineSyncs.push(acknowledgedSoFar());
      actual.fdatasyncSync(fd);
    },
  };
});

// Imported after the mock, so the adapter binds the held-back fsync.
import { SqliteEventStore } from '../src/adapters/sqlite-event-store';
import type { StoredFact } from '../src/ports/event-store';

const releaseAll = () => {
  for (const release of held.splice(0)) release();
};

describe('SqliteEventStore durability', () => {
  let dir: string;
  let store: SqliteEventStore;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'teamchat-durability-'));
    store = SqliteEventStore.open(join(dir, 'events.sqlite'), { pollIntervalMs: 5 });
  });
  afterEach(async () => {
    const closing = store.close();
    // close() waits for the fsync in flight.
    while (held.length) {
      releaseAll();
      await sleep(1);
    }
    await closing;
    rmSync(dir, { recursive: true, force: true });
  });

  it('neither acknowledges an append nor delivers its facts before the WAL fsync completes', async () => {
    const delivered: StoredFact[] = [];
    store.subscribeToAll(async (fact) => {
      delivered.push(fact);
    });
    let acknowledged = false;
    const append = store.append('s', [{ id: 'f1', type: 'Thing', data: { n: 1 } }], 'no_stream').then((result) => {
      acknowledged = true;
      return result;
    });

    await sleep(50);
    // Committed (another connection could read it) but not yet durable: held back.
    expect(held.length).toBeGreaterThan(0);
    expect(acknowledged).toBe(false);
    expect(delivered).toEqual([]);

    releaseAll();
    const { positions } = await append;
    await sleep(20);
    expect(acknowledged).toBe(true);
    expect(delivered.map((f) => f.position)).toEqual(positions);
  });

  it('covers the commits made while an fsync runs with the next one (group commit)', async () => {
    const first = store.append('a', [{ id: 'a1', type: 'Thing', data: {} }], 'no_stream');
    await sleep(20);
    expect(held).toHaveLength(1);
    // These commit while the first fsync is held: they wait for one more fsync, not one each.
    const later = [1, 2, 3].map((n) => store.append(`b${n}`, [{ id: `b${n}`, type: 'Thing', data: {} }], 'no_stream'));
    await sleep(20);
    expect(held).toHaveLength(1);
    releaseAll();
    await first;
    await sleep(20);
    expect(held).toHaveLength(1);
    releaseAll();
    const results = await Promise.all(later);
    expect(results.map((r) => r.positions.length)).toEqual([1, 1, 1]);
  });

  it('syncs a lone append on the calling thread before acknowledging it, and batches behind a sync in flight as before', async () => {
    const dir2 = mkdtempSync(join(tmpdir(), 'teamchat-durability-inline-'));
    const inline = SqliteEventStore.open(join(dir2, 'events.sqlite'), { pollIntervalMs: 5, syncLoneInline: true });
    try {
      const delivered: StoredFact[] = [];
      inline.subscribeToAll(async (fact) => {
        delivered.push(fact);
      });
      const count = <T>(p: Promise<T>) => p.then((value) => ((acknowledgedCount += 1), value));
      inlineSyncs.length = 0;
      acknowledgedCount = 0;
      const lone = await count(inline.append('lone', [{ id: 'l1', type: 'Thing', data: { n: 1 } }], 'no_stream'));
      // One inline sync, begun before the append was acknowledged; no fsync through the pool.
      expect(inlineSyncs).toEqual([0]);
      expect(held).toHaveLength(0);
      await sleep(20);
      expect(delivered.map((f) => f.position)).toContain(lone.positions[0]);
      // Two appends in one turn commit together: their sync goes through the pool, held back here.
      const pair = ['p1', 'p2'].map((id) => count(inline.append(id, [{ id, type: 'Thing', data: {} }], 'no_stream')));
      await sleep(20);
      expect(held).toHaveLength(1);
      expect(acknowledgedCount).toBe(1);
      releaseAll();
      await Promise.all(pair);
      expect(acknowledgedCount).toBe(3);
    } finally {
      const closing = inline.close();
      while (held.length) {
        releaseAll();
        await sleep(1);
      }
      await closing;
      rmSync(dir2, { recursive: true, force: true });
    }
  });
});
