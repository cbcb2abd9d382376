import { describe, expect, it } from '@jest/globals';
import { ChannelPlaces, Places, type PlacesSource } from '../src/projections/channel-places';

/** A source of places without moved-in messages. */
const source = (chunk: PlacesSource['chunk']): PlacesSource => ({ chunk, movedIn: async () => [] });

/** A channel's messages: ids 1..n, topics cycling through a, b, c. */
const channel = (n: number, offset = 0) => ({
  ids: Array.from({ length: n }, (_, i) => offset + i + 1),
  topics: Array.from({ length: n }, (_, i) => 'abc'[i % 3]!),
});

describe('a channel’s places in memory', () => {
  it('answers ranges in both directions, by topic, as the index would', () => {
    const { ids, topics } = channel(10);
    const places = new Places(ids, topics);
    expect(places.slice({ lo: 3, hi: 6 }, 1, 10).map((p) => p._id)).toEqual([3, 4, 5, 6]);
    expect(places.slice({ lo: Number.NEGATIVE_INFINITY, hi: Number.POSITIVE_INFINITY }, -1, 3).map((p) => p._id)).toEqual([10, 9, 8]);
    expect(places.slice({ lo: 2, hi: 9 }, 1, 10, 'b')).toEqual([{ _id: 2, topic_lc: 'b' }, { _id: 5, topic_lc: 'b' }, { _id: 8, topic_lc: 'b' }]);
    expect(places.slice({ lo: 1, hi: 10 }, 1, 10, 'zzz')).toEqual([]);
    expect(places.topicName(places.topicNumberAt(3))).toBe('a');
  });

  it('grows past its first arrays as messages arrive, refusing one not past the newest', () => {
    const places = new Places([], []);
    for (let id = 1; id <= 500; id++) expect(places.push(id * 2, `t${id % 7}`)).toBe(true);
    expect(places.length).toBe(500);
    expect(places.capacity).toBeGreaterThanOrEqual(500);
    expect(places.push(1000, 't')).toBe(false);
    expect(places.firstAtLeast(501)).toBe(250);
    expect(places.idAt(499)).toBe(1000);
  });

  it('keeps what it loaded, extends it with new messages and loads again after a move or deletion', async () => {
    let loads = 0;
    const stored = new Map([[7, channel(5)]]);
    const kept = new ChannelPlaces(source(async (channelId) => {
      loads++;
      return stored.get(channelId)!;
    }));
    expect((await kept.of(7)).length).toBe(5);
    kept.remember({ _id: 6, channel_id: 7, topic_lc: 'new' });
    stored.get(7)!.ids.push(6);
    stored.get(7)!.topics.push('new');
    const places = await kept.of(7);
    expect([places.length, loads]).toEqual([6, 1]);
    expect(places.slice({ lo: 6, hi: 6 }, 1, 1)).toEqual([{ _id: 6, topic_lc: 'new' }]);
    kept.forget([7]);
    expect(kept.peek(7)).toBeUndefined();
    await kept.of(7);
    expect(loads).toBe(2);
  });

  it('keeps a message that arrives while its channel loads, and reads again after a move or deletion meanwhile', async () => {
    let release!: () => void;
    let loads = 0;
    const stored = channel(3);
    const kept = new ChannelPlaces(source(async () => {
      loads++;
      await new Promise<void>((resolve) => (release = resolve));
      return { ids: [...stored.ids], topics: [...stored.topics] };
    }));
    const loading = kept.of(7);
    // A new message of channel 7 after its state was read: kept all the same.
    kept.remember({ _id: 4, channel_id: 7, topic_lc: 'a' });
    release();
    expect((await loading).slice({ lo: 1, hi: 10 }, 1, 10).map((p) => p._id)).toEqual([1, 2, 3, 4]);
    expect(kept.peek(7)?.length).toBe(4);
    // A deletion while loading: what was read may hold the deleted message, so it is read again.
    kept.forget([7]);
    const again = kept.of(7);
    await new Promise((resolve) => setImmediate(resolve));
    stored.ids.pop();
    stored.topics.pop();
    kept.forget([7]);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    release();
    expect((await again).length).toBe(2);
    expect(loads).toBe(3);
  });

  it('loads a channel in chunks, and in the background when asked to warm it', async () => {
    const stored = channel(10);
    const asked: number[] = [];
    const kept = new ChannelPlaces(source(async (_channelId, after, limit) => {
      asked.push(after);
      const ids = stored.ids.filter((id) => id > after).slice(0, limit);
      return { ids, topics: ids.map((id) => stored.topics[id - 1]!) };
    }), 1000, 4);
    kept.warm([7]);
    expect(kept.peek(7)).toBeUndefined();
    for (let i = 0; i < 10 && !kept.peek(7); i++) await new Promise((resolve) => setImmediate(resolve));
    expect(kept.peek(7)?.slice({ lo: 0, hi: 100 }, 1, 100).map((p) => p._id)).toEqual(stored.ids);
    expect(asked).toEqual([Number.NEGATIVE_INFINITY, 4, 8]);
  });

  it('lets other work run between the channels it warms, however small each is', async () => {
    // Read synchronously, as SQLite reads: each await is only a microtask.
    const kept = new ChannelPlaces(source(async (channelId, after) => (after === Number.NEGATIVE_INFINITY ? channel(3, channelId * 1000) : channel(0))), 1000, 4);
    const loaded = () => [1, 2, 3, 4, 5].filter((id) => kept.peek(id)).length;
    kept.warm([1, 2, 3, 4, 5]);
    const seen: number[] = [];
    for (let turn = 0; turn < 10 && seen.at(-1) !== 5; turn++) {
      await new Promise((resolve) => setImmediate(resolve));
      seen.push(loaded());
    }
    // One channel per turn of the event loop, not all five before another task runs.
    expect(seen.slice(0, 5)).toEqual([1, 2, 3, 4, 5]);
  });

  it('reports a background load that fails, and loads the channel when asked again', async () => {
    let fail = true;
    const kept = new ChannelPlaces(source(async () => {
      if (fail) throw new Error('disk I/O error');
      return channel(3);
    }));
    const failures: unknown[] = [];
    kept.onWarmFailure = (err) => failures.push(err);
    kept.warm([9]);
    for (let i = 0; i < 10 && failures.length === 0; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(failures.map((err) => (err as Error).message)).toEqual(['disk I/O error']);
    expect(kept.peek(9)).toBeUndefined();
    fail = false;
    expect((await kept.of(9)).length).toBe(3);
  });

  it('warms channels only up to the share of its bound it is given, and those a scan asks for past it', async () => {
    const kept = new ChannelPlaces(source(async (channelId, after) => (after === Number.NEGATIVE_INFINITY ? channel(100, channelId * 1000) : channel(0))), 1000);
    const ids = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    const loaded = () => ids.filter((id) => kept.peek(id));
    kept.warm(ids, 0.5);
    for (let turn = 0; turn < 40; turn++) await new Promise((resolve) => setImmediate(resolve));
    // Each channel of 100 takes at least 100 of the 1,000: it stopped once half was filled.
    expect(loaded().length).toBeGreaterThanOrEqual(1);
    expect(loaded().length).toBeLessThanOrEqual(5);
    expect(kept.peek(10)).toBeUndefined();
    kept.warm([10]);
    for (let turn = 0; turn < 5 && !kept.peek(10); turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(kept.peek(10)?.length).toBe(100);
  });

  it('drops the least recently used channels past its bound', async () => {
    const kept = new ChannelPlaces(source(async (channelId, after) => (after === Number.NEGATIVE_INFINITY ? channel(100, channelId * 1000) : channel(0))), 250);
    await kept.of(1);
    await kept.of(2);
    await kept.of(3);
    expect(kept.peek(1)).toBeUndefined();
    expect(kept.peek(3)?.length).toBe(100);
  });
});
