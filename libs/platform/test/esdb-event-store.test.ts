/**
 * The EventStoreDB adapter's own logic (idempotence, positions, resuming after a lost
 * connection) against an in-memory double of the engine; the same contract suite runs
 * against a real EventStoreDB in esdb-engine.test.ts where Docker is available.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { EsdbEventStore } from '../src/adapters/esdb-event-store';
import { isWrongExpectedRevision, type StoredFact } from '../src/ports/event-store';
import { eventStoreContract, waitFor } from '../src/testing';
import { EsdbDouble } from './esdb-double';

eventStoreContract('EsdbEventStore (in-memory EventStoreDB double)', async () => {
  const double = new EsdbDouble();
  let store = new EsdbEventStore(double);
  return {
    store,
    idsUniqueAcrossStreams: false,
    reopen: async () => {
      await store.close();
      double.disposed = false;
      store = new EsdbEventStore(double);
      return store;
    },
    cleanup: () => store.close(),
  };
});

describe('EsdbEventStore', () => {
  const fact = (n: number) => ({ id: crypto.randomUUID(), type: 'MessageSent', data: { n } });

  it('uses a UUID fact id as the event id and keeps other ids in metadata', async () => {
    const double = new EsdbDouble();
    const store = new EsdbEventStore(double);
    const uuid = crypto.randomUUID();
    await store.append('message-1', [{ id: uuid, type: 'MessageSent', data: {} }], 'no_stream');
    await store.append('message-2', [{ id: 'not-a-uuid', type: 'MessageSent', data: {} }], 'no_stream');
    expect(double.log.at(-2)!.id).toBe(uuid);
    expect(double.log.at(-1)!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect((await store.readStream('message-2'))[0]!.id).toBe('not-a-uuid');
    await store.close();
  });

  it('numbers facts by prepare position + 1, strictly increasing within and across appends', async () => {
    const double = new EsdbDouble();
    const store = new EsdbEventStore(double);
    const a = await store.append('s-1', [fact(1), fact(2), fact(3)], 'no_stream');
    double.systemEvent();
    const b = await store.append('s-2', [fact(4)], 'no_stream');
    const all = [...a.positions, ...b.positions];
    for (let i = 1; i < all.length; i++) expect(all[i]!).toBeGreaterThan(all[i - 1]!);
    const transaction = double.log.filter((e) => e.streamId === 's-1');
    // One append is one transaction: one commit position, distinct prepare positions.
    expect(new Set(transaction.map((e) => e.position!.commit)).size).toBe(1);
    expect(a.positions).toEqual(transaction.map((e) => Number(e.position!.prepare) + 1));
    expect(await store.headPosition()).toBe(b.positions[0]);
    await store.close();
  });

  it('resumes after a fact in the middle of a multi-fact append (its commit position lies before it)', async () => {
    const double = new EsdbDouble();
    const store = new EsdbEventStore(double);
    const { positions } = await store.append('s-1', [fact(1), fact(2), fact(3)], 'no_stream');
    const seen: number[] = [];
    const sub = store.subscribeToAll((f) => void seen.push(f.position), { after: positions[0] });
    await waitFor(() => seen.length === 2);
    await sub.stop();
    expect(seen).toEqual(positions.slice(1));
    await store.close();
  });

  it('skips EventStoreDB system events', async () => {
    const double = new EsdbDouble();
    const store = new EsdbEventStore(double);
    double.systemEvent();
    await store.append('s-1', [fact(1)], 'no_stream');
    double.systemEvent();
    const seen: StoredFact[] = [];
    const sub = store.subscribeToAll((f) => void seen.push(f));
    await waitFor(() => seen.length === 1);
    await sleep(20);
    await sub.stop();
    expect(seen.map((f) => f.type)).toEqual(['MessageSent']);
    await store.close();
  });

  it('maps a wrong expected version to the port error, with the actual revision', async () => {
    const store = new EsdbEventStore(new EsdbDouble());
    await store.append('s-1', [fact(1)], 'no_stream');
    const err = await store.append('s-1', [fact(2)], 3).catch((e: unknown) => e);
    expect(isWrongExpectedRevision(err)).toBe(true);
    expect(err).toMatchObject({ stream: 's-1', expected: 3, actual: 0 });
    await store.close();
  });

  it('resubscribes after lost connections and delivers every fact once, in order', async () => {
    const double = new EsdbDouble();
    const reconnects: number[] = [];
    const store = new EsdbEventStore(double, { onReconnect: (_err, attempt) => reconnects.push(attempt) });
    const seen: number[] = [];
    const sub = store.subscribeToAll(async (f) => {
      seen.push(f.position);
      await sleep(1);
    });
    const appended: number[] = [];
    for (let i = 0; i < 30; i++) {
      appended.push(...(await store.append(`s-${i % 3}`, [fact(i), fact(i)], 'any')).positions);
      if (i % 7 === 3) double.cutConnections();
    }
    await waitFor(() => seen.length === appended.length);
    await sleep(50);
    await sub.stop();
    expect(seen).toEqual(appended);
    expect(reconnects.length).toBeGreaterThan(0);
    await store.close();
  });

  it('keeps retrying while the engine is down, then catches up with what it missed', async () => {
    const double = new EsdbDouble();
    const store = new EsdbEventStore(double);
    const first = await store.append('s-1', [fact(1)], 'no_stream');
    const seen: number[] = [];
    const sub = store.subscribeToAll((f) => void seen.push(f.position));
    await waitFor(() => seen.length === 1);
    double.down = true;
    double.cutConnections();
    await expect(store.append('s-1', [fact(2)], 0)).rejects.toThrow(/UNAVAILABLE/);
    await sleep(250);
    double.down = false;
    const second = await store.append('s-1', [fact(2)], 0);
    await waitFor(() => seen.length === 2, 10_000);
    await sub.stop();
    expect(seen).toEqual([...first.positions, ...second.positions]);
    await store.close();
  });
});
