import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { EventQueue, IDS_PER_POSITION, replayAfter, type QueueOptions, type QueueStart } from '../src/domain/event-queue';

const queue = (options: Partial<QueueOptions> = {}, start: Partial<QueueStart> = {}) =>
  new EventQueue(
    'q-1',
    { user_id: 4, event_types: null, apply_markdown: false, client_gravatar: true, empty_topic_name: false, narrow: [], ...options },
    { after: 0, acked: -1, lastAccess: Date.now(), maxEvents: 100, ...start },
  );

/** The id of the k-th event a queue takes from the fact at `position`. */
const id = (position: number, k = 0) => position * IDS_PER_POSITION + k;

/** Pushes each event as the only one of its own fact, at positions 1, 2, … */
function pushAll(q: EventQueue, events: { type: string; [field: string]: unknown }[], from = 1) {
  events.forEach((event, i) => q.push(event, from + i));
}

/** Whether a promise has settled, without waiting for it. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => {
    done = true;
  });
  // Let the promise's own reactions run first.
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
}

describe('EventQueue', () => {
  it('derives ids from the fact position and the place of the event among its events, and keeps the fields', () => {
    const q = queue();
    q.push({ type: 'message', message: { id: 7 } }, 3);
    q.push({ type: 'typing', op: 'start' }, 3);
    q.push({ type: 'message', message: { id: 8 } }, 5);
    expect(q.after(-1)).toEqual([
      { id: id(3, 0), type: 'message', message: { id: 7 } },
      { id: id(3, 1), type: 'typing', op: 'start' },
      { id: id(5, 0), type: 'message', message: { id: 8 } },
    ]);
  });

  it('serializes what after() returned, each event with its id, heartbeats included', () => {
    const q = queue();
    const shared = { type: 'message', message: { id: 7, content: 'a "quoted" café' } };
    q.push(shared, 3);
    q.push({ type: 'typing', op: 'start' }, 3);
    q.push(shared, 5);
    q.after(id(3, 0));
    expect(JSON.parse(q.toJson())).toEqual(q.after(id(3, 0)));
    q.after(id(5, 0));
    expect(q.toJson()).toBe('[]');
    q.heartbeat(id(5, 0), 5);
    expect(JSON.parse(q.toJson())).toEqual([{ type: 'heartbeat', id: id(5, 1) }]);
  });

  it('gives one event pushed to many queues the same text in each, under each queue\'s id', () => {
    const shared = { type: 'message', message: { id: 7 } };
    const [a, b] = [queue(), queue()];
    a.push(shared, 3);
    b.push({ type: 'typing', op: 'start' }, 3);
    b.push(shared, 3);
    a.after(-1);
    b.after(id(3, 0));
    expect(JSON.parse(a.toJson())).toEqual([{ ...shared, id: id(3, 0) }]);
    expect(JSON.parse(b.toJson())).toEqual([{ ...shared, id: id(3, 1) }]);
  });

  it('does not let a pushed event overwrite its id', () => {
    const q = queue();
    q.push({ type: 'message', id: 99 }, 1);
    expect(q.after(-1).map((e) => e.id)).toEqual([id(1)]);
  });

  it('drops the events acknowledged by after() for good', () => {
    const q = queue();
    pushAll(q, [0, 1, 2, 3].map((n) => ({ type: 'message', n })));
    expect(q.after(id(2)).map((e) => e.id)).toEqual([id(3), id(4)]);
    expect(q.after(-1).map((e) => e.id)).toEqual([id(3), id(4)]);
    q.push({ type: 'message' }, 5);
    expect(q.after(id(4)).map((e) => e.id)).toEqual([id(5)]);
  });

  it('returns nothing once everything is acknowledged, and keeps counting', () => {
    const q = queue();
    q.push({ type: 'message' }, 1);
    expect(q.after(id(1))).toEqual([]);
    q.push({ type: 'message' }, 2);
    expect(q.after(id(1))).toEqual([{ id: id(2), type: 'message' }]);
  });

  it('keeps only the event types asked for, without spending ids on the others', () => {
    const q = queue({ event_types: new Set(['message']) });
    q.push({ type: 'typing' }, 1);
    q.push({ type: 'message' }, 1);
    q.push({ type: 'subscription' }, 1);
    expect(q.after(-1)).toEqual([{ id: id(1), type: 'message' }]);
    expect(q.wants('typing')).toBe(false);
    expect(q.wants('message')).toBe(true);
  });

  it('takes only facts after the position it was registered at', () => {
    const q = queue({}, { after: 10 });
    expect(q.takes(10)).toBe(false);
    expect(q.takes(11)).toBe(true);
    q.push({ type: 'message' }, 10);
    q.push({ type: 'message' }, 11);
    expect(q.after(-1).map((e) => e.id)).toEqual([id(11)]);
  });

  it('always accepts heartbeats, with ids above what was given out and acknowledged, below the next fact', () => {
    const q = queue({ event_types: new Set(['message']) });
    q.push({ type: 'message' }, 4);
    const first = q.heartbeat(-1, 4)!;
    expect(first).toEqual({ type: 'heartbeat', id: id(4, 1) });
    expect(q.after(-1).map((e) => e.id)).toEqual([id(4), id(4, 1)]);
    // Not acknowledged: the next heartbeat is still above the last one.
    expect(q.heartbeat(id(4), 4)!.id).toBe(id(4, 2));
    // The store moved on with facts this queue does not take: heartbeats follow it.
    expect(q.heartbeat(id(4, 2), 9)!.id).toBe(id(9));
    q.push({ type: 'message' }, 10);
    expect(q.after(id(9)).map((e) => e.id)).toEqual([id(10)]);
    expect(queue({ event_types: new Set() }).wants('heartbeat')).toBe(true);
  });

  it('gives no heartbeat once the ids of the store position are used up', () => {
    const q = queue();
    expect(q.heartbeat(id(2, IDS_PER_POSITION - 2), 2)!.id).toBe(id(2, IDS_PER_POSITION - 1));
    expect(q.heartbeat(id(2, IDS_PER_POSITION - 1), 2)).toBeNull();
  });

  it('overflows past its event limit: emptied, and reported so it is dropped', () => {
    const q = queue({}, { maxEvents: 3 });
    pushAll(q, [{ type: 'a' }, { type: 'b' }, { type: 'c' }]);
    expect(q.overflowed).toBe(false);
    q.after(id(1));
    expect(q.push({ type: 'd' }, 4)).toBe(true);
    expect(q.push({ type: 'e' }, 5)).toBe(false);
    expect(q.overflowed).toBe(true);
    expect(q.size).toBe(0);
    expect(q.push({ type: 'f' }, 6)).toBe(false);
  });

  describe('rebuilt from its descriptor', () => {
    /** What a live queue handed out for a run of facts (some with two events, some filtered). */
    const facts: [number, { type: string; n: number }[]][] = [
      [3, [{ type: 'message', n: 1 }]],
      [4, [{ type: 'message', n: 2 }, { type: 'reaction', n: 3 }]],
      [6, [{ type: 'typing', n: 4 }, { type: 'message', n: 5 }]],
      [8, [{ type: 'message', n: 6 }]],
    ];
    const feed = (q: EventQueue, from = 0) => {
      for (const [position, events] of facts) if (position > from) for (const e of events) q.push(e, position);
    };

    it('gives every unacknowledged event again with the same id, and none acknowledged', () => {
      const types = new Set(['message', 'reaction']);
      const live = queue({ event_types: types }, { after: 2 });
      feed(live);
      const all = live.after(-1).map((e) => ({ ...e }));
      for (const acked of [-1, ...all.map((e) => e.id)]) {
        const start = { after: 2, acked };
        const rebuilt = queue({ event_types: types }, start);
        feed(rebuilt, replayAfter(start));
        expect(rebuilt.after(acked)).toEqual(all.filter((e) => e.id > acked));
      }
    });

    it('replays from just before the fact of the acknowledged id, never before the registration', () => {
      expect(replayAfter({ after: 2, acked: -1 })).toBe(2);
      expect(replayAfter({ after: 2, acked: id(6, 1) })).toBe(5);
      expect(replayAfter({ after: 7, acked: id(6, 1) })).toBe(7);
    });

    it('keeps heartbeat ids given before the restart below what comes after it', () => {
      const start = { after: 2, acked: id(8, 5) };
      const rebuilt = queue({}, start);
      feed(rebuilt, replayAfter(start));
      expect(rebuilt.after(id(8, 5))).toEqual([]);
      expect(rebuilt.heartbeat(id(8, 5), 8)!.id).toBe(id(8, 6));
      rebuilt.push({ type: 'message' }, 9);
      expect(rebuilt.after(id(8, 6)).map((e) => e.id)).toEqual([id(9)]);
    });
  });

  it('takes every type when no types were asked for', () => {
    expect(queue({ event_types: null }).wants('anything')).toBe(true);
  });

  it('takes no type but heartbeat for an empty list of types', () => {
    expect(queue({ event_types: new Set() }).wants('message')).toBe(false);
  });

  describe('waiting', () => {
    beforeEach(() => {
      jest.useFakeTimers();
    });
    afterEach(() => {
      jest.useRealTimers();
    });

    it('resolves a wait at the next push', async () => {
      const q = queue();
      const wait = q.waitForEvent(60_000);
      expect(q.hasWaiters).toBe(true);
      expect(await settled(wait)).toBe(false);
      q.push({ type: 'message' }, 1);
      expect(await settled(wait)).toBe(true);
      expect(q.hasWaiters).toBe(false);
    });

    it('wakes every waiter at once', async () => {
      const q = queue();
      const waits = [q.waitForEvent(60_000), q.waitForEvent(60_000)];
      q.push({ type: 'message' }, 1);
      expect(await settled(Promise.all(waits))).toBe(true);
    });

    it('is not woken by an event of a type it does not take', async () => {
      const q = queue({ event_types: new Set(['message']) });
      const wait = q.waitForEvent(60_000);
      q.push({ type: 'typing' }, 1);
      expect(await settled(wait)).toBe(false);
      expect(q.hasWaiters).toBe(true);
      q.release();
    });

    it('resolves a wait at its timeout, not before', async () => {
      const q = queue();
      const wait = q.waitForEvent(1000);
      jest.advanceTimersByTime(999);
      expect(await settled(wait)).toBe(false);
      jest.advanceTimersByTime(1);
      expect(await settled(wait)).toBe(true);
      expect(q.hasWaiters).toBe(false);
      expect(q.after(-1)).toEqual([]);
    });

    it('clears the timer of a wait woken early', async () => {
      const q = queue();
      const wait = q.waitForEvent(1000);
      q.push({ type: 'message' }, 1);
      await wait;
      expect(jest.getTimerCount()).toBe(0);
    });

    it('ends every wait on release()', async () => {
      const q = queue();
      const waits = [q.waitForEvent(60_000), q.waitForEvent(30_000)];
      q.release();
      expect(await settled(Promise.all(waits))).toBe(true);
      expect(q.hasWaiters).toBe(false);
      expect(jest.getTimerCount()).toBe(0);
      expect(q.after(-1)).toEqual([]);
    });

    it('records the time of the last poll', () => {
      jest.setSystemTime(1_000_000);
      const q = queue();
      expect(q.lastAccess).toBe(1_000_000);
      jest.setSystemTime(2_000_000);
      q.push({ type: 'message' }, 1);
      expect(q.lastAccess).toBe(1_000_000);
      q.after(-1);
      expect(q.lastAccess).toBe(2_000_000);
    });
  });
});

describe('EventQueue.acknowledge', () => {
  it('drops what the client acknowledged and counts the rest, without copying the events', () => {
    const q = queue();
    const shared = { type: 'message', message: { id: 1 } };
    pushAll(q, [shared, { type: 'message' }, { type: 'message' }]);
    expect(q.acknowledge(id(1))).toBe(2);
    expect(q.acknowledge(-1)).toBe(2);
    expect(q.after(id(2))).toEqual([{ type: 'message', id: id(3) }]);
    // The event stays the fan-out's own object: its queue id is not written into it.
    expect(shared).toEqual({ type: 'message', message: { id: 1 } });
  });

  it('writes a heartbeat with its id once', () => {
    const q = queue();
    q.heartbeat(-1, 4);
    expect(q.toJson()).toBe(`[{"id":${id(4)},"type":"heartbeat"}]`);
  });
});
