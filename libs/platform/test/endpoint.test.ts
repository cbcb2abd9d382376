import { InProcessBus, callEndpoint, serveEndpoint } from '@teamchat/platform';
import pino from 'pino';
import { z } from 'zod';

describe('serveEndpoint', () => {
  const members = '{"messages":[{"content":"ünïcode ✔"}]}';

  // A bus that copies replies stands for any that serializes them (NATS).
  it.each([
    ['copies replies (as NATS serializes them)', true, 'string'],
    ['passes replies by value', false, 'object'],
  ])('hands pre-serialized bytes over a bus that %s as %s', async (_label, copyReplies, kind) => {
    const bus = new InProcessBus({ copyReplies });
    await serveEndpoint(bus, 'test.page', z.object({}), async () => ({ value: { found_newest: true }, json: Buffer.from(members) }), {
      queueGroup: 'test',
      log: pino({ level: 'silent' }),
    });
    const { value, json } = await callEndpoint(bus, 'test.page', { params: {} });
    expect(value).toEqual({ found_newest: true });
    expect(typeof json).toBe(kind);
    expect(Buffer.from(json as string | Uint8Array).toString()).toBe(members);
    await bus.close();
  });
});
