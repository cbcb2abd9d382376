/**
 * What clients see of scheduled messages and reminders (issue 17): each fact goes to its
 * user's own queues (the audience table's `acting_user`), as Zulip's scheduled_messages
 * and reminders events. A new one's id is the position of its first fact. Reminders have
 * no update event in Zulip: an edit cannot happen to them, and a failed one stays listed.
 */
import { apiReminder, apiScheduledMessage, type FactOf } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import { announce } from './announce';

const mine = (user_id: number) => ({ acting_user_id: user_id });

export const scheduledFanOut = {
  ScheduledMessageCreated: ({ scheduled }: FactOf<'ScheduledMessageCreated'>, stored: StoredFact) => [
    scheduled.kind === 'reminder'
      ? announce({ type: 'reminders', op: 'add', reminders: [apiReminder(stored.position, scheduled, false)] }, mine(scheduled.user_id))
      : announce({ type: 'scheduled_messages', op: 'add', scheduled_messages: [apiScheduledMessage(stored.position, scheduled, false)] }, mine(scheduled.user_id)),
  ],
  ScheduledMessageEdited: (fact: FactOf<'ScheduledMessageEdited'>) =>
    fact.kind === 'reminder'
      ? []
      : [announce({ type: 'scheduled_messages', op: 'update', scheduled_message: apiScheduledMessage(fact.scheduled_message_id, fact.scheduled, false) }, mine(fact.user_id))],
  ScheduledMessageDeleted: (fact: FactOf<'ScheduledMessageDeleted'>) => [removal(fact)],
  // A claim changes nothing a client shows: the message is listed until it is delivered.
  ScheduledMessageDeliveryStarted: null,
  ScheduledMessageDelivered: (fact: FactOf<'ScheduledMessageDelivered'>) => [removal(fact)],
  ScheduledMessageFailed: (fact: FactOf<'ScheduledMessageFailed'>) =>
    fact.kind === 'reminder'
      ? []
      : [announce({ type: 'scheduled_messages', op: 'update', scheduled_message: apiScheduledMessage(fact.scheduled_message_id, fact.scheduled, true) }, mine(fact.user_id))],
};

function removal(fact: { scheduled_message_id: number; user_id: number; kind: 'scheduled' | 'reminder' }) {
  return fact.kind === 'reminder'
    ? announce({ type: 'reminders', op: 'remove', reminder_id: fact.scheduled_message_id }, mine(fact.user_id))
    : announce({ type: 'scheduled_messages', op: 'remove', scheduled_message_id: fact.scheduled_message_id }, mine(fact.user_id));
}
