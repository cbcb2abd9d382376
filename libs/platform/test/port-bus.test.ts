import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it, jest } from '@jest/globals';
import { isSharedArrayBuffer } from 'node:util/types';
import { DEFAULT_MAX_PAYLOAD, InProcessBus, PortBus, bridgePort, claimLent, enableReplyArena, isBusError, replyBytes } from '@teamchat/platform';
import { busContract } from '@teamchat/platform/testing';

/** A PortBus over a MessageChannel in this thread: every operation still crosses the port. */
function connected() {
  const hub = new InProcessBus();
  const { port1, port2 } = new MessageChannel();
  const bridge = bridgePort(hub, port2);
  const bus = new PortBus(port1, DEFAULT_MAX_PAYLOAD);
  const cleanup = async () => {
    await bus.close();
    await bridge.close();
    await hub.close();
  };
  return { hub, bus, bridge, cleanup };
}

// The worker's side asks, the hub's side serves; then the other way round.
busContract('PortBus (requesting through the hub)', async () => {
  const { hub, bus, cleanup } = connected();
  return { bus, second: hub, cleanup };
});

busContract('PortBus (serving the hub)', async () => {
  const { hub, bus, cleanup } = connected();
  return { bus: hub, second: bus, cleanup };
});

describe('PortBus', () => {
  it('carries requests between two worker-side buses through the hub', async () => {
    const hub = new InProcessBus();
    const a = new MessageChannel();
    const b = new MessageChannel();
    const bridges = [bridgePort(hub, a.port2), bridgePort(hub, b.port2)];
    const left = new PortBus(a.port1, DEFAULT_MAX_PAYLOAD);
    const right = new PortBus(b.port1, DEFAULT_MAX_PAYLOAD);
    await right.serve('math.double', async (payload) => (payload as number) * 2);
    await expect(left.request('math.double', 21, 1000)).resolves.toBe(42);
    await left.close();
    await right.close();
    for (const bridge of bridges) await bridge.close();
    await hub.close();
  });

  it('reports a publication the hub refuses (too large), since the publisher cannot hear of it', async () => {
    const { hub, bus, cleanup } = connected();
    const heard: unknown[] = [];
    await hub.subscribe('feed', (payload) => heard.push(payload));
    const logged = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      bus.publish('feed', 'x'.repeat(DEFAULT_MAX_PAYLOAD + 1));
      bus.publish('feed', 'small');
      await bus.flush();
      expect(heard).toEqual(['small']);
      expect(logged).toHaveBeenCalledWith('publication on feed refused:', expect.objectContaining({ code: 'MAX_PAYLOAD_EXCEEDED' }));
    } finally {
      logged.mockRestore();
    }
    await cleanup();
  });

  describe('carriesBytes', () => {
    /** What a requester on the hub receives from a worker-side server. */
    async function served(reply: Record<string, unknown>, carriesBytes: boolean) {
      const hub = new InProcessBus({ copyReplies: false });
      const { port1, port2 } = new MessageChannel();
      const bridge = bridgePort(hub, port2);
      const bus = new PortBus(port1, DEFAULT_MAX_PAYLOAD, { carriesBytes });
      await bus.serve('messages.get', async () => reply as never);
      const answer = (await hub.request('messages.get', null, 1000)) as Record<string, unknown>;
      await bus.close();
      await bridge.close();
      await hub.close();
      return answer;
    }
    const text = '{"messages":[{"content":"ünïcode ✔"}]}';

    it('moves a reply’s bytes to the requester: the buffer leaves the worker', async () => {
      const bytes = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
      bytes.write(text);
      const answer = await served({ ok: true, value: { found_newest: true }, json: bytes }, true);
      expect(Buffer.from(answer.json as Uint8Array).toString()).toBe(text);
      expect(answer.value).toEqual({ found_newest: true });
      // Moved, not copied: the worker's view of it is now empty.
      expect(bytes.byteLength).toBe(0);
    });

    it('copies bytes that share their buffer, and leaves text as text', async () => {
      const pooled = Buffer.from(text);
      const answer = await served({ ok: true, value: {}, json: pooled }, true);
      expect(Buffer.from(answer.json as Uint8Array).toString()).toBe(text);
      expect(pooled.toString()).toBe(text);
      await expect(served({ ok: true, value: {}, json: text }, true)).resolves.toEqual({ ok: true, value: {}, json: text });
    });

    it('lends a reply’s bytes from the worker’s arena: shared with the requester, given back by it', async () => {
      const arena = enableReplyArena();
      const bytes = replyBytes(Buffer.byteLength(text));
      bytes.write(text);
      const answer = await served({ ok: true, value: {}, json: bytes }, true);
      const json = answer.json as Uint8Array;
      expect(Buffer.from(json).toString()).toBe(text);
      expect(isSharedArrayBuffer(json.buffer)).toBe(true);
      expect(arena.lent()).toBe(1);
      claimLent(json)!();
      expect(arena.lent()).toBe(0);
    });

    it('gives back the lent bytes of a reply that comes too late to be read', async () => {
      const arena = enableReplyArena();
      const hub = new InProcessBus({ copyReplies: false });
      const { port1, port2 } = new MessageChannel();
      const bridge = bridgePort(hub, port2);
      const bus = new PortBus(port1, DEFAULT_MAX_PAYLOAD, { carriesBytes: true });
      let handled!: () => void;
      const late = new Promise<void>((resolve) => (handled = resolve));
      await bus.serve('messages.slow', async () => {
        await new Promise((resolve) => setTimeout(resolve, 60));
        const json = replyBytes(2);
        json.write('{}');
        setTimeout(handled, 20);
        return { ok: true, value: {}, json } as never;
      });
      await expect(hub.request('messages.slow', null, 10)).rejects.toMatchObject({ code: 'TIMEOUT' });
      await late;
      expect(arena.lent()).toBe(0);
      await bus.close();
      await bridge.close();
      await hub.close();
    });

    it('is off unless the hub passes replies by value', () => {
      const { port1, port2 } = new MessageChannel();
      expect(new PortBus(port1, DEFAULT_MAX_PAYLOAD).carriesBytes).toBe(false);
      port1.close();
      port2.close();
      expect(new InProcessBus().carriesBytes).toBe(false);
      expect(new InProcessBus({ copyReplies: false }).carriesBytes).toBe(true);
    });
  });

  it('drops the worker’s subscriptions from the hub when the bridge closes', async () => {
    const { hub, bus, bridge, cleanup } = connected();
    await bus.serve('gone.soon', async () => 'here');
    await expect(hub.request('gone.soon', null, 1000)).resolves.toBe('here');
    await bridge.close();
    const err = await hub.request('gone.soon', null, 1000).catch((e: unknown) => e);
    expect(isBusError(err) && err.code).toBe('NO_RESPONDERS');
    await cleanup();
  });
});
