import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { SqliteEventStore, type StoredFact } from '@teamchat/platform';
import { eventStoreContract, waitFor } from '@teamchat/platform/testing';

/** Child processes load the compiled adapter, as separately started services would. */
const ADAPTER = join(__dirname, '../dist/adapters/sqlite-event-store.js');

function tempFile(): { file: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'teamchat-events-'));
  return { file: join(dir, 'events.sqlite'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

eventStoreContract('SqliteEventStore (file)', async () => {
  const { file, remove } = tempFile();
  let store = SqliteEventStore.open(file);
  return {
    store,
    reopen: async () => {
      await store.close();
      store = SqliteEventStore.open(file);
      return store;
    },
    cleanup: async () => {
      await store.close();
      remove();
    },
  };
});

eventStoreContract('SqliteEventStore (:memory:)', async () => {
  const store = SqliteEventStore.open(':memory:');
  return { store, cleanup: () => store.close() };
});

interface Child {
  /** One parsed JSON object per line the child printed. */
  lines: Record<string, unknown>[];
  exited: Promise<number | null>;
}

/** Runs `body` in a separate node process with `SqliteEventStore` and `FILE` in scope. */
function runChild(file: string, body: string): Child {
  const script = `
    const { SqliteEventStore } = require(process.env.ADAPTER);
    const FILE = process.env.FILE;
    (async () => { ${body} })().catch((err) => { console.error(err); process.exit(1); });`;
  const child = spawn(process.execPath, ['-e', script], {
    env: { ...process.env, ADAPTER, FILE: file },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const lines: Record<string, unknown>[] = [];
  let buffered = '';
  child.stdout.on('data', (chunk: Buffer) => {
    buffered += chunk.toString();
    const complete = buffered.split('\n');
    buffered = complete.pop()!;
    for (const line of complete) if (line.trim()) lines.push(JSON.parse(line));
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', (code) => resolve(code));
  });
  return { lines, exited };
}

describe('SqliteEventStore across processes', () => {
  let file: string;
  let remove: () => void;
  let store: SqliteEventStore;

  beforeAll(() => {
    if (!existsSync(ADAPTER)) throw new Error(`${ADAPTER} is missing: run \`npx tsc -b\` first`);
  });
  beforeEach(() => {
    ({ file, remove } = tempFile());
  });
  afterEach(async () => {
    await store?.close();
    remove();
  });

  it('delivers facts appended by another process live, within a second', async () => {
    store = SqliteEventStore.open(file);
    const received = new Map<string, number>();
    const sub = store.subscribeToAll((fact) => void received.set(fact.id, Date.now()));
    const child = runChild(
      file,
      `const store = SqliteEventStore.open(FILE);
       for (let i = 0; i < 5; i++) {
         await store.append('user-' + i, [{ id: 'child-' + i, type: 'user_created', data: { i } }], 'no_stream');
         console.log(JSON.stringify({ id: 'child-' + i, at: Date.now() }));
         await new Promise((resolve) => setTimeout(resolve, 50));
       }
       await store.close();`,
    );
    expect(await child.exited).toBe(0);
    await waitFor(() => received.size === 5, 2000);
    await sub.stop();
    expect(child.lines).toHaveLength(5);
    for (const { id, at } of child.lines as { id: string; at: number }[]) {
      expect(received.get(id)! - at).toBeLessThan(1000);
    }
  });

  it('keeps one gapless order when processes append concurrently', async () => {
    store = SqliteEventStore.open(file);
    const seen: StoredFact[] = [];
    const sub = store.subscribeToAll((fact) => void seen.push(fact));
    const child = runChild(
      file,
      `const store = SqliteEventStore.open(FILE);
       console.log(JSON.stringify({ ready: true }));
       for (let i = 0; i < 100; i++) {
         await store.append('child-stream', [{ id: 'child-' + i, type: 't', data: { i } }], i === 0 ? 'no_stream' : i - 1);
         await new Promise((resolve) => setTimeout(resolve, 1));
       }
       await store.close();`,
    );
    // Start together, so that the two writers really contend for the lock.
    await waitFor(() => child.lines.length > 0, 5000);
    for (let i = 0; i < 100; i++) {
      await store.append('parent-stream', [{ id: `parent-${i}`, type: 't', data: { i } }], i === 0 ? 'no_stream' : i - 1);
      await sleep(1);
    }
    expect(await child.exited).toBe(0);
    await waitFor(() => seen.length === 200, 5000);
    await sub.stop();
    expect(seen.map((f) => f.position)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    // Proof that the writers did interleave, or the order above proved nothing.
    expect(seen.filter((f, i) => i > 0 && f.stream !== seen[i - 1]!.stream).length).toBeGreaterThan(1);
    expect(seen.filter((f) => f.stream === 'child-stream').map((f) => f.revision)).toEqual(
      Array.from({ length: 100 }, (_, i) => i),
    );
  });

  /** Another process appends one fact (a stream of its own) and exits. */
  async function appendElsewhere(stream: string, id: string): Promise<void> {
    const child = runChild(
      file,
      `const store = SqliteEventStore.open(FILE);
       await store.append(${JSON.stringify(stream)}, [{ id: ${JSON.stringify(id)}, type: 'user_created', data: {} }], 'no_stream');
       await store.close();`,
    );
    expect(await child.exited).toBe(0);
  }

  /** A store that would not poll during the test, and what its subscription saw. */
  function quietStore(): { seen: StoredFact[]; sub: { stop(): Promise<void> } } {
    store = SqliteEventStore.open(file, { pollIntervalMs: 60_000 });
    const seen: StoredFact[] = [];
    return { seen, sub: store.subscribeToAll((fact) => void seen.push(fact)) };
  }

  it('looks for foreign appends at once when woken, without waiting for the poll', async () => {
    const { seen, sub } = quietStore();
    await appendElsewhere('user-1', 'woken');
    await sleep(100);
    expect(seen).toEqual([]);
    store.wake();
    await waitFor(() => seen.length === 1, 1000);
    await sub.stop();
    expect(seen[0]!.id).toBe('woken');
  });

  it('reads what the notifier says it synced without an fsync of its own, and syncs the rest', async () => {
    const { seen, sub } = quietStore();
    await appendElsewhere('user-1', 'synced');
    // The module object itself (a namespace import would be a copy the adapter never calls).
    const fsyncs = jest.spyOn(require('node:fs') as typeof import('node:fs'), 'fdatasync');
    try {
      store.wake(1);
      await waitFor(() => seen.length === 1, 1000);
      expect(fsyncs).not.toHaveBeenCalled();
      // Without the notifier's word, the same kind of foreign append costs an fsync.
      await appendElsewhere('user-2', 'unsynced');
      store.wake();
      await waitFor(() => seen.length === 2, 1000);
      expect(fsyncs).toHaveBeenCalled();
    } finally {
      fsyncs.mockRestore();
    }
    await sub.stop();
    expect(seen.map((f) => f.id)).toEqual(['synced', 'unsynced']);
  });

  it('answers an append before its subscriptions hear of it, and tells the durable listener in between', async () => {
    const { seen, sub } = quietStore();
    const order: string[] = [];
    store.onDurable(() => order.push(`listener after ${seen.length}`));
    await store.append('user-1', [{ id: 'own', type: 'T', data: {} }], 'no_stream').then(() => order.push(`answered after ${seen.length}`));
    await waitFor(() => seen.length === 1, 1000);
    await sub.stop();
    expect(order).toEqual(['answered after 0', 'listener after 0']);
  });

  it('never keeps a process alive through its poll timer', async () => {
    const child = runChild(
      file,
      `const store = SqliteEventStore.open(FILE);
       store.subscribeToAll(() => {});
       console.log(JSON.stringify({ subscribed: true }));`,
    );
    const code = await Promise.race([child.exited, sleep(10_000, 'still running', { ref: false })]);
    expect(code).toBe(0);
    expect(child.lines).toEqual([{ subscribed: true }]);
  });
});

describe('SqliteEventStore positions', () => {
  it('never reuses the position of a deleted last fact', async () => {
    const { file, remove } = tempFile();
    try {
      let store = SqliteEventStore.open(file);
      const first = await store.append('s', [{ id: 'a', type: 't', data: {} }, { id: 'b', type: 't', data: {} }], 'no_stream');
      await store.close();
      const raw = new Database(file);
      raw.prepare('DELETE FROM facts WHERE position = ?').run(first.positions[1]);
      raw.close();
      store = SqliteEventStore.open(file);
      const next = await store.append('t', [{ id: 'c', type: 't', data: {} }], 'no_stream');
      await store.close();
      expect(next.positions[0]).toBeGreaterThan(first.positions[1]!);
    } finally {
      remove();
    }
  });
});

describe('SqliteEventStore group commit', () => {
  it('commits appends made in one turn together, and a refused one does not undo the others', async () => {
    const store = SqliteEventStore.open(':memory:');
    try {
      const fact = (id: string) => ({ id, type: 'T', data: { id } });
      await store.append('taken', [fact('t0')], 'no_stream');
      const outcomes = await Promise.allSettled([
        store.append('a', [fact('a0')], 'no_stream'),
        store.append('taken', [fact('t1')], 'no_stream'),
        store.append('b', [fact('b0'), fact('b1')], 'no_stream'),
        store.append('a', [fact('a1')], 0),
      ]);
      expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
      const positions = outcomes.flatMap((o) => (o.status === 'fulfilled' ? o.value.positions : []));
      expect(positions).toEqual([...positions].sort((x, y) => x - y));
      expect(new Set(positions).size).toBe(4);
      expect((await store.readStream('taken')).map((f) => f.id)).toEqual(['t0']);
      expect((await store.readStream('a')).map((f) => f.id)).toEqual(['a0', 'a1']);
      expect((await store.readStream('b')).map((f) => f.id)).toEqual(['b0', 'b1']);
    } finally {
      await store.close();
    }
  });

  it('commits appends still pending when the store closes', async () => {
    const { file, remove } = tempFile();
    try {
      const store = SqliteEventStore.open(file);
      const pending = store.append('s', [{ id: 'x', type: 'T', data: {} }], 'no_stream');
      await store.close();
      await expect(pending).resolves.toMatchObject({ nextRevision: 0 });
      const reopened = SqliteEventStore.open(file);
      expect((await reopened.readStream('s')).map((f) => f.id)).toEqual(['x']);
      await reopened.close();
    } finally {
      remove();
    }
  });
});

describe('SqliteEventStore subscriptions in one process', () => {
  it('hand every subscription every fact, frozen, since they share what was read', async () => {
    const store = SqliteEventStore.open(':memory:');
    const seen: StoredFact[][] = [[], [], []];
    const subscriptions = seen.map((list) => store.subscribeToAll(async (fact) => void list.push(fact)));
    for (let i = 0; i < 5; i++) await store.append(`s${i}`, [{ id: `f${i}`, type: 'T', data: { n: i, nested: { list: [i] } } }], 'no_stream');
    await waitFor(() => seen.every((list) => list.length === 5));
    expect(seen.map((list) => list.map((f) => f.position))).toEqual([[1, 2, 3, 4, 5], [1, 2, 3, 4, 5], [1, 2, 3, 4, 5]]);
    const fact = seen[0]![2]!;
    expect(Object.isFrozen(fact) && Object.isFrozen(fact.data) && Object.isFrozen((fact.data as { nested: { list: number[] } }).nested.list)).toBe(true);
    await Promise.all(subscriptions.map((s) => s.stop()));
    await store.close();
  });

  it('do not ask SQLite for facts past the durable head, nor for the facts the store itself just committed', async () => {
    const store = SqliteEventStore.open(':memory:');
    const seen: StoredFact[] = [];
    const subscription = store.subscribeToAll(async (fact) => void seen.push(fact));
    await store.append('s0', [{ id: 'f0', type: 'T', data: {} }], 'no_stream');
    await waitFor(() => seen.length === 1);
    // Every prepared statement shares one native prototype; count the reads of the log.
    const statement = Object.getPrototypeOf(new Database(':memory:').prepare('SELECT 1')) as { all: (...args: unknown[]) => unknown[] };
    const all = jest.spyOn(statement, 'all');
    try {
      await store.append('s1', [{ id: 'f1', type: 'T', data: {} }], 'no_stream');
      await waitFor(() => seen.length === 2);
      await sleep(50);
      // The store's own commit is handed over from memory (RecentFacts), as stored.
      const reads = all.mock.contexts.filter((context) => /FROM facts WHERE position >/.test((context as { source: string }).source));
      expect(reads).toHaveLength(0);
      expect(seen[1]).toMatchObject({ id: 'f1', stream: 's1', revision: 0, position: 2, type: 'T', data: {}, metadata: {} });
    } finally {
      all.mockRestore();
    }
    await subscription.stop();
    await store.close();
  });
});
