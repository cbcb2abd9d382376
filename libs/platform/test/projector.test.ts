import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { MAX_UNSAVED_SKIPPED, PROGRESS_MIN_FACTS, Projector, SqliteEventStore, SqliteReadModelStore, type Doc, type FactHandlers, type StoredFact } from '@teamchat/platform';

const log = pino({ level: 'silent' });
const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));

function files() {
  const dir = mkdtempSync(join(tmpdir(), 'teamchat-projector-'));
  dirs.push(dir);
  return { events: join(dir, 'events.sqlite'), models: join(dir, 'models.sqlite') };
}

interface Counter extends Doc {
  _id: string;
  count: number;
  positions: number[];
}

/** A projection that counts the facts of one type per stream, recording which positions it applied. */
function counting(readModels: SqliteReadModelStore, applied: StoredFact[] = []) {
  const counters = readModels.collection<Counter>('counters');
  const handlers: FactHandlers = {
    UserDeactivated: async (_fact, stored) => {
      applied.push(stored);
      const doc = (await counters.get(stored.stream)) ?? { _id: stored.stream, count: 0, positions: [] };
      await counters.put({ ...doc, count: doc.count + 1, positions: [...doc.positions, stored.position] });
    },
  };
  return { counters, handlers };
}

/** A started projector counting facts, over a new store and read-model file. */
async function startCounting() {
  const paths = files();
  const store = SqliteEventStore.open(paths.events);
  const readModels = SqliteReadModelStore.open(paths.models);
  const { counters, handlers } = counting(readModels);
  const projector = new Projector({ name: 'p', store, readModels, log, handlers });
  await projector.start();
  return { store, readModels, counters, projector };
}

/** The counted type; another type is one the projection does not handle. */
const fact = (i: number, type: 'UserDeactivated' | 'UserReactivated' = 'UserDeactivated') => ({
  id: `f${i}`,
  type,
  data: { type, user_id: i },
});

