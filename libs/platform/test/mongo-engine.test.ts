/**
 * The read-model contract against a real MongoDB started by testcontainers: as a
 * single-node replica set (batches are transactions) and with transactions turned off
 * (writes one by one, as on a standalone server), and the position guard that makes a
 * replayed fact change nothing. Skipped, with one printed line, where no Docker engine answers.
 */
import { MongoDBContainer, type StartedMongoDBContainer } from '@testcontainers/mongodb';
import { MongoReadModelStore, type Doc } from '@teamchat/platform';
import { describeWithDocker, readModelContract, textIndexContract } from '@teamchat/platform/testing';

export const MONGO_IMAGE = 'mongo:7.0';

describeWithDocker('MongoDB engine', () => {
  let container: StartedMongoDBContainer;
  let databases = 0;
  beforeAll(async () => {
    container = await new MongoDBContainer(MONGO_IMAGE).start();
  }, 180_000);
  afterAll(async () => {
    await container?.stop();
  });
  // The container's URL names its replica set; directConnection reaches the one node.
  const url = () => `${container.getConnectionString()}/?directConnection=true`;

  for (const transactions of ['auto', 'off'] as const) {
    const openMongo = async () => {
      const database = `contract_${transactions}_${++databases}`;
      let store = await MongoReadModelStore.connect(url(), database, { transactions });
      return {
        store,
        atomicBatch: transactions === 'auto',
        reopen: async () => {
          await store.close();
          store = await MongoReadModelStore.connect(url(), database, { transactions });
          return store;
        },
        cleanup: () => store.close(),
      };
    };
    readModelContract(`MongoReadModelStore (transactions ${transactions})`, openMongo);
    textIndexContract(`MongoReadModelStore (transactions ${transactions})`, openMongo);
  }

  it('offers transactions on a single-node replica set', async () => {
    const store = await MongoReadModelStore.connect(url(), 'probe');
    expect(store.transactions).toBe(true);
    await store.close();
  });

  it('drops the writes of a replayed fact (position guard), without transactions', async () => {
    const store = await MongoReadModelStore.connect(url(), `guard_${++databases}`, { transactions: 'off' });
    const counters = store.collection<Doc & { n: number }>('counters');
    const increment = async (position: number) =>
      store.batch(async () => {
        store.applying(position);
        const doc = (await counters.get('c')) ?? { _id: 'c', n: 0 };
        await counters.put({ ...doc, n: doc.n + 1 });
        await counters.put({ ...doc, n: doc.n + 1 });
        store.applying(undefined);
      });
    await increment(10);
    await increment(11);
    // A crash lost the checkpoint: facts 10 and 11 are applied again, then 12 is new.
    await increment(10);
    await increment(11);
    await increment(12);
    expect(await counters.get('c')).toEqual({ _id: 'c', n: 3 });
    await store.close();
  });
});
