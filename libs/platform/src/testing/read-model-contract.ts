import type * as JestGlobals from '@jest/globals';
import type { Collection, Doc, Filter, FindOptions, IndexSpec, ReadModelStore } from '../ports/read-models';

export interface ReadModelFixture {
  store: ReadModelStore;
  /** Closes `store` and opens the same data again. */
  reopen?: () => Promise<ReadModelStore>;
  /** Whether batch() is one transaction (SQLite) or applies writes one by one (MongoDB without a replica set). */
  atomicBatch: boolean;
  /** Closes whatever store is open and removes its data. */
  cleanup: () => Promise<void>;
}

interface UserDoc extends Doc {
  _id: number;
  name: string;
  email?: string | null;
  role: number;
  active: boolean;
  groups?: (string | number)[];
  note?: string | null;
}

const USER_INDEXES: IndexSpec[] = [
  { fields: ['name'], unique: true },
  { fields: ['email'] },
  { fields: ['role', 'name'] },
  { fields: ['active'] },
  { fields: ['groups'], multikey: true },
];

/**
 * The behaviour every ReadModelStore adapter owes the projections and queries, run
 * against each adapter with its own factory (a fresh, empty store per test).
 */
export function readModelContract(name: string, open: () => Promise<ReadModelFixture>): void {
  // Looked up when called: importing '@jest/globals' for real throws outside jest, and the
  // testing entry must load there too (deciderSpec falls back to node's assert).
  const { describe, it, expect, beforeEach, afterEach } = globalThis as unknown as typeof JestGlobals;

  describe(`ReadModelStore contract: ${name}`, () => {
    let fixture: ReadModelFixture;
    let store: ReadModelStore;
    let users: Collection<UserDoc>;

    const olivia: UserDoc = { _id: 1, name: 'Olivia', email: 'owner@example.com', role: 100, active: true, groups: ['admins', 'all', 7] };
    const adam: UserDoc = { _id: 2, name: 'Adam', email: 'admin@example.com', role: 200, active: true, groups: ['admins', 'all'] };
    const mark: UserDoc = { _id: 3, name: 'Mark', email: 'member@example.com', role: 400, active: false, groups: ['all'], note: null };
    const mary: UserDoc = { _id: 4, name: 'Mary', email: null, role: 400, active: true, groups: [] };
    const bot: UserDoc = { _id: 5, name: 'Echo', role: 400, active: true, note: 'bot' };
    const everyone = [olivia, adam, mark, mary, bot];

    beforeEach(async () => {
      fixture = await open();
      store = fixture.store;
      users = store.collection<UserDoc>('users', USER_INDEXES);
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    async function seed(): Promise<void> {
      for (const user of everyone) await users.put(user);
    }
    const ids = (docs: Doc[]) => docs.map((d) => d._id);
    const sortedIds = (docs: Doc[]) => ids(docs).sort();

    describe('documents', () => {
      it('puts, gets, replaces and deletes', async () => {
        expect(await users.get(1)).toBeUndefined();
        await users.put(olivia);
        expect(await users.get(1)).toEqual(olivia);
        const renamed = { ...olivia, name: 'Olive', groups: ['all'] };
        delete (renamed as Partial<UserDoc>).email;
        await users.put(renamed);
        // A put replaces the whole document: the dropped field is gone.
        expect(await users.get(1)).toEqual(renamed);
        await users.delete(1);
        expect(await users.get(1)).toBeUndefined();
        await users.delete(1);
      });

      it('keeps number and string ids apart and returns them with their type', async () => {
        const things = store.collection<Doc & { v: string }>('things');
        await things.put({ _id: 1, v: 'number' });
        await things.put({ _id: '1', v: 'string' });
        await things.put({ _id: 'a-b c', v: 'text' });
        expect(await things.get(1)).toEqual({ _id: 1, v: 'number' });
        expect(await things.get('1')).toEqual({ _id: '1', v: 'string' });
        expect(await things.get('a-b c')).toEqual({ _id: 'a-b c', v: 'text' });
        const found = await things.find({}, { sort: ['v', 1] });
        expect(found.map((d) => [d._id, typeof d._id])).toEqual([
          [1, 'number'],
          ['1', 'string'],
          ['a-b c', 'string'],
        ]);
        expect(await things.find({ _id: '1' })).toEqual([{ _id: '1', v: 'string' }]);
      });

      it('gets many in the order asked, skipping missing ids', async () => {
        await seed();
        expect(ids(await users.getMany([4, 99, 1, 3]))).toEqual([4, 1, 3]);
        expect(await users.getMany([])).toEqual([]);
      });

      it('clears a collection, which stays usable with its indexes', async () => {
        await seed();
        const others = store.collection<Doc>('others');
        await others.put({ _id: 1 });
        await users.clear();
        expect(await users.find({})).toEqual([]);
        expect(await users.get(1)).toBeUndefined();
        expect(await users.find({ groups: 'admins' })).toEqual([]);
        expect(await others.get(1)).toEqual({ _id: 1 });
        await users.put(olivia);
        expect(await users.find({ groups: 'admins' })).toEqual([olivia]);
      });

      it('round-trips nested values', async () => {
        const things = store.collection<Doc>('nested');
        const doc = { _id: 'x', a: { b: [1, { c: true }], d: null }, e: 1.5, f: '' };
        await things.put(doc);
        expect(await things.get('x')).toEqual(doc);
      });
    });

    describe('find', () => {
      beforeEach(seed);

      it('matches equality on several fields', async () => {
        expect(sortedIds(await users.find({ role: 400, active: true }))).toEqual([4, 5]);
        expect(sortedIds(await users.find({ name: 'Adam' }))).toEqual([2]);
        expect(await users.find({ name: 'Nobody' })).toEqual([]);
        expect(sortedIds(await users.find({}))).toEqual([1, 2, 3, 4, 5]);
      });

      it('matches booleans', async () => {
        expect(sortedIds(await users.find({ active: false }))).toEqual([3]);
        expect(sortedIds(await users.find({ active: true }))).toEqual([1, 2, 4, 5]);
        expect(sortedIds(await users.find({ active: { $in: [false] } }))).toEqual([3]);
        expect(sortedIds(await users.find({ active: { $ne: true } }))).toEqual([3]);
      });

      it('matches null as null or missing', async () => {
        expect(sortedIds(await users.find({ email: null }))).toEqual([4, 5]);
        expect(sortedIds(await users.find({ note: null }))).toEqual([1, 2, 3, 4]);
        expect(sortedIds(await users.find({ note: { $ne: null } }))).toEqual([5]);
        expect(sortedIds(await users.find({ email: { $in: [null, 'admin@example.com'] } }))).toEqual([2, 4, 5]);
      });

      it('supports $in, $nin and $ne', async () => {
        expect(sortedIds(await users.find({ role: { $in: [100, 200] } }))).toEqual([1, 2]);
        expect(await users.find({ role: { $in: [] } })).toEqual([]);
        expect(sortedIds(await users.find({ role: { $nin: [100, 200] } }))).toEqual([3, 4, 5]);
        // Like MongoDB, $nin and $ne also match documents missing the field.
        expect(sortedIds(await users.find({ note: { $nin: ['bot'] } }))).toEqual([1, 2, 3, 4]);
        expect(sortedIds(await users.find({ note: { $ne: 'bot' } }))).toEqual([1, 2, 3, 4]);
        expect(sortedIds(await users.find({ email: { $nin: [null] } }))).toEqual([1, 2, 3]);
        expect(sortedIds(await users.find({ _id: { $in: [2, 5, 9] } }))).toEqual([2, 5]);
      });

      it('supports range operators, combined', async () => {
        expect(sortedIds(await users.find({ role: { $lt: 400 } }))).toEqual([1, 2]);
        expect(sortedIds(await users.find({ role: { $lte: 200 } }))).toEqual([1, 2]);
        expect(sortedIds(await users.find({ role: { $gt: 100 } }))).toEqual([2, 3, 4, 5]);
        expect(sortedIds(await users.find({ role: { $gte: 200, $lt: 400 } }))).toEqual([2]);
        expect(sortedIds(await users.find({ _id: { $gt: 3 } }))).toEqual([4, 5]);
        expect(sortedIds(await users.find({ name: { $gte: 'M' } }))).toEqual([1, 3, 4]);
      });

      it('matches array fields by element (multikey)', async () => {
        expect(sortedIds(await users.find({ groups: 'admins' }))).toEqual([1, 2]);
        expect(sortedIds(await users.find({ groups: 7 }))).toEqual([1]);
        expect(sortedIds(await users.find({ groups: 'all', role: { $gte: 200 } }))).toEqual([2, 3]);
        expect(sortedIds(await users.find({ groups: { $in: ['admins', 'nobody', 7] } }))).toEqual([1, 2]);
        expect(sortedIds(await users.find({ groups: { $nin: ['admins'] } }))).toEqual([3, 4, 5]);
        expect(sortedIds(await users.find({ groups: { $ne: 'all' } }))).toEqual([4, 5]);
        expect(sortedIds(await users.find({ groups: null }))).toEqual([5]);
        expect(await users.count({ groups: 'all' })).toBe(3);
      });

      it('keeps multikey entries in step with replaced and deleted documents', async () => {
        await users.put({ ...adam, groups: ['all'] });
        await users.delete(1);
        expect(await users.find({ groups: 'admins' })).toEqual([]);
        expect(sortedIds(await users.find({ groups: 'all' }))).toEqual([2, 3]);
      });

      it('sorts ascending and descending, with a limit', async () => {
        expect(ids(await users.find({}, { sort: ['name', 1] }))).toEqual([2, 5, 3, 4, 1]);
        expect(ids(await users.find({}, { sort: ['name', -1] }))).toEqual([1, 4, 3, 5, 2]);
        expect(ids(await users.find({ role: 400 }, { sort: ['_id', -1], limit: 2 }))).toEqual([5, 4]);
        expect(ids(await users.find({}, { sort: ['role', 1], limit: 2 }))).toEqual([1, 2]);
        expect(await users.find({}, { limit: 3 })).toHaveLength(3);
      });

      it('finds ids alone, in the order and number find would return', async () => {
        for (const [filter, options] of [
          [{ role: 400 }, { sort: ['_id', -1], limit: 2 }],
          [{}, { sort: ['name', 1] }],
          [{ active: true, role: { $gte: 200 } }, {}],
        ] as [Filter, FindOptions][]) {
          expect(await users.findIds(filter, options)).toEqual(ids(await users.find(filter, options)));
        }
        expect(await users.findIds({ name: 'Nobody' })).toEqual([]);
      });

      it('finds indexed fields alone, in the order and number find would return', async () => {
        for (const [filter, options] of [
          [{ role: 400 }, { sort: ['_id', -1], limit: 2 }],
          [{}, { sort: ['name', 1] }],
          [{ active: true, role: { $gte: 200 } }, {}],
        ] as [Filter, FindOptions][]) {
          const expected = (await users.find(filter, options)).map((u) => ({ _id: u._id, name: u.name, email: u.email ?? null, role: u.role }));
          expect(await users.findFields(filter, ['name', 'email', 'role'], options)).toEqual(expected);
        }
        expect(await users.findFields({ name: 'Nobody' }, ['role'])).toEqual([]);
      });

      it('finds indexed fields by column without ids, in the order and number find would return', async () => {
        for (const [filter, options] of [
          [{ role: 400 }, { sort: ['_id', -1], limit: 2 }],
          [{}, { sort: ['name', 1] }],
          [{}, { sort: ['name', -1], limit: 3 }],
          [{ active: true, role: { $gte: 200 } }, {}],
        ] as [Filter, FindOptions][]) {
          const found = await users.find(filter, options);
          const expected = [found.map((u) => u.role), found.map((u) => u.name), found.map((u) => u.email ?? null)];
          expect(await users.findColumns(filter, ['role', 'name', 'email'], options)).toEqual(expected);
          // One field alone, and the same field twice.
          expect(await users.findColumns(filter, ['name'], options)).toEqual([expected[1]]);
          expect(await users.findColumns(filter, ['name', 'name'], options)).toEqual([expected[1], expected[1]]);
        }
        expect(await users.findColumns({ name: 'Nobody' }, ['role'])).toEqual([[]]);
        expect(await users.findColumns({ name: 'Nobody' }, ['role', 'name'])).toEqual([[], []]);
      });

      it('sorts by a field declared distinct as by the same field with ties broken by id', async () => {
        for (const options of [{ sort: ['name', 1] }, { sort: ['name', -1], limit: 3 }] as FindOptions[]) {
          expect(ids(await users.find({}, { ...options, sortDistinct: true }))).toEqual(ids(await users.find({}, options)));
          expect(await users.findColumns({}, ['name'], { ...options, sortDistinct: true })).toEqual(await users.findColumns({}, ['name'], options));
        }
      });

      it('finds through a partial index exactly what a plain filter finds', async () => {
        const partial = store.collection<UserDoc>('partial_users', [{ fields: ['role', '_id'], where: { active: true } }]);
        for (const user of everyone) await partial.put(user);
        expect(ids(await partial.find({ active: true, role: 400 }, { sort: ['_id', 1] }))).toEqual([4, 5]);
        expect(ids(await partial.find({ active: false, role: 400 }, { sort: ['_id', 1] }))).toEqual([3]);
        expect(ids(await partial.find({ role: 400 }, { sort: ['_id', -1] }))).toEqual([5, 4, 3]);
        // A document leaves the index when its flag changes, and comes back.
        await partial.put({ ...mary, active: false });
        expect(ids(await partial.find({ active: true, role: 400 }))).toEqual([5]);
        await partial.put(mary);
        expect(sortedIds(await partial.find({ active: true, role: 400 }))).toEqual([4, 5]);
      });

      it('counts', async () => {
        expect(await users.count({})).toBe(5);
        expect(await users.count({ role: 400 })).toBe(3);
        expect(await users.count({ role: 400, active: false })).toBe(1);
        expect(await users.count({ name: 'Nobody' })).toBe(0);
      });

      it('rejects field names that are not plain identifiers', async () => {
        for (const field of ["name') OR 1=1 --", 'a.b', '$where', '', 'x y']) {
          await expect(users.find({ [field]: 1 })).rejects.toThrow();
          await expect(users.count({ [field]: 1 })).rejects.toThrow();
        }
        await expect(users.find({}, { sort: ['name; DROP TABLE users', 1] })).rejects.toThrow();
        expect(await users.count({})).toBe(5);
      });

      it('rejects unknown operators', async () => {
        await expect(users.find({ role: { $regex: 'x' } as never })).rejects.toThrow();
      });
    });

    describe('indexes', () => {
      it('rejects a document that violates a unique index, keeping the stored one', async () => {
        await users.put(olivia);
        await expect(users.put({ ...adam, name: olivia.name })).rejects.toThrow();
        expect(await users.get(2)).toBeUndefined();
        expect(await users.find({ name: olivia.name })).toEqual([olivia]);
        // Replacing a document while keeping its own unique value is fine.
        await users.put({ ...olivia, role: 200 });
        expect((await users.get(1))?.role).toBe(200);
      });

      it('enforces compound unique indexes on the combination', async () => {
        const memberships = store.collection<Doc & { user: number; channel: number }>('memberships', [
          { fields: ['user', 'channel'], unique: true },
        ]);
        await memberships.put({ _id: 'a', user: 1, channel: 1 });
        await memberships.put({ _id: 'b', user: 1, channel: 2 });
        await memberships.put({ _id: 'c', user: 2, channel: 1 });
        await expect(memberships.put({ _id: 'd', user: 1, channel: 2 })).rejects.toThrow();
        expect(await memberships.count({})).toBe(3);
      });
    });

    describe('checkpoints', () => {
      it('start at 0 and keep the last position set', async () => {
        expect(await store.getCheckpoint('users')).toBe(0);
        await store.setCheckpoint('users', 17);
        await store.setCheckpoint('users', 42);
        await store.setCheckpoint('channels', 3);
        expect(await store.getCheckpoint('users')).toBe(42);
        expect(await store.getCheckpoint('channels')).toBe(3);
      });
    });

    describe('batch', () => {
      it('applies every write of a successful batch and returns its result', async () => {
        const result = await store.batch(async () => {
          await users.put(olivia);
          await users.put(adam);
          await store.setCheckpoint('users', 9);
          return 'done';
        });
        expect(result).toBe('done');
        expect(sortedIds(await users.find({}))).toEqual([1, 2]);
        expect(await store.getCheckpoint('users')).toBe(9);
      });

      it('rethrows the error of a failed batch, rolling it back where atomic', async () => {
        await users.put(mark);
        const failure = new Error('projection failed');
        await expect(
          store.batch(async () => {
            await users.put(olivia);
            await users.delete(3);
            await store.setCheckpoint('users', 5);
            throw failure;
          }),
        ).rejects.toBe(failure);
        if (!fixture.atomicBatch) return;
        expect(await users.get(1)).toBeUndefined();
        expect(await users.get(3)).toEqual(mark);
        expect(await store.getCheckpoint('users')).toBe(0);
        // The store is usable after a rollback.
        await users.put(olivia);
        expect(await users.get(1)).toEqual(olivia);
      });
    });

    describe('cached collections', () => {
      const copy = <T,>(value: T): T => JSON.parse(JSON.stringify(value)) as T;
      let cached: Collection<UserDoc>;
      beforeEach(() => {
        cached = store.collection<UserDoc>('cached_users', USER_INDEXES, { cacheSize: 2 });
      });

      it('answers reads with the stored version, frozen, the same object until it changes', async () => {
        for (const user of everyone) await cached.put(copy(user));
        const first = await cached.get(1);
        expect(first).toEqual(olivia);
        expect(Object.isFrozen(first)).toBe(true);
        expect(Object.isFrozen(first!.groups)).toBe(true);
        expect(await cached.get(1)).toBe(first);
        expect((await cached.getMany([3, 1, 42]))).toEqual([mark, olivia]);
        expect((await cached.find({ _id: 1 }))[0]).toBe(first);
        await cached.put({ ...copy(olivia), name: 'Olivia B.' });
        expect(await cached.get(1)).toEqual({ ...olivia, name: 'Olivia B.' });
        await cached.delete(1);
        expect(await cached.get(1)).toBeUndefined();
        // Beyond the cache's size, documents still come from the store.
        expect(sortedIds(await cached.getMany([2, 3, 4, 5]))).toEqual([2, 3, 4, 5]);
      });

      it('with cacheWrites off, caches what is read, not what is written', async () => {
        const readOnly = store.collection<UserDoc>('read_cached_users', USER_INDEXES, { cacheSize: 2, cacheWrites: false });
        const written = copy(olivia);
        await readOnly.put(written);
        const first = await readOnly.get(1);
        expect(first).toEqual(olivia);
        expect(first).not.toBe(written);
        expect(Object.isFrozen(written)).toBe(false);
        expect(await readOnly.get(1)).toBe(first);
        // A put replaces what was cached.
        await readOnly.put({ ...copy(olivia), name: 'Olivia B.' });
        expect((await readOnly.get(1))?.name).toBe('Olivia B.');
      });

      it('forgets what a rolled-back batch wrote', async () => {
        await cached.put(copy(mark));
        await expect(
          store.batch(async () => {
            await cached.put({ ...copy(mark), name: 'Changed' });
            expect((await cached.get(3))?.name).toBe('Changed');
            throw new Error('projection failed');
          }),
        ).rejects.toThrow('projection failed');
        if (!fixture.atomicBatch) return;
        expect(await cached.get(3)).toEqual(mark);
      });
    });

    describe('durability', () => {
      it('resolves durable() only once the batches queued before it are done', async () => {
        let open!: () => void;
        const gate = new Promise<void>((resolve) => (open = resolve));
        const queued = store.batch(async () => {
          await gate;
          await users.put(adam);
        });
        let done = false;
        const durable = store.durable().then(() => (done = true));
        await new Promise((resolve) => setTimeout(resolve, 20));
        expect(done).toBe(false);
        open();
        await Promise.all([queued, durable]);
        expect(await users.get(2)).toEqual(adam);
      });

      it('keeps documents, indexes and checkpoints across a reopen', async () => {
        if (!fixture.reopen) return;
        await seed();
        await store.setCheckpoint('users', 12);
        store = await fixture.reopen();
        users = store.collection<UserDoc>('users', USER_INDEXES);
        expect(await users.get(3)).toEqual(mark);
        expect(sortedIds(await users.find({ groups: 'admins' }))).toEqual([1, 2]);
        expect(await store.getCheckpoint('users')).toBe(12);
        await expect(users.put({ ...bot, _id: 6, name: adam.name })).rejects.toThrow();
      });

      it('drops a collection no longer declared, with its indexes; a collection of that name starts empty', async () => {
        await seed();
        await expect(store.dropCollection('users')).rejects.toThrow(/open/);
        if (!fixture.reopen) return;
        store = await fixture.reopen();
        await store.dropCollection('users');
        await store.dropCollection('never_there');
        users = store.collection<UserDoc>('users', USER_INDEXES);
        expect(await users.find({})).toEqual([]);
        expect(await users.find({ groups: 'admins' })).toEqual([]);
        await users.put(olivia);
        expect(await users.find({ groups: 'admins' })).toEqual([olivia]);
      });
    });
  });
}
