import { describe, expect, it } from '@jest/globals';
import { PARTIAL_SUBSCRIBERS_ACTIVE_DAYS, subscribersField } from '../src/domain/partial-subscribers';

const NOW = 1_700_000_000_000;
const DAY = 24 * 3600 * 1000;
const rule = (lastActive: Record<number, number>, bots: number[] = [], minChannelSize = 4) => ({
  minChannelSize,
  isBot: (id: number) => bots.includes(id),
  lastActive: (id: number) => lastActive[id],
  now: NOW,
});

describe('partial subscriber lists', () => {
  it('lists a channel below the size whole', () => {
    expect(subscribersField([1, 2, 3], rule({}))).toEqual({ subscribers: [1, 2, 3] });
  });

  it('lists a large channel by its bots and the users active within the window only', () => {
    const active = { 1: NOW - DAY, 2: NOW - (PARTIAL_SUBSCRIBERS_ACTIVE_DAYS * DAY - 1000), 3: NOW - (PARTIAL_SUBSCRIBERS_ACTIVE_DAYS * DAY + 1000) };
    expect(subscribersField([1, 2, 3, 4, 5], rule(active, [5]))).toEqual({ partial_subscribers: [1, 2, 5] });
    expect(subscribersField([3, 4, 6, 7], rule(active))).toEqual({ partial_subscribers: [] });
  });
});
