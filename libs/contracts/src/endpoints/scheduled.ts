/**
 * Scheduled messages and reminders (issue 17), served by messaging: Zulip's
 * /scheduled_messages and /reminders endpoints, with their objects as Zulip shapes them.
 */
import { z } from 'zod';
import { MESSAGE_BODY_LIMIT } from '../limits';
import { ApiReminder, ApiScheduledMessage } from '../feature-events';
import { EmptyReply, endpoint, NoParams } from './contract';

const int = () => z.number().int();

/** Zulip's message types; `stream`/`private` are the legacy names of `channel`/`direct`. */
const ScheduledType = z
  .enum(['direct', 'private', 'channel', 'stream'])
  .transform((type): 'direct' | 'channel' => (type === 'stream' ? 'channel' : type === 'private' ? 'direct' : type));

/** A channel id (or name), or the recipients' user ids (or emails), as POST /messages takes them. */
const ScheduledTo = z.union([z.string(), int(), z.array(z.string()), z.array(int())]);

/** Seconds since the epoch; bounded so that a date arithmetic never overflows. */
const DeliveryTimestamp = int().min(0).max(2 ** 40);

export const CreateScheduledMessageParams = z.object({
  type: ScheduledType,
  to: ScheduledTo,
  content: z.string(),
  topic: z.string().optional(),
  scheduled_delivery_timestamp: DeliveryTimestamp,
  read_by_sender: z.boolean().optional(),
});
export type CreateScheduledMessageParams = z.infer<typeof CreateScheduledMessageParams>;

export const UpdateScheduledMessageParams = z.object({
  scheduled_message_id: int(),
  type: ScheduledType.optional(),
  to: ScheduledTo.optional(),
  content: z.string().optional(),
  topic: z.string().optional(),
  scheduled_delivery_timestamp: DeliveryTimestamp.optional(),
});
export type UpdateScheduledMessageParams = z.infer<typeof UpdateScheduledMessageParams>;

export const CreateReminderParams = z.object({
  message_id: int(),
  scheduled_delivery_timestamp: DeliveryTimestamp,
  note: z.string().optional(),
});
export type CreateReminderParams = z.infer<typeof CreateReminderParams>;

export const scheduledEndpoints = {
  createScheduledMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.create_scheduled_message',
    http: { method: 'POST', path: '/scheduled_messages', wireNames: { subject: 'topic' }, bodyLimit: MESSAGE_BODY_LIMIT },
    auth: true,
    params: CreateScheduledMessageParams,
    reply: z.object({ scheduled_message_id: int() }),
  }),
  getScheduledMessages: endpoint({
    service: 'messaging',
    subject: 'messaging.get_scheduled_messages',
    http: { method: 'GET', path: '/scheduled_messages' },
    auth: true,
    params: NoParams,
    reply: z.object({ scheduled_messages: z.array(ApiScheduledMessage) }),
  }),
  updateScheduledMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.update_scheduled_message',
    http: { method: 'PATCH', path: '/scheduled_messages/{scheduled_message_id}', wireNames: { subject: 'topic' }, bodyLimit: MESSAGE_BODY_LIMIT },
    auth: true,
    params: UpdateScheduledMessageParams,
    reply: EmptyReply,
  }),
  deleteScheduledMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.delete_scheduled_message',
    http: { method: 'DELETE', path: '/scheduled_messages/{scheduled_message_id}' },
    auth: true,
    params: z.object({ scheduled_message_id: int() }),
    reply: EmptyReply,
  }),
  createReminder: endpoint({
    service: 'messaging',
    subject: 'messaging.create_reminder',
    http: { method: 'POST', path: '/reminders' },
    auth: true,
    params: CreateReminderParams,
    reply: z.object({ reminder_id: int() }),
  }),
  getReminders: endpoint({
    service: 'messaging',
    subject: 'messaging.get_reminders',
    http: { method: 'GET', path: '/reminders' },
    auth: true,
    params: NoParams,
    reply: z.object({ reminders: z.array(ApiReminder) }),
  }),
  deleteReminder: endpoint({
    service: 'messaging',
    subject: 'messaging.delete_reminder',
    http: { method: 'DELETE', path: '/reminders/{reminder_id}' },
    auth: true,
    params: z.object({ reminder_id: int() }),
    reply: EmptyReply,
  }),
};
