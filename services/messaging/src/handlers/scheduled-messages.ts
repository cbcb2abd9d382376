/**
 * The /scheduled_messages and /reminders endpoints: each checks what it is given as
 * sending would (scheduling runs POST /messages' checks), decides on the scheduled
 * message's own stream, and appends. Delivery is in scheduled-delivery.ts.
 */
import {
  badRequest,
  streams,
  type Actor,
  type CreateReminderParams,
  type CreateScheduledMessageParams,
  type ScheduledRecipient,
  type ScheduledSnapshot,
  type SendMessageParams,
  type UpdateScheduledMessageParams,
} from '@teamchat/contracts';
import { newId, type AggregateRepository } from '@teamchat/platform';
import {
  checkDeliveryTime,
  checkNote,
  decideDeleteScheduled,
  decideEditScheduled,
  decideSchedule,
  reminderContent,
  notInFuture,
  reminderNotFound,
  scheduledNotFound,
  type RemindedMessage,
  type ScheduledState,
} from '../domain/scheduled-messages';
import type { ScheduledMessages } from '../projections/scheduled-messages';
import type { MessageDoc } from '../projections/message-docs';
import { accessibleMessage, type AccessDeps } from '../queries/access';
import { checkMessage, type SendDeps } from './send-message';

export interface ScheduledDeps extends SendDeps {
  scheduledStreams: AggregateRepository<ScheduledState>;
  scheduledModel: ScheduledMessages;
  realmUri: string;
  now?: () => number;
}

const clock = (deps: Pick<ScheduledDeps, 'now'>) => (deps.now ?? Date.now)();

/** The checked message as a scheduled one stores it: named recipients (the sender only when writing to themself). */
async function checkedSnapshot(
  deps: ScheduledDeps,
  actor: Actor,
  params: SendMessageParams,
  when: { scheduled_delivery_timestamp: number; read_by_sender: boolean | null },
): Promise<ScheduledSnapshot> {
  const { fact } = await checkMessage(deps, actor, params);
  let recipient: ScheduledRecipient;
  if (fact.recipient.type === 'channel') {
    recipient = { type: 'channel', channel_id: fact.recipient.channel_id, topic: fact.recipient.topic };
  } else {
    const others = fact.recipient.users.map((u) => u.id).filter((id) => id !== actor.user_id);
    recipient = { type: 'direct', user_ids: others.length > 0 ? others : [actor.user_id] };
  }
  return {
    kind: 'scheduled',
    user_id: actor.user_id,
    recipient,
    content: fact.content,
    rendered_content: fact.rendered_content,
    scheduled_delivery_timestamp: when.scheduled_delivery_timestamp,
    read_by_sender: when.read_by_sender,
    client: actor.client,
  };
}

export async function createScheduledMessage(deps: ScheduledDeps, actor: Actor, params: CreateScheduledMessageParams) {
  const now = clock(deps);
  // Zulip refuses a past time before looking at the message.
  checkDeliveryTime(params.scheduled_delivery_timestamp, now);
  const scheduled = await checkedSnapshot(
    deps,
    actor,
    { type: params.type, to: params.to, content: params.content, topic: params.topic },
    { scheduled_delivery_timestamp: params.scheduled_delivery_timestamp, read_by_sender: params.read_by_sender ?? null },
  );
  const { positions } = await deps.scheduledStreams.create(streams.scheduledMessage(newId()), decideSchedule({ scheduled, now }));
  return { scheduled_message_id: positions[0]!, position: positions[0]! };
}

async function ownDoc(deps: ScheduledDeps, actor: Actor, id: number, kind: ScheduledSnapshot['kind']) {
  const doc = await deps.scheduledModel.collection.get(id);
  if (!doc || doc.user_id !== actor.user_id || doc.kind !== kind) throw kind === 'reminder' ? reminderNotFound() : scheduledNotFound();
  return doc;
}

