import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import { EventQueue, type QueueOptions } from '../src/domain/event-queue';

const queue = (options: Partial<QueueOptions> = {}) =>
  new EventQueue('q-1', { user_id: 4, event_types: null, apply_markdown: false, client_gravatar: true, empty_topic_name: false, narrow: [], ...options });

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
  it('gives events increasing ids from 0 and keeps their fields', () => {
    const q = queue();
    q.push({ type: 'message', message: { id: 7 } });
    q.push({ type: 'typing', op: 'start' });
    q.push({ type: 'message', message: { id: 8 } });
    expect(q.after(-1)).toEqual([
      { id: 0, type: 'message', message: { id: 7 } },
      { id: 1, type: 'typing', op: 'start' },
      { id: 2, type: 'message', message: { id: 8 } },
    ]);
  });

  it('does not let a pushed event overwrite its id', () => {
    const q = queue();
    q.push({ type: 'message', id: 99 });
    expect(q.after(-1).map((e) => e.id)).toEqual([0]);
  });

  it('drops the events acknowledged by after() for good', () => {
    const q = queue();
    for (const n of [0, 1, 2, 3]) q.push({ type: 'message', n });
    expect(q.after(1).map((e) => e.id)).toEqual([2, 3]);
    expect(q.after(-1).map((e) => e.id)).toEqual([2, 3]);
    q.push({ type: 'message' });
    expect(q.after(3).map((e) => e.id)).toEqual([4]);
  });

  it('returns nothing once everything is acknowledged, and keeps counting', () => {
    const q = queue();
    q.push({ type: 'message' });
    expect(q.after(0)).toEqual([]);
    q.push({ type: 'message' });
    expect(q.after(0)).toEqual([{ id: 1, type: 'message' }]);
  });

  it('keeps only the event types asked for, without spending ids on the others', () => {
    const q = queue({ event_types: new Set(['message']) });
    q.push({ type: 'typing' });
    q.push({ type: 'message' });
    q.push({ type: 'subscription' });
    expect(q.after(-1)).toEqual([{ id: 0, type: 'message' }]);
    expect(q.wants('typing')).toBe(false);
    expect(q.wants('message')).toBe(true);
  });

  it('always accepts heartbeats', () => {
    const q = queue({ event_types: new Set(['message']) });
    q.push({ type: 'heartbeat' });
    expect(q.after(-1)).toEqual([{ id: 0, type: 'heartbeat' }]);
    expect(queue({ event_types: new Set() }).wants('heartbeat')).toBe(true);
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
      q.push({ type: 'message' });
      expect(await settled(wait)).toBe(true);
      expect(q.hasWaiters).toBe(false);
    });

    it('wakes every waiter at once', async () => {
      const q = queue();
      const waits = [q.waitForEvent(60_000), q.waitForEvent(60_000)];
      q.push({ type: 'message' });
      expect(await settled(Promise.all(waits))).toBe(true);
    });

    it('is not woken by an event of a type it does not take', async () => {
      const q = queue({ event_types: new Set(['message']) });
      const wait = q.waitForEvent(60_000);
      q.push({ type: 'typing' });
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
      q.push({ type: 'message' });
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
      q.push({ type: 'message' });
      expect(q.lastAccess).toBe(1_000_000);
      q.after(-1);
      expect(q.lastAccess).toBe(2_000_000);
    });
  });
});
