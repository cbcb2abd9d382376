import { InProcessBus } from '@teamchat/platform';
import { GatewayPeers } from '../src/http/peers';

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
});
