import { setTimeout as sleep } from 'node:timers/promises';
import { storeAppended } from '@teamchat/contracts';
import { InProcessBus, NotifyingEventStore, SqliteEventStore } from '@teamchat/platform';
import { waitFor } from '@teamchat/platform/testing';

/** A store announcing its appends on a bus, and every announcement heard there. */
async function announcing(sharesRows = false) {
  const bus = new InProcessBus();
  const heard: unknown[] = [];
  await bus.subscribe(storeAppended.subject, (payload) => heard.push(payload));
  const store = await NotifyingEventStore.wrap(SqliteEventStore.open(':memory:'), bus, { sharesRows });
  const append = (n: number) => store.append(`s${n}`, [{ id: `f${n}`, type: 'T', data: { n } }], 'no_stream');
  return { bus, store, heard, append };
}

/** Another store on the bus with an empty file of its own: whatever its subscription gets came with a notice. */
async function emptyListener(bus: InProcessBus, sharesRows: boolean) {
  const other = await NotifyingEventStore.wrap(SqliteEventStore.open(':memory:'), bus, { sharesRows });
  const received: unknown[] = [];
  other.subscribeToAll((fact) => void received.push(fact));
  return { other, received };
}

describe('NotifyingEventStore', () => {
  it('announces the appends one fsync made durable once, with the newest position', async () => {
    const { bus, store, heard, append } = await announcing();
    const results = await Promise.all([1, 2, 3, 4, 5].map(append));
    expect(results.map((r) => r.positions[0])).toEqual([1, 2, 3, 4, 5]);
    await sleep(20);
    expect(heard.map((n) => (n as { position: number }).position)).toEqual([5]);
    // Appends in later turns are announced in their turn.
    await append(6);
    await sleep(20);
    await append(7);
    await sleep(20);
    expect(heard.map((n) => (n as { position: number }).position)).toEqual([5, 6, 7]);
    await store.close();
    await bus.close();
  });

  it('announces what is still unannounced when it closes, and nothing after', async () => {
    const { bus, store, heard, append } = await announcing();
    await append(1);
    await store.close();
    expect(heard.map((n) => (n as { position: number }).position)).toEqual([1]);
    await sleep(20);
    expect(heard).toHaveLength(1);
    await bus.close();
  });

  it('wakes the other stores on the bus (other processes, other threads) once, at the newest position', async () => {
    const { bus, store, append } = await announcing();
    const woken: (number | undefined)[] = [];
    const other = { wake: (position?: number) => woken.push(position), onDurable: () => undefined } as unknown as SqliteEventStore;
    await NotifyingEventStore.wrap(other, bus);
    await Promise.all([append(1), append(2)]);
    await sleep(20);
    expect(woken).toEqual([2]);
    await store.close();
    await bus.close();
  });

  it('carries the rows it stored between threads, so that another store reads them from memory, not from its file', async () => {
    const { bus, store, heard, append } = await announcing(true);
    const { other, received } = await emptyListener(bus, true);
    await Promise.all([append(1), append(2)]);
    await waitFor(() => received.length === 2);
    expect(received).toEqual(await Promise.all([store.readStream('s1'), store.readStream('s2')]).then((s) => s.flat()));
    expect(heard).toHaveLength(1);
    expect((heard[0] as { rows: { data: string }[] }).rows.map((r) => JSON.parse(r.data))).toEqual([{ n: 1 }, { n: 2 }]);
    await other.close();
    await store.close();
    await bus.close();
  });

  it('announces large appends by their position only: the others query for them', async () => {
    const { bus, store, heard } = await announcing(true);
    const { other, received } = await emptyListener(bus, true);
    await store.append('big', [{ id: 'big', type: 'T', data: { text: 'x'.repeat(70_000) } }], 'no_stream');
    await waitFor(() => heard.length === 1);
    expect(heard).toEqual([{ position: 1 }]);
    await sleep(20);
    expect(received).toEqual([]);
    await other.close();
    await store.close();
    await bus.close();
  });

  it('between processes, sends no rows and uses none a notice carries: facts come from the file', async () => {
    const { bus, store, heard, append } = await announcing();
    await append(1);
    await waitFor(() => heard.length === 1);
    expect(heard).toEqual([{ position: 1 }]);
    const { other, received } = await emptyListener(bus, false);
    // A notice with rows, as a thread would send it: its rows are not in the other's file.
    const row = { position: 1, stream: 's', revision: 0, id: 'forged', type: 'T', data: '{}', metadata: '{}', created: 0 };
    bus.publish(storeAppended.subject, { position: 1, rows: [row] });
    await sleep(30);
    expect(received).toEqual([]);
    await other.close();
    await store.close();
    await bus.close();
  });

  it('answers the appender before the notice leaves, and the notice leaves before its own projectors run', async () => {
    const { bus, store, append } = await announcing();
    const order: string[] = [];
    await bus.subscribe(storeAppended.subject, () => order.push('notice'));
    store.subscribeToAll(() => void order.push('projected'));
    await append(1).then(() => order.push('answered'));
    await waitFor(() => order.length === 3);
    expect(order).toEqual(['answered', 'notice', 'projected']);
    await store.close();
    await bus.close();
  });
});
