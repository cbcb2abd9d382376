/**
 * Scheduled messages and reminders: one stream each, from creation to delivery or
 * deletion. Pure: the checked message, the clock and the stream a delivery will store its
 * message in come with the command; the handler sends through the normal send path.
 *
 * Delivery happens exactly once across instances because every attempt first appends a
 * claim (ScheduledMessageDeliveryStarted) with the revision it read: only one claim can
 * follow a given revision. An attempt that dies after claiming is taken up again once its
 * lease has passed, with the message stream the claim recorded, which the store creates
 * at most once.
 */
import {
  ApiError,
  badRequest,
  LIMITS,
  NOTIFICATION_BOT,
  type Fact,
  type FactOf,
  type ScheduledSnapshot,
} from '@teamchat/contracts';
import { topicNarrowPath } from '@teamchat/markdown';
import { codePointLength } from '@teamchat/policies';
import { systemBotMessageSent } from './system-bot-message';

export type ScheduledStatus = 'absent' | 'pending' | 'delivering' | 'delivered' | 'failed' | 'deleted';

export interface ScheduledState {
  status: ScheduledStatus;
  scheduled: ScheduledSnapshot | null;
  delivery: { message_stream: string; started_at: number } | null;
}

export const initialScheduled = (): ScheduledState => ({ status: 'absent', scheduled: null, delivery: null });

export function evolveScheduled(state: ScheduledState, fact: Fact): ScheduledState {
  switch (fact.type) {
    case 'ScheduledMessageCreated':
      return { status: 'pending', scheduled: fact.scheduled, delivery: null };
    case 'ScheduledMessageEdited':
      return { status: 'pending', scheduled: fact.scheduled, delivery: null };
    case 'ScheduledMessageDeleted':
      return { ...state, status: 'deleted' };
    case 'ScheduledMessageDeliveryStarted':
      return { ...state, status: 'delivering', delivery: { message_stream: fact.message_stream, started_at: fact.started_at } };
    case 'ScheduledMessageDelivered':
      return { ...state, status: 'delivered' };
    case 'ScheduledMessageFailed':
      return { ...state, status: 'failed', delivery: null };
    default:
      return state;
  }
}

/** Zulip's limit on how late a scheduled message may still go out (reminders have none). */
export const LATE_CUTOFF_MS = 10 * 60 * 1000;
/** How long a claimed delivery may take before another attempt may take it up. */
export const DELIVERY_LEASE_MS = 30_000;
/** Zulip's MAX_REMINDER_NOTE_LENGTH. */
export const MAX_REMINDER_NOTE_LENGTH = 1000;

export const scheduledNotFound = () => new ApiError('BAD_REQUEST', 'Scheduled message does not exist', 404);
export const reminderNotFound = () => new ApiError('BAD_REQUEST', 'Reminder does not exist', 404);
export const notInFuture = () => badRequest('Scheduled delivery time must be in the future.');
const alreadySent = () => badRequest('Scheduled message was already sent');

export function checkDeliveryTime(timestamp: number, now: number): void {
  if (timestamp * 1000 <= now) throw notInFuture();
}

export function decideSchedule(cmd: { scheduled: ScheduledSnapshot; now: number }): FactOf<'ScheduledMessageCreated'>[] {
  checkDeliveryTime(cmd.scheduled.scheduled_delivery_timestamp, cmd.now);
  if (cmd.scheduled.kind === 'reminder') checkNote(cmd.scheduled.reminder_note ?? null);
  return [{ type: 'ScheduledMessageCreated', scheduled: cmd.scheduled }];
}

export function checkNote(note: string | null): void {
  if (note !== null && codePointLength(note) > MAX_REMINDER_NOTE_LENGTH) {
    throw badRequest(`Maximum reminder note length: ${MAX_REMINDER_NOTE_LENGTH} characters`);
  }
}

interface Ref {
  scheduled_message_id: number;
  user_id: number;
  kind: ScheduledSnapshot['kind'];
}

/** The caller's own, not yet delivered or deleted, of the right kind; anything else does not exist for them. */
function own(state: ScheduledState, ref: Ref): ScheduledSnapshot {
  const s = state.scheduled;
  const gone = state.status === 'absent' || state.status === 'deleted' || state.status === 'delivered';
  if (!s || gone || s.user_id !== ref.user_id || s.kind !== ref.kind) throw ref.kind === 'reminder' ? reminderNotFound() : scheduledNotFound();
  return s;
}

export function decideEditScheduled(
  state: ScheduledState,
  cmd: Ref & { scheduled: ScheduledSnapshot; delivery_time_changed: boolean; now: number },
): FactOf<'ScheduledMessageEdited'>[] {
  own(state, cmd);
  if (state.status === 'delivering') throw alreadySent();
  // A message the server failed to send needs a new time: its old one has passed.
  if (state.status === 'failed' && !cmd.delivery_time_changed) throw notInFuture();
  if (cmd.delivery_time_changed) checkDeliveryTime(cmd.scheduled.scheduled_delivery_timestamp, cmd.now);
  const { scheduled_message_id, user_id, kind } = cmd;
  return [{ type: 'ScheduledMessageEdited', scheduled_message_id, user_id, kind, scheduled: cmd.scheduled }];
}

export function decideDeleteScheduled(state: ScheduledState, cmd: Ref): FactOf<'ScheduledMessageDeleted'>[] {
  own(state, cmd);
  if (state.status === 'delivering') throw alreadySent();
  return [{ type: 'ScheduledMessageDeleted', ...cmd }];
}

export type Claim = { claimed: false } | { claimed: true; message_stream: string; scheduled: ScheduledSnapshot };

/**
 * Takes the scheduled message for one delivery attempt when it is due and nobody holds
 * it (or the holder's lease has passed: it keeps the stream the first attempt chose).
 */
