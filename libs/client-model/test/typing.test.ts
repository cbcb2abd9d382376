/**
 * Typing notifications' pacing: when a sender sends start and stop (Zulip's intervals),
 * and who a receiver shows as typing in a narrow, lapsing without a stop.
 */
import { describe, expect, it } from '@jest/globals';
import { TypingPeople, TypingSender, typingTimingsOf, type TypingTarget } from '../src';

const timings = { startedWaitMs: 10_000, stoppedWaitMs: 5_000, startedExpiryMs: 15_000 };
const lunch: TypingTarget = { type: 'stream', streamId: 3, topic: 'lunch' };
const dm: TypingTarget = { type: 'direct', to: [9, 4] };

describe('TypingSender', () => {
  it('sends start on the first keystroke, again after the wait period while typing, and stop after a pause', () => {
    const sender = new TypingSender(timings);
    expect(sender.input(lunch, 0)).toEqual([{ op: 'start', target: lunch }]);
    expect(sender.input(lunch, 1_000)).toEqual([]);
    expect(sender.idle(4_000)).toEqual([]);
    expect(sender.nextCheckIn(4_000)).toBe(2_000);
    expect(sender.input(lunch, 9_999)).toEqual([]);
    expect(sender.input(lunch, 10_000)).toEqual([{ op: 'start', target: lunch }]);
    expect(sender.input(lunch, 12_000)).toEqual([]);
    expect(sender.idle(16_999)).toEqual([]);
    expect(sender.idle(17_000)).toEqual([{ op: 'stop', target: lunch }]);
    expect(sender.nextCheckIn(17_000)).toBeUndefined();
    expect(sender.idle(30_000)).toEqual([]);
  });

  it('stops the old conversation and starts the new one when the address changes; the same people in another order are one conversation', () => {
    const sender = new TypingSender(timings);
    sender.input(lunch, 0);
    expect(sender.input({ type: 'stream', streamId: 3, topic: 'LUNCH' }, 100)).toEqual([]);
    expect(sender.input(dm, 200)).toEqual([
      { op: 'stop', target: lunch },
      { op: 'start', target: dm },
    ]);
    expect(sender.input({ type: 'direct', to: [4, 9] }, 300)).toEqual([]);
  });

  it('stops when the box is emptied or unaddressed, and on send; nothing when nothing started', () => {
    const sender = new TypingSender(timings);
    expect(sender.input(undefined, 0)).toEqual([]);
    expect(sender.stop()).toEqual([]);
    sender.input(dm, 0);
    expect(sender.input(undefined, 100)).toEqual([{ op: 'stop', target: dm }]);
    sender.input(dm, 200);
    expect(sender.stop()).toEqual([{ op: 'stop', target: dm }]);
    expect(sender.input(dm, 300)).toEqual([{ op: 'start', target: dm }]);
  });

  it('reads the server periods from the registration, with defaults for absent or odd values', () => {
    expect(typingTimingsOf({ server_typing_started_wait_period_milliseconds: 2000, server_typing_stopped_wait_period_milliseconds: 'x', server_typing_started_expiry_period_milliseconds: -1 })).toEqual({
      startedWaitMs: 2000,
      stoppedWaitMs: 5000,
      startedExpiryMs: 15000,
    });
  });
});

describe('TypingPeople', () => {
  const self = 1;
  const start = (sender: number, topic = 'lunch') => ({ type: 'typing' as const, op: 'start' as const, message_type: 'stream' as const, sender: { user_id: sender }, stream_id: 3, topic });
  const stop = (sender: number) => ({ ...start(sender), op: 'stop' as const });

  it('shows a typist in their topic and channel, not elsewhere, until stop', () => {
    const people = new TypingPeople(self, timings);
    people.apply(start(5, 'Lunch'), 0);
    expect(people.in({ kind: 'topic', streamId: 3, topic: 'lunch' }, 1)).toEqual([{ userId: 5, topic: undefined }]);
    expect(people.in({ kind: 'channel', streamId: 3 }, 1)).toEqual([{ userId: 5, topic: 'Lunch' }]);
    expect(people.in({ kind: 'topic', streamId: 3, topic: 'dinner' }, 1)).toEqual([]);
    expect(people.in({ kind: 'channel', streamId: 4 }, 1)).toEqual([]);
    expect(people.in({ kind: 'all' }, 1)).toEqual([]);
    people.apply(stop(5), 2);
    expect(people.in({ kind: 'topic', streamId: 3, topic: 'lunch' }, 3)).toEqual([]);
    expect(people.nextExpiry(3)).toBeUndefined();
  });

  it('lets a start lapse after the expiry period unless renewed', () => {
    const people = new TypingPeople(self, timings);
    people.apply(start(5), 0);
    expect(people.nextExpiry(0)).toBe(15_000);
    people.apply(start(5), 10_000);
    expect(people.in({ kind: 'topic', streamId: 3, topic: 'lunch' }, 20_000)).toHaveLength(1);
    expect(people.in({ kind: 'topic', streamId: 3, topic: 'lunch' }, 25_000)).toEqual([]);
  });

  it('places a direct typist in the conversation of everyone but oneself, and ignores oneself', () => {
    const people = new TypingPeople(self, timings);
    people.apply({ type: 'typing', op: 'start', message_type: 'direct', sender: { user_id: 5 }, recipients: [{ user_id: 1 }, { user_id: 5 }, { user_id: 7 }] }, 0);
    people.apply({ type: 'typing', op: 'start', message_type: 'direct', sender: { user_id: 1 }, recipients: [{ user_id: 1 }, { user_id: 5 }] }, 0);
    expect(people.in({ kind: 'dm', userIds: [7, 5] }, 1)).toEqual([{ userId: 5, topic: undefined }]);
    expect(people.in({ kind: 'dm', userIds: [5] }, 1)).toEqual([]);
  });
});
