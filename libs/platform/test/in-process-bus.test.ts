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

describe('InProcessBus parts of a reply', () => {
  it('hands the handler a sender only where replies are handed over and the requester takes parts', async () => {
    for (const [copyReplies, listening, offered] of [
      [false, true, true],
      [false, false, false],
      [true, true, false],
    ] as const) {
      const bus = new InProcessBus({ copyReplies });
      let given: unknown = 'not called';
      await bus.serve('s', async (_payload, _subject, sendPart) => {
        given = sendPart;
        return 'done';
      });
      await bus.request('s', null, 1000, listening ? () => undefined : undefined);
      expect(typeof given === 'function').toBe(offered);
      await bus.close();
    }
  });

  it('delivers the parts in order and before the reply, and drops those sent after it', async () => {
    const bus = new InProcessBus({ copyReplies: false });
    const seen: Json[] = [];
    let late: ((part: Json) => void) | undefined;
    const part = { members: 'a' };
    await bus.serve('s', async (_payload, _subject, sendPart) => {
      sendPart!(part);
      await new Promise((resolve) => setTimeout(resolve, 5));
      sendPart!('second');
      late = sendPart;
      return 'reply';
    });
    const reply = await bus.request('s', null, 1000, (p) => seen.push(p));
    seen.push(reply);
    late!('after the reply');
    expect(seen).toEqual([part, 'second', 'reply']);
    // Handed over as it was sent, not copied.
    expect(seen[0]).toBe(part);
    await bus.close();
  });
});
