import { describe, expect, it } from '@jest/globals';
import type { Fact } from '@teamchat/contracts';
import { AggregateRepository, SqliteEventStore } from '@teamchat/platform';

/** A registry of allocated keys: the shape of the recipient-id registry. */
const registry = {
  initial: () => ({ keys: new Map<string, number>() }),
  evolve: (state: { keys: Map<string, number> }, fact: Fact) =>
    fact.type === 'RecipientAllocated' ? { keys: new Map(state.keys).set(fact.key, fact.recipient_id) } : state,
};

const allocate = (key: string) => (state: { keys: Map<string, number> }) => {
  const known = state.keys.get(key);
  if (known !== undefined) return { facts: [], result: known };
  const id = state.keys.size + 1;
  return { facts: [{ type: 'RecipientAllocated' as const, key, recipient_id: id }], result: id };
};

describe('AggregateRepository', () => {
  it('runs concurrent commands on one stream one at a time, none refused for contention', async () => {
    const store = SqliteEventStore.open(':memory:');
    const repository = new AggregateRepository(store, registry);
    const results = await Promise.all(Array.from({ length: 64 }, (_, i) => repository.execute('registry', allocate(`k${i % 40}`))));
    const ids = results.map((r) => r.result);
    expect(new Set(ids).size).toBe(40);
    expect(ids.slice(40)).toEqual(ids.slice(0, 24));
    expect((await store.readStream('registry')).map((f) => f.revision)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    await store.close();
  });

  it('decides on what another writer appended since its cached state', async () => {
    const store = SqliteEventStore.open(':memory:');
    const first = new AggregateRepository(store, registry);
    const second = new AggregateRepository(store, registry);
    expect((await first.execute('registry', allocate('a'))).result).toBe(1);
    expect((await second.execute('registry', allocate('a'))).result).toBe(1);
    // `second` has cached the stream at revision 0; `first` writes again.
    await first.execute('registry', allocate('b'));
    expect((await second.execute('registry', allocate('c'))).result).toBe(3);
    expect((await second.execute('registry', allocate('a'))).result).toBe(1);
    await store.close();
  });

  it('lets a refused command fail without blocking the next one', async () => {
    const store = SqliteEventStore.open(':memory:');
    const repository = new AggregateRepository(store, registry);
    const refused = repository.execute('registry', () => {
      throw new Error('no');
    });
    const next = repository.execute('registry', allocate('x'));
    await expect(refused).rejects.toThrow('no');
    await expect(next).resolves.toMatchObject({ result: 1 });
    await store.close();
  });
});
