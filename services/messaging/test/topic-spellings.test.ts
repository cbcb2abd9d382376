import { describe, expect, it } from '@jest/globals';
import { SqliteReadModelStore } from '@teamchat/platform';
import { TopicSpellings, withSpelling } from '../src/projections/topic-spellings';

describe("a channel topic's spelling", () => {
  it('is kept as the first message spells it, left out when it is the key, and mixed once another meets it', () => {
    expect(withSpelling(undefined, 10, 'lunch')).toEqual({ _id: '10:lunch' });
    expect(withSpelling(undefined, 10, 'Lunch')).toEqual({ _id: '10:lunch', spelling: 'Lunch' });
    // The same spelling again (a replayed fact, or the next message): no change.
    expect(withSpelling({ _id: '10:lunch' }, 10, 'lunch')).toBeUndefined();
    expect(withSpelling({ _id: '10:lunch', spelling: 'Lunch' }, 10, 'Lunch')).toBeUndefined();
    expect(withSpelling({ _id: '10:lunch' }, 10, 'LUNCH')).toEqual({ _id: '10:lunch', mixed: true });
    expect(withSpelling({ _id: '10:lunch', spelling: 'Lunch' }, 10, 'lunch')).toEqual({ _id: '10:lunch', mixed: true });
    // Mixed stays mixed.
    expect(withSpelling({ _id: '10:lunch', mixed: true }, 10, 'lunch')).toBeUndefined();
  });

  it("answers a channel's topics only where the store holds every message's (its collection emptied for a replay from the start)", async () => {
    const store = SqliteReadModelStore.open(':memory:');
    const spellings = new TopicSpellings(store);
    await spellings.joined(1, 'Plans');
    // A store older than the spellings: they may miss its older messages.
    expect(await spellings.ofChannel(1)).toBeUndefined();
    await spellings.collection.clear();
    for (const [channel, topic] of [[1, 'Plans'], [1, 'plans'], [1, 'Ideas'], [1, 'misc'], [10, 'Other'], [2, 'x']] as const) {
      await spellings.joined(channel, topic);
    }
    const one = await spellings.ofChannel(1);
    expect(one && [...one].sort()).toEqual([['ideas', 'Ideas'], ['misc', 'misc'], ['plans', undefined]]);
    expect([...(await spellings.ofChannel(10))!]).toEqual([['other', 'Other']]);
    expect((await spellings.ofChannel(3))!.size).toBe(0);
    // Read again by a store opened later (the mark is kept with the spellings).
    expect(await new TopicSpellings(store).ofChannel(2)).toEqual(new Map([['x', 'x']]));
    await store.close();
  });
});
