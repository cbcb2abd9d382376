/** Given facts / when command / then facts for scheduled messages and reminders, and the reminder's wording. */
import { describe, expect, it } from '@jest/globals';
import { apiReminder, apiScheduledMessage, NOTIFICATION_BOT, type Fact, type FactOf, type ScheduledSnapshot } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  decideClaim,
  decideDeleteScheduled,
  decideDelivered,
  decideEditScheduled,
  decideFailed,
  decideNotificationDirectMessage,
  decideSchedule,
  DELIVERY_LEASE_MS,
  evolveScheduled,
  initialScheduled,
  LATE_CUTOFF_MS,
  reminderContent,
  tooLate,
  type ScheduledState,
} from '../src/domain/scheduled-messages';

const NOW = 1_700_000_000_000;
const AT = NOW / 1000 + 60;
const ID = 41;
const snapshot = (over: Partial<ScheduledSnapshot> = {}): ScheduledSnapshot => ({
  kind: 'scheduled',
  user_id: 4,
  recipient: { type: 'channel', channel_id: 1, topic: 'plans' },
  content: 'later',
  rendered_content: '<p>later</p>',
  scheduled_delivery_timestamp: AT,
  read_by_sender: null,
  client: 'test',
  ...over,
});
const ref = { scheduled_message_id: ID, user_id: 4, kind: 'scheduled' as const };
const created = (over: Partial<ScheduledSnapshot> = {}): FactOf<'ScheduledMessageCreated'> => ({ type: 'ScheduledMessageCreated', scheduled: snapshot(over) });
const started = (at = NOW + 60_000, stream = 'message-a'): FactOf<'ScheduledMessageDeliveryStarted'> => ({
  type: 'ScheduledMessageDeliveryStarted',
  ...ref,
  message_stream: stream,
  started_at: at,
});
const spec = <C>(decide: (state: ScheduledState, cmd: C) => Fact[]) =>
  deciderSpec<ScheduledState, C>({ initial: initialScheduled, evolve: evolveScheduled, decide: (cmd, state) => decide(state, cmd) });

describe('scheduling', () => {
  const schedule = spec((_state, cmd: { scheduled: ScheduledSnapshot; now: number }) => decideSchedule(cmd));
  it('records the checked message with its time', () => schedule.given([]).when({ scheduled: snapshot(), now: NOW }).then([created()]));
  it('refuses a time that is not in the future (now included)', () => {
    schedule.given([]).when({ scheduled: snapshot({ scheduled_delivery_timestamp: NOW / 1000 }), now: NOW }).thenThrows({ msg: 'Scheduled delivery time must be in the future.' });
    schedule.given([]).when({ scheduled: snapshot({ scheduled_delivery_timestamp: 5 }), now: NOW }).thenThrows({ code: 'BAD_REQUEST' });
  });
  it('refuses a reminder note over 1000 characters', () =>
    schedule
      .given([])
      .when({ scheduled: snapshot({ kind: 'reminder', reminder_target_message_id: 3, reminder_note: 'x'.repeat(1001) }), now: NOW })
      .thenThrows({ msg: 'Maximum reminder note length: 1000 characters' }));
});

