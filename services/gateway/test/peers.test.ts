import { isApiError } from '@teamchat/contracts';
import { InProcessBus } from '@teamchat/platform';
import { busRequest, GatewayPeers } from '../src/http/peers';

describe('GatewayPeers (read-your-writes tokens)', () => {
  const bus = new InProcessBus();
  afterAll(() => bus.close());

  it("gives each user their own last write, and nothing to a request without credentials", async () => {
    const peers = await GatewayPeers.join(bus, false);
    await peers.wrote(7, 40);
    await peers.wrote(8, 45);
    await peers.wrote(7, 30); // an older position never replaces a newer one
    expect(peers.known(7)).toBe(40);
    expect(peers.known(8)).toBe(45);
    expect(peers.known(9)).toBeUndefined();
    expect(peers.known(undefined)).toBeUndefined();
  });

  it('with everyWrite, gives everyone the newest write acknowledged to anyone (the embedded server)', async () => {
    const peers = await GatewayPeers.join(bus, false, true);
    expect(peers.known(9)).toBeUndefined();
    await peers.wrote(7, 40);
    // Another user, and a request without credentials, wait for 7's write too: the
    // service answered it before its read models showed it.
    expect(peers.known(9)).toBe(40);
    expect(peers.known(undefined)).toBe(40);
    await peers.wrote(undefined, 44); // a write by a request without credentials
    await peers.wrote(8, 41);
    expect(peers.known(7)).toBe(44);
  });

  it('builds an envelope whose absent members do not cross the bus', () => {
    const actor = { user_id: 7, email: 'a@example.com', full_name: 'A', role: 400, is_bot: false, client: 'website' };
    const wire = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
    expect(wire(busRequest(undefined, {}, { anchor: 1 }))).toStrictEqual({ params: { anchor: 1 } });
    expect(wire(busRequest(actor, { after: 40 }, {}))).toStrictEqual({ actor, after: 40, params: {} });
    expect(wire(busRequest(actor, { after: 40, whenDurable: true }, {}))).toStrictEqual({ actor, after: 40, whenDurable: true, params: {} });
    expect(wire(busRequest(actor, { whenDurable: true }, {}))).toStrictEqual({ actor, whenDurable: true, params: {} });
  });

  describe('consistency (what a request sends a service)', () => {
    it("sends the user's last write as after, and nothing more, from a gateway of its own", async () => {
      const peers = await GatewayPeers.join(bus, false);
      await peers.wrote(7, 40);
      const mine = peers.consistency(7);
      // At hand, not a promise: the request path spends no microtask turn on it.
      expect(mine).not.toBeInstanceOf(Promise);
      expect(mine).toEqual({ after: 40 });
      expect(peers.consistency(9)).toEqual({});
      expect(peers.consistency(undefined)).toEqual({});
    });

    it('with everyWrite, sends the newest write to anyone and lets the service answer writes once durable', async () => {
      const peers = await GatewayPeers.join(bus, false, true);
      expect(peers.consistency(9)).toEqual({ whenDurable: true });
      await peers.wrote(7, 40);
      expect(peers.consistency(9)).toEqual({ after: 40, whenDurable: true });
      expect(peers.consistency(undefined)).toEqual({ after: 40, whenDurable: true });
    });

    it('with shared gateways, sends a write acknowledged through another gateway, after a round trip to the bus', async () => {
      const shared = new InProcessBus();
      try {
        const one = await GatewayPeers.join(shared, true);
        const other = await GatewayPeers.join(shared, true);
        await one.wrote(7, 40);
        const synced = other.sync();
        expect(synced).toBeInstanceOf(Promise);
        await synced;
        expect(other.consistency(7)).toEqual({ after: 40 });
        expect(other.consistency(8)).toEqual({});
        expect(other.consistency(undefined)).toEqual({});
      } finally {
        await shared.close();
      }
    });

    it('needs no round trip with one gateway', async () => {
      const bus = new InProcessBus();
      try {
        expect((await GatewayPeers.join(bus, false)).sync()).toBeUndefined();
      } finally {
        await bus.close();
      }
    });

    it('answers 503 SERVICE_UNAVAILABLE when the bus cannot make the round trip', async () => {
      const gone = new InProcessBus();
      const peers = await GatewayPeers.join(gone, true);
      await gone.close();
      const err: unknown = await Promise.resolve(peers.sync()).catch((e: unknown) => e);
      expect(isApiError(err) && { code: err.code, status: err.status }).toEqual({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    });
  });
});
