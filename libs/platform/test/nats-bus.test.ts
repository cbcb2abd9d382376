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

  it('fails a flush under way when the connection is lost as DISCONNECTED, not with the driver\'s own error', async () => {
    // A gateway shared with others flushes before every request (GatewayPeers): one that
    // was in flight when nats-server went away reached the client as a 500.
    const own = await startNatsServer();
    const client = await NatsBus.connect(own.url, 'client');
    try {
      await client.flush();
      // Frozen, the server takes the PING and never answers it; killed, it drops the connection.
      process.kill(own.pid!, 'SIGSTOP');
      // Stopped before the PING leaves: on a loaded machine a signal may take a moment, and
      // a server still running answers it (the flush then succeeds and proves nothing).
      await new Promise((resolve) => setTimeout(resolve, 50));
      const flushing = client.flush().then(
        () => 'flushed',
        (e: unknown) => e,
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      process.kill(own.pid!, 'SIGKILL');
      const err = await flushing;
      expect(isBusError(err) && err.code).toBe('DISCONNECTED');
    } finally {
      await client.close();
      await own.stop();
    }
  });

  it('fails requests at once while nats-server is away, and serves again once it is back', async () => {
    const own = await startNatsServer();
    const client = await NatsBus.connect(own.url, 'client');
    const service = await NatsBus.connect(own.url, 'service');
    let restarted: NatsServer | undefined;
    try {
      await service.serve('nats-only.outage', async () => 'up', 'service');
      await expect(client.request('nats-only.outage', null, 2000)).resolves.toBe('up');
      await own.stop();
      // The client notices the lost connection, then refuses without waiting for a timeout.
      const deadline = Date.now() + 5000;
      while (client.connected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const started = Date.now();
      const err = await client.request('nats-only.outage', null, 5000).catch((e: unknown) => e);
      expect(isBusError(err) && err.code).toBe('DISCONNECTED');
      expect(Date.now() - started).toBeLessThan(1000);
      await expect(client.flush()).rejects.toMatchObject({ code: 'DISCONNECTED' });
      restarted = await startNatsServer(own.port);
      const back = Date.now() + 15_000;
      let answer: unknown;
      while (answer !== 'up' && Date.now() < back) {
        answer = await client.request('nats-only.outage', null, 1000).catch(() => undefined);
        if (answer !== 'up') await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(answer).toBe('up');
    } finally {
      await Promise.all([client.close(), service.close()]);
      await restarted?.stop();
    }
  }, 30_000);
});