export async function updateScheduledMessage(deps: ScheduledDeps, actor: Actor, params: UpdateScheduledMessageParams): Promise<number | undefined> {
  const { type, to, content, topic, scheduled_delivery_timestamp } = params;
  if (type === undefined && to === undefined && content === undefined && topic === undefined && scheduled_delivery_timestamp === undefined) {
    throw badRequest('Nothing to change');
  }
  if (type !== undefined && to === undefined) throw badRequest('Recipient required when updating type of scheduled message.');
  if (type === 'channel' && topic === undefined) throw badRequest('Topic required when updating scheduled message type to stream.');
  const now = clock(deps);
  if (scheduled_delivery_timestamp !== undefined) checkDeliveryTime(scheduled_delivery_timestamp, now);
  const doc = await ownDoc(deps, actor, params.scheduled_message_id, 'scheduled');
  // Before the message is checked again, as Zulip: what failed needs a new time first (the decider holds to it too).
  if (doc.status === 'failed' && scheduled_delivery_timestamp === undefined) throw notInFuture();
  const before = doc.scheduled;
  const timestamp = scheduled_delivery_timestamp ?? before.scheduled_delivery_timestamp;
  let scheduled: ScheduledSnapshot = { ...before, scheduled_delivery_timestamp: timestamp, client: actor.client };
  if (type !== undefined || to !== undefined || content !== undefined || topic !== undefined) {
    // The changed message is checked again as a whole, with what it keeps from before.
    const wasChannel = before.recipient.type === 'channel';
    const nextType = type ?? (wasChannel ? 'channel' : 'direct');
    const nextTo = to ?? (before.recipient.type === 'channel' ? before.recipient.channel_id : before.recipient.user_ids);
    // A topic sent for a direct message is ignored, as Zulip does.
    const nextTopic = nextType === 'channel' ? (topic ?? (before.recipient.type === 'channel' ? before.recipient.topic : undefined)) : undefined;
    scheduled = await checkedSnapshot(
      deps,
      actor,
      { type: nextType, to: nextTo, content: content ?? before.content, topic: nextTopic },
      { scheduled_delivery_timestamp: timestamp, read_by_sender: before.read_by_sender },
    );
  }
  const { append } = await deps.scheduledStreams.execute(doc.stream, (state) => ({
    facts: decideEditScheduled(state, {
      scheduled_message_id: doc._id,
      user_id: actor.user_id,
      kind: 'scheduled',
      scheduled,
      delivery_time_changed: scheduled_delivery_timestamp !== undefined,
      now,
    }),
    result: undefined,
  }));
  return append?.positions.at(-1);
}

export async function deleteScheduled(deps: ScheduledDeps, actor: Actor, id: number, kind: ScheduledSnapshot['kind']): Promise<number | undefined> {
  const doc = await ownDoc(deps, actor, id, kind);
  const { append } = await deps.scheduledStreams.execute(doc.stream, (state) => ({
    facts: decideDeleteScheduled(state, { scheduled_message_id: doc._id, user_id: actor.user_id, kind }),
    result: undefined,
  }));
  return append?.positions.at(-1);
}

export function remindedMessage(doc: MessageDoc): RemindedMessage {
  return {
    id: doc._id,
    sender: { id: doc.sender_id, full_name: doc.sender_full_name },
    content: doc.content,
    recipient:
      doc.recipient.type === 'channel'
        ? { type: 'channel', channel_id: doc.recipient.channel_id, channel_name: doc.recipient.channel_name, topic: doc.recipient.topic }
        : { type: 'direct', users: doc.recipient.users.map((u) => ({ id: u.id, full_name: u.full_name })) },
  };
}

export async function createReminder(deps: ScheduledDeps & AccessDeps, actor: Actor, params: CreateReminderParams) {
  const now = clock(deps);
  checkDeliveryTime(params.scheduled_delivery_timestamp, now);
  // Only a message the user may see: anything else is as if it did not exist.
  const { message } = await accessibleMessage(deps, actor, params.message_id);
  const note = params.note === undefined ? null : params.note.replace(/^\n+/, '').trimEnd();
  checkNote(note);
  const content = reminderContent(remindedMessage(message), note, deps.realmUri);
  // As a preview: the quoted message's group mentions were checked when it was sent, and mention nobody here.
  const rendered = await deps.renderer.render(content, { sender_id: actor.user_id, recipient_user_ids: [actor.user_id], topic_participant_ids: [], preview: true });
  const scheduled: ScheduledSnapshot = {
    kind: 'reminder',
    user_id: actor.user_id,
    recipient: { type: 'direct', user_ids: [actor.user_id] },
    content,
    rendered_content: rendered.html,
    scheduled_delivery_timestamp: params.scheduled_delivery_timestamp,
    read_by_sender: null,
    client: actor.client,
    reminder_target_message_id: message._id,
    reminder_note: note,
  };
  const { positions } = await deps.scheduledStreams.create(streams.scheduledMessage(newId()), decideSchedule({ scheduled, now }));
  return { reminder_id: positions[0]!, position: positions[0]! };
}
