/**
 * When the scheduled-delivery loop scans: at the earliest one's time, at once when woken,
 * at least every `idleScanMs`, and after `retryMs` when due ones stay (held elsewhere).
 * The read model is a stand-in there (the clock is jest's); then the real one's `nextDue`
 * and its wake-ups.
 */
import { afterEach, beforeEach, describe, expect, it, jest } from '@jest/globals';
import type { ScheduledSnapshot } from '@teamchat/contracts';
import { SqliteReadModelStore, type StoredFact } from '@teamchat/platform';
import { ScheduledDelivery, type DeliveryDeps } from '../src/handlers/scheduled-delivery';
import { ScheduledMessages } from '../src/projections/scheduled-messages';

const OPTIONS = { idleScanMs: 60_000, retryMs: 100, concurrency: 1 };

function setUp() {
  const state = { next: undefined as number | undefined, scans: 0 };
  const scheduledModel = {
    due: async () => {
      state.scans++;
      return [];
    },
    nextDue: async () => state.next,
  };
  const delivery = new ScheduledDelivery({ scheduledModel, log: { error: jest.fn() } } as unknown as DeliveryDeps, OPTIONS);
  return { state, delivery };
}

describe('scheduled delivery timing', () => {
  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    jest.useRealTimers();
  });

  it('scans at the time the earliest one falls due, not before', async () => {
    const { state, delivery } = setUp();
    state.next = Date.now() + 5_000;
    delivery.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(state.scans).toBe(1);
    await jest.advanceTimersByTimeAsync(4_999);
    expect(state.scans).toBe(1);
    state.next = undefined;
    await jest.advanceTimersByTimeAsync(1);
    expect(state.scans).toBe(2);
    await delivery.stop();
  });

  it('scans at once when woken, and at least every idleScanMs with nothing scheduled', async () => {
    const { state, delivery } = setUp();
    delivery.start();
    await jest.advanceTimersByTimeAsync(0);
    expect(state.scans).toBe(1);
    delivery.wake();
    await jest.advanceTimersByTimeAsync(0);
    expect(state.scans).toBe(2);
    await jest.advanceTimersByTimeAsync(59_999);
    expect(state.scans).toBe(2);
    await jest.advanceTimersByTimeAsync(1);
    expect(state.scans).toBe(3);
    await delivery.stop();
  });

  it('looks again after retryMs, not in a busy loop, at due ones it could not take', async () => {
    const { state, delivery } = setUp();
    state.next = Date.now() - 1;
    delivery.start();
    await jest.advanceTimersByTimeAsync(0);
    await jest.advanceTimersByTimeAsync(99);
    expect(state.scans).toBe(1);
    await jest.advanceTimersByTimeAsync(1);
    expect(state.scans).toBe(2);
    await delivery.stop();
  });

  it('scans again right after a scan that a wake-up came during', async () => {
    let scans = 0;
    let release!: () => void;
    const scheduledModel = {
      due: async () => {
        scans++;
        if (scans === 1) await new Promise<void>((resolve) => (release = resolve));
        return [];
      },
      nextDue: async () => undefined,
    };
    const delivery = new ScheduledDelivery({ scheduledModel, log: { error: jest.fn() } } as unknown as DeliveryDeps, OPTIONS);
    delivery.start();
    await jest.advanceTimersByTimeAsync(0);
    delivery.wake();
    release();
    await jest.advanceTimersByTimeAsync(0);
    expect(scans).toBe(2);
    await delivery.stop();
  });
});

describe("the schedule's read model, for the delivery loop", () => {
  const snapshot = (at: number): ScheduledSnapshot => ({
    kind: 'scheduled',
    user_id: 4,
    recipient: { type: 'channel', channel_id: 1, topic: 'plans' },
    content: 'later',
    rendered_content: '<p>later</p>',
    scheduled_delivery_timestamp: at,
    read_by_sender: null,
    client: 'test',
  });

  it('tells when the next one falls due, and wakes the loop when one is recorded or moved', async () => {
    const model = new ScheduledMessages(SqliteReadModelStore.open(':memory:'));
    let woken = 0;
    model.whenScheduled(() => woken++);
    expect(await model.nextDue(30_000)).toBeUndefined();
    const stored = { position: 41, stream: 'scheduled-x' } as StoredFact;
    await model.handlers.ScheduledMessageCreated({ type: 'ScheduledMessageCreated', scheduled: snapshot(2_000) }, stored);
    await model.handlers.ScheduledMessageCreated({ type: 'ScheduledMessageCreated', scheduled: snapshot(1_500) }, { ...stored, position: 42 });
    expect(woken).toBe(2);
    expect(await model.nextDue(30_000)).toBe(1_500_000);
    const ref = { scheduled_message_id: 42, user_id: 4, kind: 'scheduled' as const };
    await model.handlers.ScheduledMessageDeliveryStarted({ type: 'ScheduledMessageDeliveryStarted', ...ref, message_stream: 'message-a', started_at: 1_600_000 });
    // The claimed one falls due again when its lease ends, after the other's time.
    expect(await model.nextDue(30_000)).toBe(1_630_000);
    expect(woken).toBe(2);
    await model.handlers.ScheduledMessageEdited({ type: 'ScheduledMessageEdited', scheduled_message_id: 41, user_id: 4, kind: 'scheduled', scheduled: snapshot(3_000) });
    expect(woken).toBe(3);
    expect(await model.nextDue(30_000)).toBe(1_630_000);
  });
});
