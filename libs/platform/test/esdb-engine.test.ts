/**
 * The event store contract against a real EventStoreDB (insecure single node) started by
 * testcontainers, and the adapter's recovery when the engine restarts. Skipped, with one
 * printed line, where no Docker engine answers.
 */
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';
import { connectEsdb, EsdbEventStore } from '@teamchat/platform';
import { describeWithDocker, eventStoreContract, waitFor } from '@teamchat/platform/testing';

export const ESDB_IMAGE = 'eventstore/eventstore:24.10';

export function esdbContainer(): GenericContainer {
  return new GenericContainer(ESDB_IMAGE)
    .withEnvironment({
      EVENTSTORE_INSECURE: 'true',
      EVENTSTORE_CLUSTER_SIZE: '1',
      EVENTSTORE_RUN_PROJECTIONS: 'None',
      EVENTSTORE_ENABLE_ATOM_PUB_OVER_HTTP: 'false',
    })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCode(204))
    .withStartupTimeout(120_000);
}

const urlOf = (container: StartedTestContainer) => `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`;

describeWithDocker('EventStoreDB engine', () => {
  let container: StartedTestContainer;
  beforeAll(async () => {
    container = await esdbContainer().start();
  }, 180_000);
  afterAll(async () => {
    await container?.stop();
  });

  eventStoreContract('EsdbEventStore (EventStoreDB in a container)', async () => {
    let store = new EsdbEventStore(connectEsdb(urlOf(container)));
    return {
      store,
      idsUniqueAcrossStreams: false,
      reopen: async () => {
        await store.close();
        store = new EsdbEventStore(connectEsdb(urlOf(container)));
        return store;
      },
      cleanup: () => store.close(),
    };
  });

  it('delivers every fact once across a restart of the engine', async () => {
    const store = new EsdbEventStore(connectEsdb(urlOf(container)));
    const base = await store.headPosition();
    const seen: number[] = [];
    const sub = store.subscribeToAll((fact) => void seen.push(fact.position), { after: base });
    const before = await store.append(`restart-${Date.now()}`, [{ id: crypto.randomUUID(), type: 'thing_happened', data: {} }], 'no_stream');
    await waitFor(() => seen.length === 1, 10_000);
    await container.restart();
    let after: number[] = [];
    // Appends fail while the engine is away; the first one after it returns succeeds.
    for (let attempt = 0; after.length === 0; attempt++) {
      try {
        after = (await store.append(`restart-${Date.now()}`, [{ id: crypto.randomUUID(), type: 'thing_happened', data: {} }], 'no_stream')).positions;
      } catch (err) {
        if (attempt > 60) throw err;
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
    await waitFor(() => seen.length === 2, 30_000);
    await sub.stop();
    await store.close();
    expect(seen).toEqual([...before.positions, ...after]);
  }, 180_000);
});
