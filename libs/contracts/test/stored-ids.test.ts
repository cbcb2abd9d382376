import { describe, expect, it } from '@jest/globals';
import { compactIds, expandIds, expandedFactData, storedFactData, upcast } from '../src';

const range = (first: number, last: number) => Array.from({ length: last - first + 1 }, (_, i) => first + i);

describe('id lists in stored facts', () => {
  it('stores a rising list as its runs, and reads it back exactly', () => {
    const ids = [...range(1, 500), ...range(502, 9_000), 9_002, ...range(9_004, 10_000)];
    const stored = compactIds(ids);
    expect(stored).toEqual({ id_runs: [1, 500, 502, 9_000, 9_002, 9_002, 9_004, 10_000] });
    expect(expandIds(stored as { id_runs: number[] })).toEqual(ids);
  });

  it('keeps a list as it is when runs would not be shorter or would lose its order', () => {
    for (const ids of [[], [7], [1, 2, 3], [1, 3, 5, 7, 9], [3, 2, 1, 0], [1, 2, 2, 3, 4], [1, 2, 3, 4.5, 6]]) {
      expect(compactIds(ids)).toBe(ids);
    }
  });

  it('round-trips random lists (sorted or not, dense or sparse)', () => {
    let seed = 42;
    const random = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
    for (let n = 0; n < 300; n++) {
      const density = random();
      const ids = range(1, 1 + Math.floor(random() * 400)).filter(() => random() < density);
      if (random() < 0.1) ids.reverse();
      const stored = storedFactData({ type: 'X', audience_user_ids: ids });
      expect(expandedFactData(stored)).toEqual({ type: 'X', audience_user_ids: ids });
    }
  });

  it('encodes every id list field, nested ones too, and nothing else', () => {
    const everyone = range(1, 100);
    const fact = {
      // No upgrade of its own applies to this type: upcast only expands the lists.
      type: 'ChannelDefaultsChanged',
      channel_id: 5,
      audience_user_ids: everyone,
      bot_audience_user_ids: [1, 2],
      default_channels: { channel_ids: range(1, 100), user_ids: everyone },
      message_ids: range(1, 100),
    };
    const stored = storedFactData(fact);
    expect(stored).toEqual({
      ...fact,
      audience_user_ids: { id_runs: [1, 100] },
      default_channels: { channel_ids: range(1, 100), user_ids: { id_runs: [1, 100] } },
    });
    // The decided fact itself is left as it was.
    expect(fact.audience_user_ids).toBe(everyone);
    expect(upcast(stored)).toEqual(fact);
  });

  it('reads facts stored before the encoding (plain lists) unchanged', () => {
    const old = { type: 'RealmEmojiAdded', audience_user_ids: range(1, 50) };
    expect(upcast(old)).toBe(old);
  });
});
