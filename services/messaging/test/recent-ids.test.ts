import type { Filter } from '@teamchat/platform';
import { conversationKey, inIdRange, RecentConversationIds, type IdRange } from '../src/projections/recent-ids';

/**
 * What `ids` answers, written the plain way: every kept id in the range, then the first
 * `limit` from the side the direction starts at; undefined when the index must answer.
 */
function reference(kept: number[], complete: boolean, range: IdRange, direction: 1 | -1, limit: number): number[] | undefined {
  const oldestKept = kept[0] ?? Number.POSITIVE_INFINITY;
  const lowest = range.$gte ?? (range.$gt !== undefined ? range.$gt + 1 : Number.NEGATIVE_INFINITY);
  const covered = complete || lowest >= oldestKept;
  const within = kept.filter((id) => inIdRange(id, range));
  if (direction === 1) return covered ? within.slice(0, limit) : undefined;
  const newestFirst = [...within].reverse();
  return covered || newestFirst.length >= limit ? newestFirst.slice(0, limit) : undefined;
}

/** A small deterministic generator, so that a failure can be replayed. */
function generator(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
}

describe('RecentConversationIds', () => {
  it('answers as filtering every kept id would, for any range, direction and limit', async () => {
    const random = generator(7);
    for (let round = 0; round < 300; round++) {
      // Ids ascending with gaps; fewer than 200 means the conversation is complete.
      const count = random(3) === 0 ? 200 : random(60);
      const kept: number[] = [];
      for (let id = 1 + random(50); kept.length < count; id += 1 + random(4)) kept.push(id);
      const complete = count < 200;
      const recent = new RecentConversationIds(async () => [...kept].reverse());
      const at = () => random(kept.length + 100);
      const range: IdRange = {};
      if (random(2)) range[random(2) ? '$gt' : '$gte'] = at();
      if (random(2)) range[random(2) ? '$lt' : '$lte'] = at();
      const direction = random(2) ? 1 : -1;
      const limit = random(4) === 0 ? 1 : random(150);
      const answer = await recent.ids({ channel_id: 1, topic_lc: 't' }, range, direction, limit);
      expect({ round, answer }).toEqual({ round, answer: reference(kept, complete, range, direction, limit) });
    }
  });

  it('keeps the newest ids as messages arrive, and leaves filters of no single conversation to the index', async () => {
    const recent = new RecentConversationIds(async () => [3, 2, 1]);
    expect(await recent.ids({ channel_id: 1 }, {}, -1, 1)).toEqual([3]);
    recent.remember({ _id: 9, channel_id: 1, topic_lc: 't', dm_key: null });
    expect(await recent.ids({ channel_id: 1 }, {}, -1, 2)).toEqual([9, 3]);
    expect(await recent.ids({ channel_id: 1 }, { $lt: 9 }, 1, 5)).toEqual([1, 2, 3]);
    expect(await recent.ids({ channel_id: 1, sender_id: 4 }, {}, -1, 1)).toBeUndefined();
  });
});

describe('conversationKey', () => {
  it('names a channel, a topic or a direct conversation only when the filter names nothing else', () => {
    const cases: [Filter, string | undefined][] = [
      [{ channel_id: 4 }, 'c:4'],
      [{ channel_id: 4, topic_lc: 'lunch' }, 't:4:lunch'],
      [{ topic_lc: 'lunch', channel_id: 4 }, 't:4:lunch'],
      [{ dm_key: '1,2' }, 'd:1,2'],
      [{ channel_id: 4, sender_id: 1 }, undefined],
      [{ channel_id: 4, topic_lc: 'lunch', sender_id: 1 }, undefined],
      [{ dm_key: '1,2', channel_id: 4 }, undefined],
      [{ topic_lc: 'lunch' }, undefined],
      [{ channel_id: '4' }, undefined],
      [{ channel_id: 4, topic_lc: undefined } as unknown as Filter, undefined],
      [{}, undefined],
    ];
    for (const [filter, key] of cases) expect({ filter, key: conversationKey(filter) }).toEqual({ filter, key });
  });
});
