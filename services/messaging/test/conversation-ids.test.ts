import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { streams } from '@teamchat/contracts';
import { newId, Projector, SqliteEventStore, SqliteReadModelStore, type EventStore, type StoredFact } from '@teamchat/platform';
import { ConversationIds, type Exclusive } from '../src/handlers/conversation-ids';
import { ConversationsReadModel } from '../src/projections/conversations';

const log = pino({ level: 'silent' });
const STREAM = streams.messageRecipients;

/** The store, counting the facts its stream reads return (what a start pays). */
function counting(store: EventStore) {
  const read = { facts: 0 };
  const counted: EventStore = Object.create(store) as EventStore;
  counted.readStream = async (stream, from) => {
    const facts = await store.readStream(stream, from);
    read.facts += facts.length;
    return facts;
  };
  return { counted, read };
}

/** A generated registry: `n` conversations allocated in one append, as a long history leaves them. */
async function generated(n: number) {
  const store = SqliteEventStore.open(':memory:');
  const facts = Array.from({ length: n }, (_, i) => ({ id: newId(), type: 'RecipientAllocated', data: { type: 'RecipientAllocated', key: `direct:${i}`, recipient_id: i + 1 } }));
  for (let at = 0; at < n; at += 5_000) await store.append(STREAM, facts.slice(at, at + 5_000), at === 0 ? 'no_stream' : at - 1);
  return store;
}

/** The messaging projector's part that keeps the registry's read model, caught up. */
async function project(store: EventStore, readModels: SqliteReadModelStore) {
  const model = new ConversationsReadModel(readModels);
  const projector = new Projector({ name: 'conversations-test', store, readModels, log, handlers: model.handlers, collections: model.collections });
  await projector.start();
  const exclusive: Exclusive = async (work) => (await projector.snapshot(work)).value;
  return { model, projector, exclusive };
}

const started = async (store: EventStore, model: ConversationsReadModel, exclusive: Exclusive) => {
  const ids = new ConversationIds(store, model);
  await ids.start(exclusive);
  return ids;
};

describe('ConversationIds', () => {
  it('starts without reading the registry stream however many conversations it holds (2,000 or 20,000), and allocates after the last', async () => {
    for (const n of [2_000, 20_000]) {
      const store = await generated(n);
      const readModels = SqliteReadModelStore.open(':memory:');
      const { model, projector, exclusive } = await project(store, readModels);
      const { counted, read } = counting(store);
      const ids = await started(counted, model, exclusive);
      expect(read.facts).toBe(0);
      expect(await ids.idFor('direct:17')).toBe(18);
      expect(await ids.idFor(`direct:${n - 1}`)).toBe(n);
      expect(await ids.idFor('channel:5')).toBe(n + 1);
      expect(await ids.idFor('channel:5')).toBe(n + 1);
      expect(read.facts).toBe(0);
      const tail = await store.readStream(STREAM, n);
      expect(tail.map((f) => (f.data as { key: string }).key)).toEqual(['channel:5']);
      await projector.stop();
      await store.close();
      await readModels.close();
    }
  });

  it('reads only the allocations after the read model\'s mark, and the mark follows new ones', async () => {
    const store = await generated(300);
    const readModels = SqliteReadModelStore.open(':memory:');
    const { model, projector, exclusive } = await project(store, readModels);
    const first = await started(store, model, exclusive);
    const appended = await Promise.all(['channel:1', 'channel:2', 'direct:1,2'].map((key) => first.idFor(key)));
    expect(appended).toEqual([301, 302, 303]);
    await projector.waitFor(await store.headPosition());
    expect(await model.mark()).toMatchObject({ revision: 302, last_id: 303 });
    // A second instance over a read model that is behind: it reads what the mark lacks.
    const { counted, read } = counting(store);
    const lagging = new ConversationsReadModel(SqliteReadModelStore.open(':memory:'));
    await lagging.allocated('direct:0', 1, { stream: STREAM, revision: 0, position: 1 });
    const second = await started(counted, lagging, exclusive);
    expect(read.facts).toBe(302);
    expect(await second.idFor('direct:1,2')).toBe(303);
    expect(await second.idFor('channel:9')).toBe(304);
    await projector.stop();
    await store.close();
    await readModels.close();
  });

  it('copies the stream in once for a store whose allocations are older than the read model', async () => {
    const store = await generated(1_000);
    const readModels = SqliteReadModelStore.open(':memory:');
    // The messaging projector was past every allocation before it kept this read model.
    await readModels.setCheckpoint('conversations-test', await store.headPosition());
    const { model, projector, exclusive } = await project(store, readModels);
    expect(await model.mark()).toBeUndefined();
    const { counted, read } = counting(store);
    const first = new ConversationIds(counted, model);
    expect(await first.start(exclusive)).toEqual({ filled: 1_000 });
    expect(await model.mark()).toMatchObject({ revision: 999, last_id: 1_000 });
    expect(await first.idFor('direct:999')).toBe(1_000);
    expect(await first.idFor('channel:1')).toBe(1_001);
    await projector.waitFor(await store.headPosition());
    read.facts = 0;
    const again = new ConversationIds(counted, model);
    expect(await again.start(exclusive)).toEqual({ filled: 0 });
    expect(read.facts).toBe(0);
    expect(await again.idFor('channel:1')).toBe(1_001);
    await projector.stop();
    await store.close();
    await readModels.close();
  });

  it('agrees with another process that allocated the same conversation first (its read model not there yet)', async () => {
    const store = await generated(10);
    const readModels = SqliteReadModelStore.open(':memory:');
    const { model, projector, exclusive } = await project(store, readModels);
    const here = await started(store, model, exclusive);
    await projector.stop();
    // The other process's allocation is in the store only: this read model never sees it.
    const elsewhere = new ConversationIds(store, new ConversationsReadModel(SqliteReadModelStore.open(':memory:')));
    expect(await elsewhere.idFor('direct:3,4')).toBe(11);
    expect(await here.idFor('direct:3,4')).toBe(11);
    expect(await here.idFor('direct:4,5')).toBe(12);
    expect(await elsewhere.idFor('direct:4,5')).toBe(12);
    await store.close();
    await readModels.close();
  });
});

describe('ConversationsReadModel mark', () => {
  const at = (revision: number): Pick<StoredFact, 'stream' | 'revision' | 'position'> => ({ stream: STREAM, revision, position: 100 + revision });

  it('moves only onto the next revision: a replay or a gap leaves it, every id is still kept', async () => {
    const model = new ConversationsReadModel(SqliteReadModelStore.open(':memory:'));
    await model.allocated('channel:1', 1, at(0));
    await model.allocated('channel:2', 2, at(1));
    await model.allocated('channel:1', 1, at(0));
    expect(await model.mark()).toMatchObject({ revision: 1, position: 101, last_id: 2 });
    await model.allocated('channel:4', 4, at(3));
    expect(await model.mark()).toMatchObject({ revision: 1, last_id: 2 });
    expect(await model.idOf('channel:4')).toBe(4);
    await model.allocated('channel:3', 3, at(2));
    expect(await model.mark()).toMatchObject({ revision: 2, last_id: 3 });
    await model.allocated('other', 9, { stream: 'elsewhere', revision: 3, position: 500 });
    expect(await model.idOf('other')).toBeUndefined();
  });
});