export function decideClaim(
  state: ScheduledState,
  cmd: Ref & { now: number; message_stream: string },
): { facts: FactOf<'ScheduledMessageDeliveryStarted'>[]; result: Claim } {
  const s = state.scheduled;
  const none = { facts: [], result: { claimed: false as const } };
  if (!s) return none;
  const due = s.scheduled_delivery_timestamp * 1000 <= cmd.now;
  const abandoned = state.status === 'delivering' && state.delivery !== null && state.delivery.started_at + DELIVERY_LEASE_MS <= cmd.now;
  if (!(state.status === 'pending' && due) && !abandoned) return none;
  const message_stream = abandoned ? state.delivery!.message_stream : cmd.message_stream;
  const { scheduled_message_id, user_id, kind } = cmd;
  return {
    facts: [{ type: 'ScheduledMessageDeliveryStarted', scheduled_message_id, user_id, kind, message_stream, started_at: cmd.now }],
    result: { claimed: true, message_stream, scheduled: s },
  };
}

export function decideDelivered(state: ScheduledState, cmd: Ref & { message_id: number }): FactOf<'ScheduledMessageDelivered'>[] {
  if (state.status !== 'delivering') return [];
  return [{ type: 'ScheduledMessageDelivered', ...cmd }];
}

export function decideFailed(state: ScheduledState, cmd: Ref & { failure_message: string }): FactOf<'ScheduledMessageFailed'>[] {
  if (state.status !== 'delivering' || !state.scheduled) return [];
  return [{ type: 'ScheduledMessageFailed', ...cmd, scheduled: state.scheduled }];
}

/** Why a due scheduled message may not go out any more, whoever sends it. */
export function tooLate(s: ScheduledSnapshot, now: number): string | null {
  if (s.kind === 'reminder') return null;
  return now > s.scheduled_delivery_timestamp * 1000 + LATE_CUTOFF_MS ? 'Message could not be sent at the scheduled time.' : null;
}

/** The message a reminder is about, as the user may see it. */
export interface RemindedMessage {
  id: number;
  sender: { id: number; full_name: string };
  content: string;
  recipient:
    | { type: 'channel'; channel_id: number; channel_name: string; topic: string }
    | { type: 'direct'; users: { id: number; full_name: string }[] };
}

const silentMention = (u: { id: number; full_name: string }) => `@_**${u.full_name}|${u.id}**`;

/** A fence of backticks longer than any run in `text`, so the quote cannot be closed early. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

/** What the notification bot sends: the note, who said what where, a link to it, and the message quoted (as Zulip words it). */
export function reminderContent(message: RemindedMessage, note: string | null, realmUri: string): string {
  const noted = note ? `. Note:\n > ${note}` : '.';
  let head: string;
  let link: string;
  if (message.recipient.type === 'channel') {
    const { channel_id, channel_name, topic } = message.recipient;
    link = `${realmUri}${topicNarrowPath(channel_id, channel_name, topic)}/near/${message.id}`;
    const pretty = `#**${channel_name}>${topic}@${message.id}**`;
    head = `You requested a reminder for the following message${noted}\n\n${silentMention(message.sender)} [said](${link}) in ${pretty}:`;
  } else {
    const others = message.recipient.users.filter((u) => u.id !== message.sender.id);
    const shown = others.length > 0 ? others : [message.sender];
    const ids = message.recipient.users.map((u) => u.id).sort((a, b) => a - b);
    link = `${realmUri}/#narrow/dm/${ids.join(',')}-dm/near/${message.id}`;
    head = `You requested a reminder for the following direct message${noted}\n\n${silentMention(message.sender)} [said](${link}) to ${shown.map(silentMention).join(', ')}:`;
  }
  const fence = fenceFor(message.content);
  const room = LIMITS.max_message_length - codePointLength(`${head}\n${fence}quote\n\n${fence}`) - 30;
  const body = codePointLength(message.content) > room ? `${[...message.content].slice(0, room).join('')}\n[message truncated]` : message.content;
  return `${head}\n${fence}quote\n${body}\n${fence}`;
}

/** What the sender is told when the server could not send their scheduled message (Zulip's notice). */
export function failureNotice(s: ScheduledSnapshot, failure: string): string {
  return [
    `The message you scheduled for <time:${new Date(s.scheduled_delivery_timestamp * 1000).toISOString()}> was not sent because of the following error:`,
    '',
    `> ${failure}`,
    '',
    '[View scheduled messages](#scheduled)',
  ].join('\n');
}

/** A direct message from the notification bot to one user (reminders, failure notices). No permission applies: the server sends it. */
export function decideNotificationDirectMessage(cmd: {
  user: { id: number; email: string; full_name: string };
  content: string;
  rendered_content: string;
  recipient_id: number;
  now: number;
}): FactOf<'MessageSent'> {
  const bot = { id: NOTIFICATION_BOT.user_id, email: NOTIFICATION_BOT.email, full_name: NOTIFICATION_BOT.full_name, is_mirror_dummy: false };
  const user = { id: cmd.user.id, email: cmd.user.email, full_name: cmd.user.full_name, is_mirror_dummy: false };
  return systemBotMessageSent(NOTIFICATION_BOT, {
    recipient: { type: 'direct', users: [user, bot] },
    content: cmd.content,
    rendered_content: cmd.rendered_content,
    recipient_id: cmd.recipient_id,
    // The user alone: the bot keeps no history.
    recipient_user_ids: [cmd.user.id],
    mentioned_user_ids: [],
    now: cmd.now,
  });
}

/** The recipient-id key of the notification bot's conversation with a user. */
export const notificationKey = (userId: number) => `direct:${userId},${NOTIFICATION_BOT.user_id}`;