describe('editing and deleting', () => {
  type Edit = { scheduled: ScheduledSnapshot; delivery_time_changed: boolean; user_id?: number };
  const edit = spec((state, cmd: Edit) => decideEditScheduled(state, { ...ref, user_id: cmd.user_id ?? 4, scheduled: cmd.scheduled, delivery_time_changed: cmd.delivery_time_changed, now: NOW }));
  const remove = spec((state, cmd: { user_id: number; kind: 'scheduled' | 'reminder' }) => decideDeleteScheduled(state, { ...ref, ...cmd }));
  const edited = (s: ScheduledSnapshot): FactOf<'ScheduledMessageEdited'> => ({ type: 'ScheduledMessageEdited', ...ref, scheduled: s });

  it('replaces the whole scheduled message', () =>
    edit.given([created()]).when({ scheduled: snapshot({ content: 'new' }), delivery_time_changed: false }).then([edited(snapshot({ content: 'new' }))]));
  it("refuses another user's, a deleted and a delivered one as not existing (404)", () => {
    edit.given([created()]).when({ scheduled: snapshot(), delivery_time_changed: false, user_id: 5 }).thenThrows({ msg: 'Scheduled message does not exist' });
    edit.given([created(), { type: 'ScheduledMessageDeleted', ...ref }]).when({ scheduled: snapshot(), delivery_time_changed: false }).thenThrows({ msg: 'Scheduled message does not exist' });
    edit.given([created(), started(), { type: 'ScheduledMessageDelivered', ...ref, message_id: 50 }]).when({ scheduled: snapshot(), delivery_time_changed: false }).thenThrows({ msg: 'Scheduled message does not exist' });
  });
  it('refuses a change once delivery has started', () =>
    edit.given([created(), started()]).when({ scheduled: snapshot(), delivery_time_changed: false }).thenThrows({ msg: 'Scheduled message was already sent' }));
  it('needs a new future time for a failed one, and clears the failure with it', () => {
    const failed: FactOf<'ScheduledMessageFailed'> = { type: 'ScheduledMessageFailed', ...ref, failure_message: 'no', scheduled: snapshot() };
    edit.given([created(), started(), failed]).when({ scheduled: snapshot({ content: 'again' }), delivery_time_changed: false }).thenThrows({ msg: 'Scheduled delivery time must be in the future.' });
    const later = snapshot({ scheduled_delivery_timestamp: AT + 60 });
    edit.given([created(), started(), failed]).when({ scheduled: later, delivery_time_changed: true }).then([edited(later)]);
    expect([created(), started(), failed, edited(later)].reduce(evolveScheduled, initialScheduled()).status).toBe('pending');
  });
  it('deletes only its own, of its kind', () => {
    remove.given([created()]).when({ user_id: 4, kind: 'scheduled' }).then([{ type: 'ScheduledMessageDeleted', ...ref }]);
    remove.given([created()]).when({ user_id: 4, kind: 'reminder' }).thenThrows({ msg: 'Reminder does not exist' });
    remove.given([created()]).when({ user_id: 6, kind: 'scheduled' }).thenThrows({ msg: 'Scheduled message does not exist' });
    remove.given([]).when({ user_id: 4, kind: 'scheduled' }).thenThrows({ msg: 'Scheduled message does not exist' });
  });
});

describe('delivery claims', () => {
  const claim = (facts: Fact[], now: number, stream = 'message-b') => decideClaim(facts.reduce(evolveScheduled, initialScheduled()), { ...ref, now, message_stream: stream });

  it('claims a due one with the stream its message will have', () => {
    expect(claim([created()], AT * 1000)).toEqual({ facts: [started(AT * 1000, 'message-b')], result: { claimed: true, message_stream: 'message-b', scheduled: snapshot() } });
  });
  it('leaves one that is not due, deleted, delivered or failed', () => {
    expect(claim([created()], AT * 1000 - 1).result.claimed).toBe(false);
    expect(claim([created(), { type: 'ScheduledMessageDeleted', ...ref }], AT * 1000).result.claimed).toBe(false);
    expect(claim([created(), started(), { type: 'ScheduledMessageDelivered', ...ref, message_id: 9 }], AT * 1000 + DELIVERY_LEASE_MS * 2).result.claimed).toBe(false);
    expect(claim([created(), started(), { type: 'ScheduledMessageFailed', ...ref, failure_message: 'x', scheduled: snapshot() }], AT * 1000).result.claimed).toBe(false);
  });
  it('a second claim on the same state finds it taken while the lease runs', () => {
    expect(claim([created(), started(AT * 1000)], AT * 1000 + DELIVERY_LEASE_MS - 1).result.claimed).toBe(false);
  });
  it('takes up an abandoned claim after its lease with the same message stream, so the message is stored once', () => {
    const again = claim([created(), started(AT * 1000, 'message-first')], AT * 1000 + DELIVERY_LEASE_MS, 'message-other');
    expect(again.result).toEqual({ claimed: true, message_stream: 'message-first', scheduled: snapshot() });
  });
  it('records delivery and failure only for a claimed one', () => {
    const claimed = [created(), started()].reduce(evolveScheduled, initialScheduled());
    expect(decideDelivered(claimed, { ...ref, message_id: 77 })).toEqual([{ type: 'ScheduledMessageDelivered', ...ref, message_id: 77 }]);
    expect(decideDelivered(evolveScheduled(claimed, { type: 'ScheduledMessageDelivered', ...ref, message_id: 77 }), { ...ref, message_id: 78 })).toEqual([]);
    expect(decideFailed(claimed, { ...ref, failure_message: 'gone' })).toEqual([{ type: 'ScheduledMessageFailed', ...ref, failure_message: 'gone', scheduled: snapshot() }]);
    expect(decideFailed([created()].reduce(evolveScheduled, initialScheduled()), { ...ref, failure_message: 'gone' })).toEqual([]);
  });
  it('gives up on a scheduled message more than 10 minutes late, never on a reminder', () => {
    expect(tooLate(snapshot(), AT * 1000 + LATE_CUTOFF_MS)).toBeNull();
    expect(tooLate(snapshot(), AT * 1000 + LATE_CUTOFF_MS + 1)).toBe('Message could not be sent at the scheduled time.');
    expect(tooLate(snapshot({ kind: 'reminder' }), AT * 1000 + LATE_CUTOFF_MS * 100)).toBeNull();
  });
});

