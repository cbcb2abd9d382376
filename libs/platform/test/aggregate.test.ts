import { describe, expect, it } from '@jest/globals';
import type { Fact } from '@teamchat/contracts';
import { AggregateRepository, SqliteEventStore, type EventStore, type ExpectedRevision } from '@teamchat/platform';

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

/** The store, with every append's expected revision and every read recorded. */
function recording(store: EventStore) {
  const expected: ExpectedRevision[] = [];
  const reads: string[] = [];
  const spied: EventStore = {
    append: (stream, facts, revision) => {
      expected.push(revision);
      return store.append(stream, facts, revision);
    },
    readStream: (stream, from) => {
      reads.push(stream);
      return store.readStream(stream, from);
    },
    subscribeToAll: (handler, options) => store.subscribeToAll(handler, options),
    headPosition: () => store.headPosition(),
    close: () => store.close(),
  };
  return { store: spied, expected, reads };
}

/** A personal stream that folds to nothing of its own: the decision reads a "read model" beside it. */
const personal = { initial: () => null, evolve: (state: null) => state };

const starred = (userId: number, ids: number[]): Fact => ({ type: 'MessageFlagsUpdated', user_id: userId, op: 'add', flag: 'starred', message_ids: ids });

describe('AggregateRepository.executeWith (a personal stream with state beside it)', () => {
  it('retries a conflicting write against fresh state, expecting exact revisions', async () => {
    const sqlite = SqliteEventStore.open(':memory:');
    const { store, expected } = recording(sqlite);
    const repository = new AggregateRepository(store, personal);
    const stream = 'message_flags-7';
    // The read model the handler would load: which ids are starred, as facts reach it.
    const starredIds = new Set<number>();
    const project = async (position: number) => {
      for (const fact of await sqlite.readStream(stream)) {
        if (fact.position <= position) for (const id of (fact.data as { message_ids: number[] }).message_ids) starredIds.add(id);
      }
    };
    await repository.execute(stream, () => ({ facts: [starred(7, [1])], result: undefined }));
    const positionsSeen: number[] = [];
    const decided: number[][] = [];
    let concurrentWrite = true;
    const { result } = await repository.executeWith(
      stream,
      async ({ position }) => {
        positionsSeen.push(position);
        if (concurrentWrite) {
          concurrentWrite = false;
          // Another process stars message 2 after this attempt read its state.
          await sqlite.append(stream, [{ id: 'other', type: 'MessageFlagsUpdated', data: starred(7, [2]) }], 0);
        }
        await project(position);
        return new Set(starredIds);
      },
      (_, known) => {
        const ids = [1, 2, 3].filter((id) => !known.has(id));
        decided.push(ids);
        return { facts: ids.length ? [starred(7, ids)] : [], result: ids };
      },
    );
    // First attempt: cached at revision 0 (read model at its position), decides [2, 3] and
    // loses; the retry reads revision 1, loads the read model up to it, and decides [3].
    expect(decided).toEqual([[2, 3], [3]]);
    expect(result).toEqual([3]);
    expect(expected).toEqual(['no_stream', 0, 1]);
    const stored = await sqlite.readStream(stream);
    expect(positionsSeen).toEqual([stored[0]!.position, stored[1]!.position]);
    expect(stored.map((f) => (f.data as { message_ids: number[] }).message_ids)).toEqual([[1], [2], [3]]);
    await sqlite.close();
  });

  it('reads the store once per stream, not once per command, while it is the only writer', async () => {
    const sqlite = SqliteEventStore.open(':memory:');
    const { store, expected, reads } = recording(sqlite);
    const repository = new AggregateRepository(store, registry);
    for (const key of ['a', 'b', 'c', 'd']) await repository.execute('registry', allocate(key));
    expect(reads).toEqual(['registry']);
    expect(expected).toEqual(['no_stream', 0, 1, 2]);
    await sqlite.close();
  });

  it('does not let a refusal stand on cached state another writer has moved past', async () => {
    const sqlite = SqliteEventStore.open(':memory:');
    const first = new AggregateRepository(sqlite, registry);
    const second = new AggregateRepository(sqlite, registry);
    await first.execute('registry', allocate('a'));
    await second.execute('registry', allocate('a'));
    await first.execute('registry', allocate('b'));
    // `second` caches only `a`: refusing an unknown key must look at the store first.
    const known = (key: string) => (state: { keys: Map<string, number> }) => {
      if (!state.keys.has(key)) throw new Error(`unknown ${key}`);
      return { facts: [], result: state.keys.get(key) };
    };
    await expect(second.execute('registry', known('b'))).resolves.toMatchObject({ result: 2 });
    await expect(second.execute('registry', known('z'))).rejects.toThrow('unknown z');
    await sqlite.close();
  });
});

describe('AggregateRepository.create (a new stream)', () => {
  it('appends expecting no stream, without reading it', async () => {
    const sqlite = SqliteEventStore.open(':memory:');
    const { store, expected, reads } = recording(sqlite);
    const repository = new AggregateRepository(store, registry);
    const { positions } = await repository.create('registry-new', [{ type: 'RecipientAllocated', key: 'a', recipient_id: 1 }]);
    expect(positions).toHaveLength(1);
    expect(expected).toEqual(['no_stream']);
    expect(reads).toEqual([]);
    // Its state is known from the append: the next command reads nothing either.
    await repository.execute('registry-new', allocate('b'));
    expect(expected).toEqual(['no_stream', 0]);
    expect(reads).toEqual([]);
    await sqlite.close();
  });

  it('surfaces a conflict instead of retrying or swallowing it', async () => {
    const sqlite = SqliteEventStore.open(':memory:');
    const repository = new AggregateRepository(sqlite, registry);
    await repository.create('registry-new', [{ type: 'RecipientAllocated', key: 'a', recipient_id: 1 }]);
    await expect(repository.create('registry-new', [{ type: 'RecipientAllocated', key: 'b', recipient_id: 2 }])).rejects.toMatchObject({
      code: 'WRONG_EXPECTED_REVISION',
    });
    expect(await sqlite.readStream('registry-new')).toHaveLength(1);
    await sqlite.close();
  });
});
