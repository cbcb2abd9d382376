import { describe, expect, it } from '@jest/globals';
import {
  legacyPresence,
  MAX_CLIENTS_PER_USER,
  modernPresence,
  OFFLINE_THRESHOLD_SECONDS,
  parseStatus,
  PresenceBook,
  singleUserPresence,
} from '../src/domain/presence';
import { typingEventFor } from '../src/domain/ephemeral-routing';

const T = 1_700_000_000;
const report = (book: PresenceBook, status: 'active' | 'idle', nowSeconds: number, client = 'website', user_id = 1) =>
  book.report({ user_id, email: `u${user_id}@example.com`, client, status, nowSeconds });

describe('PresenceBook', () => {
  it('announces a user seen for the first time, or coming back online or active, not every ping', () => {
    const book = new PresenceBook();
    expect(report(book, 'idle', T).announce).toBe(true);
    expect(report(book, 'idle', T + 60).announce).toBe(false);
    // Idle until now: becoming active is news.
    expect(report(book, 'active', T + 120).announce).toBe(true);
    expect(report(book, 'active', T + 180).announce).toBe(false);
    expect(report(book, 'idle', T + 240).announce).toBe(false);
    // Gone long enough to be offline, then back.
    expect(report(book, 'active', T + 240 + OFFLINE_THRESHOLD_SECONDS + 1).announce).toBe(true);
  });

  it('keeps the last active and connected times, and a new update id only for a change', () => {
    const book = new PresenceBook();
    report(book, 'active', T);
    const first = book.presenceLastUpdateId;
    expect(modernPresence(book.get(1)!)).toEqual({ active_timestamp: T, idle_timestamp: T });
    report(book, 'active', T);
    expect(book.presenceLastUpdateId).toBe(first);
    report(book, 'idle', T + 30);
    expect(book.presenceLastUpdateId).toBe(first + 1);
    expect(book.get(1)!.last_update_id).toBe(first + 1);
    expect(modernPresence(book.get(1)!)).toEqual({ active_timestamp: T, idle_timestamp: T + 30 });
    // A report from the past never moves the times back.
    report(book, 'active', T - 100, 'mobile');
    expect(modernPresence(book.get(1)!)).toEqual({ active_timestamp: T, idle_timestamp: T + 30 });
  });

  it('keeps only the clients heard from last', () => {
    const book = new PresenceBook();
    for (let i = 0; i < MAX_CLIENTS_PER_USER + 3; i++) report(book, 'active', T + i, `client-${i}`);
    report(book, 'active', T + 20, 'client-3');
    const clients = [...book.get(1)!.clients.keys()];
    expect(clients).toHaveLength(MAX_CLIENTS_PER_USER);
    expect(clients.at(-1)).toBe('client-3');
    expect(clients).not.toContain('client-0');
  });

  it('reports a user never active with active_timestamp 0', () => {
    const book = new PresenceBook();
    report(book, 'idle', T);
    expect(modernPresence(book.get(1)!)).toEqual({ active_timestamp: 0, idle_timestamp: T });
  });
});

describe('presence formats', () => {
  it('aggregates the clients in the legacy format, preferring a recent active report', () => {
    const book = new PresenceBook();
    report(book, 'active', T, 'website');
    report(book, 'idle', T + 60, 'ZulipMobile');
    expect(legacyPresence(book.get(1)!)).toEqual({
      website: { client: 'website', status: 'active', timestamp: T, pushable: false },
      ZulipMobile: { client: 'ZulipMobile', status: 'idle', timestamp: T + 60, pushable: false },
      aggregated: { client: 'website', status: 'active', timestamp: T },
    });
    report(book, 'idle', T + 60 + OFFLINE_THRESHOLD_SECONDS + 1, 'ZulipMobile');
    expect(legacyPresence(book.get(1)!).aggregated).toEqual({ client: 'ZulipMobile', status: 'idle', timestamp: T + 60 + OFFLINE_THRESHOLD_SECONDS + 1 });
  });

  it('shows one user without client names, offline once stale', () => {
    const book = new PresenceBook();
    report(book, 'active', T);
    expect(singleUserPresence(book.get(1)!, T + 10)).toEqual({ website: { status: 'active', timestamp: T }, aggregated: { status: 'active', timestamp: T } });
    expect(singleUserPresence(book.get(1)!, T + OFFLINE_THRESHOLD_SECONDS + 1).aggregated).toEqual({ status: 'offline', timestamp: T });
  });

  it('accepts only active and idle', () => {
    expect(parseStatus('active')).toBe('active');
    expect(parseStatus('idle')).toBe('idle');
    expect(() => parseStatus('offline')).toThrow('Invalid status: offline');
  });
});

describe('typing routing', () => {
  const sender = { user_id: 1, email: 'u1@example.com' };
  it('gives channel typing only to queues with stream_typing_notifications', () => {
    const event = { type: 'typing' as const, op: 'start' as const, message_type: 'stream' as const, sender, stream_id: 3, topic: 't' };
    expect(typingEventFor(event, { stream_typing_notifications: true })).toBe(event);
    expect(typingEventFor(event, { stream_typing_notifications: false })).toBeNull();
    expect(typingEventFor(event, {})).toBeNull();
    const direct = { type: 'typing' as const, op: 'stop' as const, message_type: 'direct' as const, sender, recipients: [sender] };
    expect(typingEventFor(direct, {})).toBe(direct);
  });
});
