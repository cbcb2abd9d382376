import { setTimeout as sleep } from 'node:timers/promises';
import type * as JestGlobals from '@jest/globals';
import { isWrongExpectedRevision, type EventStore, type NewFact, type StoredFact } from '../ports/event-store';

export interface EventStoreFixture {
  store: EventStore;
  /** Closes `store` and opens the same data again. */
  reopen?: () => Promise<EventStore>;
  /** Closes whatever store is open and removes its data. */
  cleanup: () => Promise<void>;
  /**
   * False where the engine checks a fact id against its own stream only (EventStoreDB's
   * idempotence is per stream): a fact id held by another stream is then not refused.
   * The project's fact ids are fresh UUIDs, so this only matters to a buggy caller.
   */
  idsUniqueAcrossStreams?: boolean;
}

/**
 * The behaviour every EventStore adapter owes the services, run against each adapter
 * with its own factory (a fresh, empty store per test).
 */
export function eventStoreContract(name: string, open: () => Promise<EventStoreFixture>): void {
  // Looked up when called: importing '@jest/globals' for real throws outside jest, and the
  // testing entry must load there too (deciderSpec falls back to node's assert).
  const { describe, it, expect, beforeEach, afterEach } = globalThis as unknown as typeof JestGlobals;

  describe(`EventStore contract: ${name}`, () => {
    let fixture: EventStoreFixture;
    let store: EventStore;
    let counter = 0;
    /** Ids unique per test run, so adapters backed by a shared server do not collide. */
    const runId = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
    const fact = (type = 'thing_happened', data: unknown = { n: counter }): NewFact => ({
      id: `${runId}-${++counter}`,
      type,
      data,
    });
    const stream = (label: string) => `${label}-${runId}-${++counter}`;

    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    async function expectWrongRevision(promise: Promise<unknown>): Promise<void> {
      const err = await promise.then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(isWrongExpectedRevision(err)).toBe(true);
    }

    describe('append', () => {
      it("appends to a new stream with 'no_stream'", async () => {
        const s = stream('user');
        const result = await store.append(s, [fact(), fact()], 'no_stream');
        expect(result.nextRevision).toBe(1);
        expect(result.positions).toHaveLength(2);
        expect(result.positions[1]!).toBeGreaterThan(result.positions[0]!);
      });

      it("rejects 'no_stream' when the stream exists", async () => {
        const s = stream('user');
        await store.append(s, [fact()], 'no_stream');
        await expectWrongRevision(store.append(s, [fact()], 'no_stream'));
        expect(await store.readStream(s)).toHaveLength(1);
      });

      it('appends at the exact expected revision', async () => {
        const s = stream('user');
        await store.append(s, [fact(), fact()], 'no_stream');
        const result = await store.append(s, [fact()], 1);
        expect(result.nextRevision).toBe(2);
        expect((await store.readStream(s)).map((f) => f.revision)).toEqual([0, 1, 2]);
      });

      it('rejects a wrong expected revision and stores nothing', async () => {
        const s = stream('user');
        await store.append(s, [fact()], 'no_stream');
        const stale = fact();
        await expectWrongRevision(store.append(s, [stale, fact()], 5));
        await expectWrongRevision(store.append(stream('absent'), [fact()], 0));
        const stored = await store.readStream(s);
        expect(stored).toHaveLength(1);
        // The rejected fact's id stays free: appending it properly now succeeds.
        await store.append(s, [stale], 0);
        expect((await store.readStream(s)).map((f) => f.id)).toEqual([stored[0]!.id, stale.id]);
      });

      it("appends with 'any' whether or not the stream exists", async () => {
        const s = stream('user');
        expect((await store.append(s, [fact()], 'any')).nextRevision).toBe(0);
        expect((await store.append(s, [fact(), fact()], 'any')).nextRevision).toBe(2);
      });

      it('gives positions that strictly increase across streams', async () => {
        const positions: number[] = [];
        for (let i = 0; i < 5; i++) {
          positions.push(...(await store.append(stream('a'), [fact()], 'no_stream')).positions);
          positions.push(...(await store.append(stream('b'), [fact(), fact()], 'any')).positions);
        }
        for (let i = 1; i < positions.length; i++) expect(positions[i]!).toBeGreaterThan(positions[i - 1]!);
      });

      it('treats a re-append of the same ids as a no-op returning the original result', async () => {
        const s = stream('message');
        const facts = [fact(), fact()];
        const first = await store.append(s, facts, 'no_stream');
        await store.append(s, [fact()], 1);
        // A retry after a lost reply: same ids, now-stale expected revision.
        const retry = await store.append(s, facts, 'no_stream');
        expect(retry).toEqual(first);
        expect((await store.readStream(s)).map((f) => f.id)).toEqual([facts[0]!.id, facts[1]!.id, expect.any(String)]);
      });

      it('rejects a batch mixing stored and new ids', async () => {
        const s = stream('message');
        const stored = fact();
        await store.append(s, [stored], 'no_stream');
        await expect(store.append(s, [stored, fact()], 'any')).rejects.toThrow();
        expect(await store.readStream(s)).toHaveLength(1);
      });

      it('rejects a fact whose id another stream holds, and starts no stream', async () => {
        if (fixture.idsUniqueAcrossStreams === false) return;
        const stored = fact();
        await store.append(stream('message'), [stored], 'no_stream');
        const other = stream('message');
        await expect(store.append(other, [stored], 'no_stream')).rejects.toThrow();
        expect(await store.readStream(other)).toEqual([]);
      });

      it('stores data, metadata and commit time', async () => {
        const s = stream('user');
        const before = Date.now();
        await store.append(
          s,
          [{ id: `${runId}-meta`, type: 'user_created', data: { name: 'Olivia', tags: [1, 'x'] }, metadata: { by: 7 } }],
          'no_stream',
        );
        const [stored] = await store.readStream(s);
        expect(stored).toMatchObject({
          id: `${runId}-meta`,
          stream: s,
          revision: 0,
          type: 'user_created',
          data: { name: 'Olivia', tags: [1, 'x'] },
          metadata: { by: 7 },
        });
        expect(stored!.created).toBeGreaterThanOrEqual(before - 1000);
        expect(stored!.created).toBeLessThanOrEqual(Date.now() + 1000);
      });
    });

    describe('readStream', () => {
      it('reads one stream in revision order, from a revision', async () => {
        const s = stream('channel');
        const facts = [fact(), fact(), fact(), fact()];
        await store.append(s, facts.slice(0, 2), 'no_stream');
        await store.append(stream('other'), [fact()], 'no_stream');
        await store.append(s, facts.slice(2), 1);
        const all = await store.readStream(s);
        expect(all.map((f) => f.id)).toEqual(facts.map((f) => f.id));
        expect(all.map((f) => f.revision)).toEqual([0, 1, 2, 3]);
        expect((await store.readStream(s, 2)).map((f) => f.id)).toEqual([facts[2]!.id, facts[3]!.id]);
      });

      it('reads an absent stream as empty', async () => {
        expect(await store.readStream(stream('absent'))).toEqual([]);
      });
    });

    describe('subscribeToAll', () => {
      it('catches up from the start, then delivers live facts in order', async () => {
        const base = await store.headPosition();
        const s = stream('message');
        const history = [fact(), fact(), fact()];
        await store.append(s, history, 'no_stream');
        const seen: StoredFact[] = [];
        const sub = store.subscribeToAll((f) => void seen.push(f), { after: base });
        await waitFor(() => seen.length === 3);
        const live = [fact(), fact()];
        await store.append(s, live.slice(0, 1), 2);
        await store.append(stream('other'), live.slice(1), 'no_stream');
        await waitFor(() => seen.length === 5);
        await sub.stop();
        expect(seen.map((f) => f.id)).toEqual([...history, ...live].map((f) => f.id));
        expectIncreasing(seen.map((f) => f.position));
      });

      it('delivers everything when subscribed without a checkpoint', async () => {
        const s = stream('message');
        const { positions } = await store.append(s, [fact(), fact()], 'no_stream');
        const seen: StoredFact[] = [];
        const sub = store.subscribeToAll((f) => void seen.push(f));
        await waitFor(() => seen.some((f) => f.position === positions[1]));
        await sub.stop();
        expect(seen.filter((f) => f.stream === s).map((f) => f.position)).toEqual(positions);
        expectIncreasing(seen.map((f) => f.position));
      });

      it('resumes after a checkpoint', async () => {
        const s = stream('message');
        const facts = [fact(), fact(), fact()];
        const { positions } = await store.append(s, facts, 'no_stream');
        const seen: StoredFact[] = [];
        const sub = store.subscribeToAll((f) => void seen.push(f), { after: positions[0] });
        await waitFor(() => seen.length === 2);
        const live = fact();
        await store.append(s, [live], 2);
        await waitFor(() => seen.length === 3);
        await sub.stop();
        expect(seen.map((f) => f.id)).toEqual([facts[1]!.id, facts[2]!.id, live.id]);
      });

      it('runs the handler for one fact at a time', async () => {
        const base = await store.headPosition();
        const s = stream('message');
        await store.append(s, [fact(), fact(), fact()], 'no_stream');
        let running = 0;
        let overlapped = false;
        const seen: number[] = [];
        const sub = store.subscribeToAll(
          async (f) => {
            running += 1;
            if (running > 1) overlapped = true;
            await sleep(5);
            seen.push(f.position);
            running -= 1;
          },
          { after: base },
        );
        // Live facts arriving while a handler is still busy must queue behind it.
        await store.append(s, [fact()], 2);
        await store.append(s, [fact()], 3);
        await waitFor(() => seen.length === 5);
        await sub.stop();
        expect(overlapped).toBe(false);
        expectIncreasing(seen);
      });

      it('stops delivering once stop() resolves, with no handler still running', async () => {
        const base = await store.headPosition();
        const s = stream('message');
        await store.append(s, [fact()], 'no_stream');
        let running = false;
        let calls = 0;
        const sub = store.subscribeToAll(
          async () => {
            running = true;
            calls += 1;
            await sleep(20);
            running = false;
          },
          { after: base },
        );
        await waitFor(() => calls === 1);
        await sub.stop();
        expect(running).toBe(false);
        const callsAtStop = calls;
        await store.append(s, [fact(), fact()], 0);
        await sleep(100);
        expect(calls).toBe(callsAtStop);
      });

      it('reports a throwing handler to onError and stops', async () => {
        const base = await store.headPosition();
        const s = stream('message');
        await store.append(s, [fact(), fact()], 'no_stream');
        const errors: unknown[] = [];
        let calls = 0;
        const sub = store.subscribeToAll(
          () => {
            calls += 1;
            throw new Error('projection failed');
          },
          { after: base, onError: (err) => errors.push(err) },
        );
        await waitFor(() => errors.length === 1);
        await store.append(s, [fact()], 1);
        await sleep(100);
        await sub.stop();
        expect(calls).toBe(1);
        expect((errors[0] as Error).message).toBe('projection failed');
      });
    });

    describe('headPosition', () => {
      it('is the position of the last committed fact', async () => {
        const { positions } = await store.append(stream('user'), [fact(), fact()], 'no_stream');
        expect(await store.headPosition()).toBe(positions[1]);
      });
    });

    describe('durability', () => {
      it('keeps facts and positions across a reopen', async () => {
        if (!fixture.reopen) return;
        const s = stream('user');
        const facts = [fact(), fact()];
        const { positions } = await store.append(s, facts, 'no_stream');
        store = await fixture.reopen();
        const stored = await store.readStream(s);
        expect(stored.map((f) => [f.id, f.position])).toEqual(facts.map((f, i) => [f.id, positions[i]]));
        expect(await store.headPosition()).toBe(positions[1]);
        const next = await store.append(s, [fact()], 1);
        expect(next.positions[0]!).toBeGreaterThan(positions[1]!);
      });
    });

    function expectIncreasing(values: number[]): void {
      for (let i = 1; i < values.length; i++) expect(values[i]!).toBeGreaterThan(values[i - 1]!);
    }
  });
}

/** Polls `condition` until it holds; fails after `timeoutMs`. */
export async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(5);
  }
}
