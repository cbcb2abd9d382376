/** What clients see of scheduled-message and reminder facts: events to their user only, shaped by the client-event schema. */
import { describe, expect, it } from '@jest/globals';
import { ClientEvent, type Fact, type ScheduledSnapshot } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import { deliveriesFor } from '../src/projections/fan-out';

const stored = (data: Fact, position = 42): StoredFact => ({
  id: `fact-${position}`,
  stream: 'scheduled_message-1',
  revision: 0,
  position,
  type: data.type,
  data,
  metadata: {},
  created: 1_700_000_000_000,
});

const snapshot = (over: Partial<ScheduledSnapshot> = {}): ScheduledSnapshot => ({
  kind: 'scheduled',
  user_id: 4,
  recipient: { type: 'channel', channel_id: 10, topic: 'plans' },
  content: 'later',
  rendered_content: '<p>later</p>',
  scheduled_delivery_timestamp: 1_700_000_600,
  read_by_sender: null,
  client: 'website',
  ...over,
});
const reminder = snapshot({ kind: 'reminder', recipient: { type: 'direct', user_ids: [4] }, reminder_target_message_id: 17, reminder_note: null });
const ref = (kind: 'scheduled' | 'reminder') => ({ scheduled_message_id: 42, user_id: 4, kind });

/** The events a fact becomes, each checked against its schema, with the users who get it. */
function eventsOf(fact: Fact, position = 42): { user_ids: readonly number[]; event: unknown }[] {
  return deliveriesFor(stored(fact, position), { apiKeyOf: () => 'k' }).map((d) => {
    const event = d.eventFor({} as never);
    expect(ClientEvent.parse(event)).toEqual(event);
    return { user_ids: d.user_ids, event };
  });
}

const api = { scheduled_message_id: 42, type: 'stream', to: 10, topic: 'plans', content: 'later', rendered_content: '<p>later</p>', scheduled_delivery_timestamp: 1_700_000_600 };

describe('scheduled messages fan-out', () => {
  it('adds, updates, marks failed and removes, for the sender only; the id is the position of the first fact', () => {
    expect(eventsOf({ type: 'ScheduledMessageCreated', scheduled: snapshot() })).toEqual([
      { user_ids: [4], event: { type: 'scheduled_messages', op: 'add', scheduled_messages: [{ ...api, failed: false }] } },
    ]);
    expect(eventsOf({ type: 'ScheduledMessageEdited', ...ref('scheduled'), scheduled: snapshot({ content: 'new' }) }, 50)).toEqual([
      { user_ids: [4], event: { type: 'scheduled_messages', op: 'update', scheduled_message: { ...api, content: 'new', failed: false } } },
    ]);
    expect(eventsOf({ type: 'ScheduledMessageFailed', ...ref('scheduled'), failure_message: 'no', scheduled: snapshot() }, 51)).toEqual([
      { user_ids: [4], event: { type: 'scheduled_messages', op: 'update', scheduled_message: { ...api, failed: true } } },
    ]);
    for (const fact of [{ type: 'ScheduledMessageDeleted', ...ref('scheduled') }, { type: 'ScheduledMessageDelivered', ...ref('scheduled'), message_id: 60 }] as Fact[]) {
      expect(eventsOf(fact, 52)).toEqual([{ user_ids: [4], event: { type: 'scheduled_messages', op: 'remove', scheduled_message_id: 42 } }]);
    }
  });
  it('says nothing of a delivery claim', () => {
    expect(eventsOf({ type: 'ScheduledMessageDeliveryStarted', ...ref('scheduled'), message_stream: 'message-x', started_at: 1 })).toEqual([]);
  });
});

describe('reminders fan-out', () => {
  it('adds and removes (delivered or deleted) for the user only; no update', () => {
    expect(eventsOf({ type: 'ScheduledMessageCreated', scheduled: reminder })).toEqual([
      {
        user_ids: [4],
        event: {
          type: 'reminders',
          op: 'add',
          reminders: [{ reminder_id: 42, type: 'private', to: [4], content: 'later', rendered_content: '<p>later</p>', scheduled_delivery_timestamp: 1_700_000_600, failed: false, reminder_target_message_id: 17 }],
        },
      },
    ]);
    expect(eventsOf({ type: 'ScheduledMessageDelivered', ...ref('reminder'), message_id: 60 }, 52)).toEqual([{ user_ids: [4], event: { type: 'reminders', op: 'remove', reminder_id: 42 } }]);
    expect(eventsOf({ type: 'ScheduledMessageDeleted', ...ref('reminder') }, 52)).toEqual([{ user_ids: [4], event: { type: 'reminders', op: 'remove', reminder_id: 42 } }]);
    expect(eventsOf({ type: 'ScheduledMessageFailed', ...ref('reminder'), failure_message: 'no', scheduled: reminder }, 52)).toEqual([]);
  });
});
