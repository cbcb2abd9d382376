import { describe, expect, it } from '@jest/globals';
import { InProcessBus, type Json } from '@teamchat/platform';
import { busContract } from '@teamchat/platform/testing';

busContract('InProcessBus', async () => {
  const bus = new InProcessBus();
  return { bus, cleanup: () => bus.close() };
});

describe('InProcessBus reply copying', () => {
  it('copies replies through JSON by default, and hands them over when asked not to', async () => {
    const shared = { nested: { n: 1 }, when: undefined as unknown };
    for (const [copyReplies, same] of [[true, false], [false, true]] as const) {
      const bus = new InProcessBus({ copyReplies });
      await bus.serve('s', async () => shared as unknown as Json);
      const reply = (await bus.request('s', null, 1000)) as Record<string, unknown>;
      expect(reply === (shared as unknown)).toBe(same);
      expect(reply).toHaveProperty('nested.n', 1);
      await bus.close();
    }
  });
});
