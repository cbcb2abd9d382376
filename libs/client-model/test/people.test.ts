/**
 * The people rules: presence read from the modern format, what a page reports of itself,
 * and which new messages call for a desktop notification.
 */
import { describe, expect, it } from '@jest/globals';
import { IDLE_AFTER_MS, notificationReason, ownPresence, presenceStatus, type NotifiableMessage, type State } from '../src';

describe('presenceStatus', () => {
  const now = 10_000;
  it('reads active, idle and offline against the offline threshold', () => {
    expect(presenceStatus(undefined, now, 140)).toBe('offline');
    expect(presenceStatus({ active_timestamp: now - 10, idle_timestamp: now - 10 }, now, 140)).toBe('active');
    // Active 139 s ago is still active, even after an idle report since (as Zulip's clients read it).
    expect(presenceStatus({ active_timestamp: now - 139, idle_timestamp: now - 1 }, now, 140)).toBe('active');
    expect(presenceStatus({ active_timestamp: now - 140, idle_timestamp: now - 1 }, now, 140)).toBe('idle');
    expect(presenceStatus({ active_timestamp: 0, idle_timestamp: now - 5 }, now, 140)).toBe('idle');
    expect(presenceStatus({ active_timestamp: now - 500, idle_timestamp: now - 141 }, now, 140)).toBe('offline');
    expect(presenceStatus({}, now, 140)).toBe('offline');
  });
});

describe('ownPresence', () => {
  it('is active only when visible, focused and used within the idle timeout', () => {
    expect(ownPresence({ visible: true, focused: true, msSinceInput: 0 })).toBe('active');
    expect(ownPresence({ visible: true, focused: true, msSinceInput: IDLE_AFTER_MS - 1 })).toBe('active');
    expect(ownPresence({ visible: true, focused: true, msSinceInput: IDLE_AFTER_MS })).toBe('idle');
    expect(ownPresence({ visible: true, focused: false, msSinceInput: 0 })).toBe('idle');
    expect(ownPresence({ visible: false, focused: true, msSinceInput: 0 })).toBe('idle');
  });
});

describe('notificationReason', () => {
  const SELF = 1;
  const MARY = 2;
  const GENERAL = 10;
  const state = (change: { settings?: Record<string, unknown>; sub?: Record<string, unknown>; topics?: { topic_name: string; visibility_policy: number }[]; muted?: number[] } = {}): State => ({
    user_settings: { enable_desktop_notifications: true, enable_stream_desktop_notifications: false, enable_followed_topic_desktop_notifications: true, wildcard_mentions_notify: true, ...change.settings },
    subscriptions: [{ stream_id: GENERAL, name: 'general', is_muted: false, desktop_notifications: null, wildcard_mentions_notify: null, ...change.sub }],
    user_topics: (change.topics ?? []).map((t) => ({ stream_id: GENERAL, ...t })),
    muted_users: (change.muted ?? []).map((id) => ({ id, timestamp: 0 })),
  });
  const dm: NotifiableMessage = { id: 1, type: 'private', sender_id: MARY, sender_full_name: 'Mary', subject: '', content: '<p>hi</p>', display_recipient: [{ id: SELF }, { id: MARY }] };
  const inTopic = (topic: string): NotifiableMessage => ({ id: 2, type: 'stream', sender_id: MARY, sender_full_name: 'Mary', stream_id: GENERAL, subject: topic, content: '<p>x</p>', display_recipient: 'general' });

  it('notifies direct messages and mentions when the person asked for them', () => {
    expect(notificationReason(state(), dm, [], SELF)).toBe('direct message');
    expect(notificationReason(state({ settings: { enable_desktop_notifications: false } }), dm, [], SELF)).toBeUndefined();
    expect(notificationReason(state(), inTopic('a'), ['mentioned'], SELF)).toBe('mention');
    expect(notificationReason(state({ settings: { enable_desktop_notifications: false } }), inTopic('a'), ['mentioned'], SELF)).toBeUndefined();
    expect(notificationReason(state(), inTopic('a'), [], SELF)).toBeUndefined();
  });

  it('never notifies one’s own messages nor a muted person’s', () => {
    expect(notificationReason(state(), { ...dm, sender_id: SELF }, [], SELF)).toBeUndefined();
    expect(notificationReason(state({ muted: [MARY] }), dm, [], SELF)).toBeUndefined();
    expect(notificationReason(state({ muted: [MARY] }), inTopic('a'), ['mentioned'], SELF)).toBeUndefined();
  });

  it('lets a direct mention through muting, but not a wildcard mention nor a channel’s messages', () => {
    const mutedTopic = state({ topics: [{ topic_name: 'Quiet', visibility_policy: 1 }], sub: { desktop_notifications: true } });
    expect(notificationReason(mutedTopic, inTopic('quiet'), ['mentioned'], SELF)).toBe('mention');
    expect(notificationReason(mutedTopic, inTopic('quiet'), ['stream_wildcard_mentioned'], SELF)).toBeUndefined();
    expect(notificationReason(mutedTopic, inTopic('quiet'), [], SELF)).toBeUndefined();
    expect(notificationReason(mutedTopic, inTopic('other'), [], SELF)).toBe('channel');
    const mutedChannel = state({ sub: { is_muted: true, desktop_notifications: true } });
    expect(notificationReason(mutedChannel, inTopic('a'), ['mentioned'], SELF)).toBe('mention');
    expect(notificationReason(mutedChannel, inTopic('a'), ['topic_wildcard_mentioned'], SELF)).toBeUndefined();
    expect(notificationReason(mutedChannel, inTopic('a'), [], SELF)).toBeUndefined();
    // An unmuted topic in a muted channel is heard.
    const unmuted = state({ sub: { is_muted: true, desktop_notifications: true }, topics: [{ topic_name: 'a', visibility_policy: 2 }] });
    expect(notificationReason(unmuted, inTopic('a'), [], SELF)).toBe('channel');
  });

  it('reads wildcard mentions and channel messages from the channel’s setting, else the person’s', () => {
    expect(notificationReason(state(), inTopic('a'), ['stream_wildcard_mentioned'], SELF)).toBe('wildcard mention');
    expect(notificationReason(state({ settings: { wildcard_mentions_notify: false } }), inTopic('a'), ['stream_wildcard_mentioned'], SELF)).toBeUndefined();
    expect(notificationReason(state({ settings: { wildcard_mentions_notify: false }, sub: { wildcard_mentions_notify: true } }), inTopic('a'), ['wildcard_mentioned'], SELF)).toBe('wildcard mention');
    expect(notificationReason(state({ sub: { wildcard_mentions_notify: false } }), inTopic('a'), ['stream_wildcard_mentioned'], SELF)).toBeUndefined();
    expect(notificationReason(state({ settings: { enable_stream_desktop_notifications: true } }), inTopic('a'), [], SELF)).toBe('channel');
    expect(notificationReason(state({ settings: { enable_stream_desktop_notifications: true }, sub: { desktop_notifications: false } }), inTopic('a'), [], SELF)).toBeUndefined();
    expect(notificationReason(state({ sub: { desktop_notifications: true } }), inTopic('a'), [], SELF)).toBe('channel');
  });

  it('notifies followed topics when the person asked for them', () => {
    const followed = { topics: [{ topic_name: 'a', visibility_policy: 3 }] };
    expect(notificationReason(state(followed), inTopic('A'), [], SELF)).toBe('followed topic');
    expect(notificationReason(state({ ...followed, settings: { enable_followed_topic_desktop_notifications: false } }), inTopic('a'), [], SELF)).toBeUndefined();
  });
});
