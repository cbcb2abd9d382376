/**
 * Facts of scheduled messages and reminders (issue 17). Messaging appends them, one
 * stream per scheduled message (`streams.scheduledMessage`); the id clients see is the
 * position of its first fact, as for messages. Each later fact names that id and its
 * user, so that the fan-out and the projections need nothing else.
 */
import { z } from 'zod';

const int = () => z.number().int();

/** Where a scheduled message goes: a channel and topic, or the users named in `to` (the sender only when alone). */
export const ScheduledRecipient = z.discriminatedUnion('type', [
  z.object({ type: z.literal('channel'), channel_id: int(), topic: z.string() }),
  z.object({ type: z.literal('direct'), user_ids: z.array(int()) }),
]);
export type ScheduledRecipient = z.infer<typeof ScheduledRecipient>;

/** A scheduled message or a reminder as it stands (reminders are direct messages to their user). */
export const ScheduledSnapshot = z.object({
  kind: z.enum(['scheduled', 'reminder']),
  user_id: int(),
  recipient: ScheduledRecipient,
  content: z.string(),
  rendered_content: z.string(),
  /** Seconds since the epoch. */
  scheduled_delivery_timestamp: int(),
  /** Null: decided by the sending client at delivery, as for POST /messages. */
  read_by_sender: z.boolean().nullable(),
  client: z.string(),
  /** Reminders: the message reminded of, and the user's note. */
  reminder_target_message_id: int().optional(),
  reminder_note: z.string().nullable().optional(),
});
export type ScheduledSnapshot = z.infer<typeof ScheduledSnapshot>;

const Ref = { scheduled_message_id: int(), user_id: int(), kind: z.enum(['scheduled', 'reminder']) };

export const ScheduledMessageCreated = z.object({ type: z.literal('ScheduledMessageCreated'), scheduled: ScheduledSnapshot });
/** The whole scheduled message after an edit (an edit also clears a failure). */
export const ScheduledMessageEdited = z.object({ type: z.literal('ScheduledMessageEdited'), ...Ref, scheduled: ScheduledSnapshot });
export const ScheduledMessageDeleted = z.object({ type: z.literal('ScheduledMessageDeleted'), ...Ref });
/**
 * One delivery attempt claimed the scheduled message: appended with the exact revision the
 * claimant read, so of several messaging instances exactly one wins. `message_stream` is
 * where the message will be stored; an attempt interrupted by a crash is taken up again
 * with the same stream, which the store creates at most once.
 */
export const ScheduledMessageDeliveryStarted = z.object({
  type: z.literal('ScheduledMessageDeliveryStarted'),
  ...Ref,
  message_stream: z.string(),
  /** Milliseconds since the epoch: an attempt older than the lease may be taken up by anyone. */
  started_at: z.number(),
});
export const ScheduledMessageDelivered = z.object({ type: z.literal('ScheduledMessageDelivered'), ...Ref, message_id: int() });
/** Delivery was refused (the sender's permissions at delivery time, too late, ...): kept, marked failed, with why. */
export const ScheduledMessageFailed = z.object({
  type: z.literal('ScheduledMessageFailed'),
  ...Ref,
  failure_message: z.string(),
  scheduled: ScheduledSnapshot,
});

export const SCHEDULED_FACTS = [
  ScheduledMessageCreated,
  ScheduledMessageEdited,
  ScheduledMessageDeleted,
  ScheduledMessageDeliveryStarted,
  ScheduledMessageDelivered,
  ScheduledMessageFailed,
] as const;

/** Zulip's scheduled message object (GET /scheduled_messages, register, events). */
export function apiScheduledMessage(id: number, s: ScheduledSnapshot, failed: boolean) {
  const common = { scheduled_message_id: id, content: s.content, rendered_content: s.rendered_content, scheduled_delivery_timestamp: s.scheduled_delivery_timestamp, failed };
  return s.recipient.type === 'channel'
    ? { ...common, type: 'stream' as const, to: s.recipient.channel_id, topic: s.recipient.topic }
    : { ...common, type: 'private' as const, to: [...s.recipient.user_ids] };
}

/** Zulip's reminder object: a direct message to its user. */
export function apiReminder(id: number, s: ScheduledSnapshot, failed: boolean) {
  return {
    reminder_id: id,
    type: 'private' as const,
    to: s.recipient.type === 'direct' ? [...s.recipient.user_ids] : [s.user_id],
    content: s.content,
    rendered_content: s.rendered_content,
    scheduled_delivery_timestamp: s.scheduled_delivery_timestamp,
    failed,
    reminder_target_message_id: s.reminder_target_message_id ?? 0,
  };
}