describe('reminders', () => {
  const channelMessage = { id: 19, sender: { id: 5, full_name: 'Mary Member' }, content: 'see ```code```', recipient: { type: 'channel' as const, channel_id: 1, channel_name: 'general', topic: 'lunch' } };
  it('links and quotes a channel message, with the note', () => {
    const text = reminderContent(channelMessage, 'bring cake', 'https://chat.test');
    expect(text).toBe(
      'You requested a reminder for the following message. Note:\n > bring cake\n\n' +
        '@_**Mary Member|5** [said](https://chat.test/#narrow/channel/1-general/topic/lunch/near/19) in #**general>lunch@19**:\n' +
        '````quote\nsee ```code```\n````',
    );
  });
  it('names the other participants of a direct message', () => {
    const text = reminderContent({ ...channelMessage, recipient: { type: 'direct', users: [{ id: 4, full_name: 'Mark Member' }, { id: 5, full_name: 'Mary Member' }] } }, null, 'https://chat.test');
    expect(text).toContain('the following direct message.\n\n@_**Mary Member|5** [said](https://chat.test/#narrow/dm/4,5-dm/near/19) to @_**Mark Member|4**:');
  });
  it('truncates a long message to fit the message length limit', () => {
    const text = reminderContent({ ...channelMessage, content: 'y'.repeat(10_000) }, null, 'https://chat.test');
    expect(text.length).toBeLessThanOrEqual(10_000);
    expect(text).toContain('[message truncated]');
  });
  it('is delivered as a direct message from the notification bot that only the user holds', () => {
    const fact = decideNotificationDirectMessage({ user: { id: 4, email: 'm@x', full_name: 'Mark' }, content: 'c', rendered_content: '<p>c</p>', recipient_id: 9, now: NOW });
    expect(fact).toMatchObject({ sender_id: NOTIFICATION_BOT.user_id, recipient_user_ids: [4], read_by_sender: false, timestamp: NOW / 1000 });
    expect(fact.recipient).toEqual({
      type: 'direct',
      users: [
        { id: 4, email: 'm@x', full_name: 'Mark', is_mirror_dummy: false },
        { id: NOTIFICATION_BOT.user_id, email: NOTIFICATION_BOT.email, full_name: NOTIFICATION_BOT.full_name, is_mirror_dummy: false },
      ],
    });
  });
});

describe('API objects', () => {
  it('as Zulip shapes them: a channel id and topic, or user ids; reminders with their target', () => {
    expect(apiScheduledMessage(7, snapshot(), true)).toEqual({ scheduled_message_id: 7, type: 'stream', to: 1, topic: 'plans', content: 'later', rendered_content: '<p>later</p>', scheduled_delivery_timestamp: AT, failed: true });
    expect(apiScheduledMessage(7, snapshot({ recipient: { type: 'direct', user_ids: [5, 6] } }), false)).toEqual({ scheduled_message_id: 7, type: 'private', to: [5, 6], content: 'later', rendered_content: '<p>later</p>', scheduled_delivery_timestamp: AT, failed: false });
    expect(apiReminder(8, snapshot({ kind: 'reminder', recipient: { type: 'direct', user_ids: [4] }, reminder_target_message_id: 3 }), false)).toMatchObject({ reminder_id: 8, type: 'private', to: [4], reminder_target_message_id: 3 });
  });
});
