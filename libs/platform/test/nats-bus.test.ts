import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { isBusError, NatsBus } from '@teamchat/platform';
import { busContract, describeWithNats, startNatsServer, type NatsServer } from '@teamchat/platform/testing';

describeWithNats('NatsBus', () => {
  let server: NatsServer;

  beforeAll(async () => {
    server = await startNatsServer();
  });

  afterAll(() => server?.stop());

  busContract('NatsBus', async () => {
    const bus = await NatsBus.connect(server.url, 'contract-first');
    const second = await NatsBus.connect(server.url, 'contract-second');
    return { bus, second, cleanup: async () => void (await Promise.all([bus.close(), second.close()])) };
  });

  it('answers NO_RESPONDERS once the only serving connection has closed', async () => {
    const client = await NatsBus.connect(server.url, 'client');
    const service = await NatsBus.connect(server.url, 'service');
    try {
      await service.serve('nats-only.closed', async () => 'up', 'service');
      await expect(client.request('nats-only.closed', null, 2000)).resolves.toBe('up');
      await service.close();
      const err = await client.request('nats-only.closed', null, 2000).catch((e: unknown) => e);
      expect(isBusError(err) && err.code).toBe('NO_RESPONDERS');
    } finally {
      await Promise.all([client.close(), service.close()]);
    }
  });
});
