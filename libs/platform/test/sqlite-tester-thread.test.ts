/**
 * The read-model store's tester thread (ReadModelStore.offThreadTester): documents read
 * and tested on another thread, at a lower OS priority, seeing what the store's own
 * thread wrote.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { SqliteReadModelStore, type Doc } from '@teamchat/platform';
import { SqliteTesterThread, TESTER_NICE } from '../src/adapters/sqlite-tester-thread';

const MODULE = join(__dirname, 'fixtures', 'multiple-tester.cjs');

interface Numbered extends Doc {
  n: number;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function openStore(options: { commitWithinMs?: number } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'teamchat-tester-'));
  const store = SqliteReadModelStore.open(join(dir, 'read-models.sqlite'), options);
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

/** The nice value of one of this process's threads (field 19 of its stat line). */
function niceOf(tid: number): number {
  const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
}

describe('SqliteReadModelStore.offThreadTester', () => {
  it('answers which documents pass, in the order asked, with what the test returned, and which are missing, seeing writes not yet committed', async () => {
    // A group commit window far longer than the test: the writes stay in the open transaction.
    const store = openStore({ commitWithinMs: 60_000 });
    const docs = store.collection<Numbered>('numbers');
    await store.batch(async () => {
      for (let n = 1; n <= 30; n++) await docs.put({ _id: n, n });
    });
    const tester = store.offThreadTester(MODULE)!;
    expect(await tester.test('numbers', [30, 3, 4, 99, 9, 12, 100], { of: 3 })).toEqual({ passed: [30, 3, 9, 12], values: [10, 1, 3, 4], missing: [99, 100] });
    // A later change is seen too.
    await store.batch(() => docs.put({ _id: 4, n: 6 }));
    expect(await tester.test('numbers', [4, 5], { of: 3 })).toEqual({ passed: [4], values: [2], missing: [] });
    expect(await tester.test('numbers', [], { of: 3 })).toEqual({ passed: [], values: [], missing: [] });
    // One thread per module.
    expect(store.offThreadTester(MODULE)).toBe(tester);
  });

  it('runs at a lower priority than the thread that asks', async () => {
    if (process.platform !== 'linux') {
      console.log('skipped: thread priorities are read from /proc (Linux only)');
      return;
    }
    const store = openStore();
    const tester = store.offThreadTester(MODULE) as SqliteTesterThread;
    const tid = await tester.threadId();
    expect(tid).toBeGreaterThan(0);
    expect(niceOf(tid!)).toBe(TESTER_NICE);
    expect(niceOf(Number(readFileSync('/proc/thread-self/stat', 'utf8').split(' ')[0]))).toBeLessThan(TESTER_NICE);
  });

  it("rejects with the test's error, and keeps serving", async () => {
    const store = openStore();
    const docs = store.collection<Numbered>('numbers');
    await store.batch(() => docs.put({ _id: 1, n: 3 }));
    const tester = store.offThreadTester(MODULE)!;
    await expect(tester.test('numbers', [1], { fail: true })).rejects.toThrow('the test was asked to fail');
    expect(await tester.test('numbers', [1], { of: 3 })).toEqual({ passed: [1], values: [1], missing: [] });
    await expect(tester.test('no such name!', [1], { of: 3 })).rejects.toThrow(/collection/);
  });

  it('rejects every test once its thread cannot start, so that the caller tests on its own', async () => {
    const store = openStore();
    const tester = store.offThreadTester(join(__dirname, 'fixtures', 'no-such-module.cjs'))!;
    const written: string[] = [];
    const write = process.stderr.write;
    process.stderr.write = ((chunk: string) => written.push(String(chunk)) > 0) as unknown as typeof process.stderr.write;
    try {
      await expect(tester.test('numbers', [1], {})).rejects.toThrow();
      await expect(tester.test('numbers', [1], {})).rejects.toThrow();
    } finally {
      process.stderr.write = write;
    }
    expect(written.join('')).toMatch(/tester thread of .* stopped/);
  });

  it('has no thread for a store in memory', () => {
    const store = SqliteReadModelStore.open(':memory:');
    cleanups.push(() => store.close());
    expect(store.offThreadTester(MODULE)).toBeUndefined();
  });
});