describe('Projector', () => {
  it('applies every fact once, in order, and waitFor resolves once a position is applied', async () => {
    const { store, readModels, counters, projector } = await startCounting();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.append(`s${i % 3}`, [fact(i)], 'any')));
    const last = Math.max(...results.map((r) => r.positions[0]!));
    await projector.waitFor(last);
    expect(projector.checkpoint).toBe(last);
    const docs = await counters.getMany(['s0', 's1', 's2']);
    expect(docs.map((d) => d.count)).toEqual([17, 17, 16]);
    for (const d of docs) expect(d.positions).toEqual([...d.positions].sort((a, b) => a - b));
    expect(await readModels.getCheckpoint('p')).toBe(last);
    await projector.stop();
    await store.close();
    await readModels.close();
  });

  it('resumes from its checkpoint after a restart without applying anything twice', async () => {
    const paths = files();
    let store = SqliteEventStore.open(paths.events);
    let readModels = SqliteReadModelStore.open(paths.models);
    let projector = new Projector({ name: 'p', store, readModels, log, handlers: counting(readModels).handlers });
    await projector.start();
    const first = await store.append('s', [fact(1), fact(2)], 'no_stream');
    await projector.waitFor(first.positions[1]);
    await projector.stop();
    await store.close();
    await readModels.close();

    store = SqliteEventStore.open(paths.events);
    readModels = SqliteReadModelStore.open(paths.models);
    const applied: StoredFact[] = [];
    const { counters, handlers } = counting(readModels, applied);
    projector = new Projector({ name: 'p', store, readModels, log, handlers });
    await projector.start();
    const more = await store.append('s', [fact(3)], 1);
    await projector.waitFor(more.positions[0]);
    expect(applied.map((f) => f.id)).toEqual(['f3']);
    expect((await counters.get('s'))?.count).toBe(3);
    await projector.stop();
    await store.close();
    await readModels.close();
  });

  it('empties its collections when a new name replays from the start, and only then', async () => {
    const paths = files();
    const store = SqliteEventStore.open(paths.events);
    const readModels = SqliteReadModelStore.open(paths.models);
    const { counters, handlers } = counting(readModels);
    const done = await store.append('s', [fact(1), fact(2)], 'no_stream');
    // A document the old shape stored under an id the new one never writes.
    await counters.put({ _id: 'old-shape', count: 1, positions: [] });
    const renamed = new Projector({ name: 'p-2', store, readModels, log, handlers, collections: [counters] });
    await renamed.start();
    await renamed.waitFor(done.positions[1]);
    expect(await counters.get('old-shape')).toBeUndefined();
    expect((await counters.get('s'))?.count).toBe(2);
    await renamed.stop();
    // Resuming from its checkpoint keeps what it wrote.
    const resumed = new Projector({ name: 'p-2', store, readModels, log, handlers, collections: [counters] });
    await resumed.start();
    expect((await counters.get('s'))?.count).toBe(2);
    await resumed.stop();
    await store.close();
    await readModels.close();
  });

  it('skips fact types it does not read, but still reaches their positions', async () => {
    const paths = files();
    const store = SqliteEventStore.open(paths.events);
    const readModels = SqliteReadModelStore.open(paths.models);
    const applied: StoredFact[] = [];
    const projector = new Projector({ name: 'p', store, readModels, log, handlers: counting(readModels, applied).handlers });
    await projector.start();
    await store.append('s', [fact(1)], 'no_stream');
    const other = await store.append('t', [fact(2, 'UserReactivated')], 'no_stream');
    await projector.waitFor(other.positions[0]);
    expect(applied.map((f) => f.type)).toEqual(['UserDeactivated']);
    await projector.stop();
    await store.close();
    await readModels.close();
  });

  it('saves its checkpoint past long stretches of facts it skips, and the rest when it stops', async () => {
    const paths = files();
    const store = SqliteEventStore.open(paths.events);
    const readModels = SqliteReadModelStore.open(paths.models);
    // No save by time here: only the stretch's length and the stop save.
    const projector = new Projector({ name: 'p', store, readModels, log, handlers: counting(readModels).handlers, skippedSavedWithinMs: 600_000 });
    await projector.start();
    const counted = await store.append('s', [fact(0)], 'no_stream');
    // Then only facts it does not read: without the saves, a restart would read them all again.
    const skipped = Array.from({ length: MAX_UNSAVED_SKIPPED + 1_500 }, (_, i) => fact(i + 1, 'UserReactivated'));
    const others = await store.append('t', skipped.slice(0, MAX_UNSAVED_SKIPPED + 1_000), 'no_stream');
    await projector.waitFor(others.positions.at(-1));
    const whileRunning = await readModels.getCheckpoint('p');
    expect(whileRunning).toBeGreaterThanOrEqual(counted.positions[0]! + MAX_UNSAVED_SKIPPED);
    const rest = await store.append('t', skipped.slice(MAX_UNSAVED_SKIPPED + 1_000), 'any');
    await projector.waitFor(rest.positions.at(-1));
    expect(await readModels.getCheckpoint('p')).toBe(whileRunning);
    await projector.stop();
    expect(await readModels.getCheckpoint('p')).toBe(rest.positions.at(-1));
    await store.close();
    await readModels.close();
  }, 60_000);

  it('saves its checkpoint past a few skipped facts within its time bound, with no later batch and no stop (a kill then reads them again)', async () => {
    const paths = files();
    const store = SqliteEventStore.open(paths.events);
    const readModels = SqliteReadModelStore.open(paths.models);
    const projector = new Projector({ name: 'p', store, readModels, log, handlers: counting(readModels).handlers, skippedSavedWithinMs: 50 });
    await projector.start();
    const counted = await store.append('s', [fact(0)], 'no_stream');
    await projector.waitFor(counted.positions[0]);
    expect(await readModels.getCheckpoint('p')).toBe(counted.positions[0]);
    const skipped = await store.append('t', [fact(1, 'UserReactivated'), fact(2, 'UserReactivated')], 'no_stream');
    await projector.waitFor(skipped.positions.at(-1));
    // Far fewer than MAX_UNSAVED_SKIPPED, yet saved without waiting for the stop.
    for (let waited = 0; (await readModels.getCheckpoint('p')) !== skipped.positions.at(-1) && waited < 10_000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await readModels.getCheckpoint('p')).toBe(skipped.positions.at(-1));
    // A killed process stops nothing: a fresh projector on the same files starts after them.
    const applied: StoredFact[] = [];
    const again = new Projector({ name: 'p', store, readModels, log, handlers: counting(readModels, applied).handlers });
    await again.start();
    expect(again.checkpoint).toBe(skipped.positions.at(-1));
    expect(applied).toEqual([]);
    await projector.stop();
    await again.stop();
    await store.close();
    await readModels.close();
  });

  it('logs the progress of a long catch-up: facts per second and the time left, then its end', async () => {
    const paths = files();
    const store = SqliteEventStore.open(paths.events);
    const readModels = SqliteReadModelStore.open(paths.models);
    const lines: string[] = [];
    const recording = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line).msg as string) });
    const many = Array.from({ length: PROGRESS_MIN_FACTS + 5_000 }, (_, i) => fact(i, i % 2 ? 'UserDeactivated' : 'UserReactivated'));
    await store.append('s', many, 'no_stream');
    // A projection that writes nothing but its checkpoint: the test is about the catch-up.
    const handlers: FactHandlers = { UserDeactivated: async () => undefined };
    const projector = new Projector({ name: 'p', store, readModels, log: recording, handlers, progressEveryMs: 0 });
    await projector.start();
    expect(lines[0]).toBe(`p: rebuild of ${many.length} facts begins`);
    const progress = lines.filter((l) => l.includes('rebuild progress'));
    expect(progress.length).toBeGreaterThan(10);
    expect(progress[0]).toMatch(/^p: rebuild progress \d+ of 25000 \([\d.]+%\), \d+ facts\/s, about \d+ s left$/);
    expect(lines.at(-1)).toMatch(/^p: rebuild done, 25000 facts in [\d.]+ s \(\d+ facts\/s\)$/);
    // A short catch-up says nothing.
    await projector.stop();
    lines.length = 0;
    const again = new Projector({ name: 'p', store, readModels, log: recording, handlers, progressEveryMs: 0 });
    await store.append('s', [fact(-1)], 'any');
    await again.start();
    expect(lines).toEqual([]);
    await again.stop();
    await store.close();
    await readModels.close();
  }, 60_000);

  it('gives the event loop a turn between the batches of a catch-up (the read models commit on a timer)', async () => {
    const paths = files();
    const store = SqliteEventStore.open(paths.events);
    const readModels = SqliteReadModelStore.open(paths.models);
    const appended = await store.append('s', Array.from({ length: 5_000 }, (_, i) => fact(i)), 'no_stream');
    const head = appended.positions.at(-1)!;
    const projector = new Projector({ name: 'p', store, readModels, log, handlers: { UserDeactivated: async () => undefined } });
    // What a timer sees of the catch-up: without a turn between batches, only its start or its end.
    const seen: number[] = [];
    const timer = setInterval(() => seen.push(projector.checkpoint), 0);
    try {
      await projector.start();
    } finally {
      clearInterval(timer);
    }
    expect(seen.some((position) => position > 0 && position < head)).toBe(true);
    // The read models were told of the catch-up, and of its end.
    const told: boolean[] = [];
    const later = new Projector({ name: 'q', store, readModels, log, handlers: { UserDeactivated: async () => undefined } });
    const original = readModels.catchingUp.bind(readModels);
    readModels.catchingUp = (started) => {
      told.push(started);
      original(started);
    };
    await later.start();
    expect(told).toEqual([true, false]);
    await later.stop();
    await projector.stop();
    await store.close();
    await readModels.close();
  });

  it('stops at a failing projection and fails waiters instead of skipping the fact', async () => {
    const store = SqliteEventStore.open(':memory:');
    const applied: number[] = [];
    const projector = new Projector({
      name: 'p',
      store,
      log,
      handlers: {
        UserDeactivated: async (f) => {
          if (f.user_id === 2) throw new Error('boom');
          applied.push(f.user_id);
        },
      },
    });
    await projector.start();
    const { positions } = await store.append('s', [fact(1), fact(2), fact(3)], 'no_stream');
    await expect(projector.waitFor(positions[2])).rejects.toMatchObject({ code: 'INTERNAL_SERVER_ERROR' });
    expect(applied).toEqual([1]);
    expect(projector.checkpoint).toBeLessThan(positions[1]!);
    await projector.stop();
    await store.close();
  });

  it('times out a wait for a position that never comes', async () => {
    const store = SqliteEventStore.open(':memory:');
    const projector = new Projector({ name: 'p', store, log, handlers: {} });
    await projector.start();
    await expect(projector.waitFor(999, 50)).rejects.toMatchObject({ code: 'GATEWAY_TIMEOUT', status: 504 });
    await projector.stop();
    await store.close();
  });

  it('catches up past a position only when the store holds more (caughtUpPast)', async () => {
    const { store, readModels, counters, projector } = await startCounting();
    const first = (await store.append('s0', [fact(1)], 'any')).positions[0]!;
    await projector.waitFor(first);
    expect(await projector.caughtUpPast(first)).toBe(false);
    const second = (await store.append('s0', [fact(2)], 'any')).positions[0]!;
    // Asked before the projector heard of the second fact: it waits for it.
    expect(await projector.caughtUpPast(first)).toBe(true);
    expect(projector.checkpoint).toBeGreaterThanOrEqual(second);
    expect((await counters.get('s0'))?.count).toBe(2);
    await projector.stop();
    await store.close();
    await readModels.close();
  });

  it('reads a snapshot at one position: no batch is applied while it runs', async () => {
    const { store, readModels, counters, projector } = await startCounting();
    const appends = Array.from({ length: 40 }, (_, i) => store.append('s', [fact(i)], 'any'));
    const snapshots = [];
    for (let i = 0; i < 20; i++) {
      snapshots.push(
        projector.snapshot(async () => {
          const before = (await counters.get('s'))?.count ?? 0;
          // A pause inside the read, where a batch would otherwise slip in.
          await new Promise((resolve) => setTimeout(resolve, 1));
          const after = (await counters.get('s'))?.count ?? 0;
          return { before, after, positions: (await counters.get('s'))?.positions ?? [] };
        }),
      );
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(appends);
    for (const { value, position } of await Promise.all(snapshots)) {
      expect(value.after).toBe(value.before);
      // The position is exactly that of the last fact the read saw.
      expect(value.positions.at(-1) ?? 0).toBe(position);
    }
    await projector.stop();
    await store.close();
    await readModels.close();
  });
});
