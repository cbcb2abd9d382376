/**
 * Reporting a message (POST /messages/{message_id}/report): the notification bot posts the
 * report in the organization's moderation-request channel (the organization setting
 * `moderation_request_channel_id`), in the topic "<sender's name> moderation", quoting the
 * reported message with a link to it, as Zulip does. The report is that message: a
 * MessageSent fact like any other, so moderators read, answer and resolve it with the
 * tools they already have.
 *
 * Pure: the reported message (already checked to be visible to the reporter by the
 * caller, through the one access rule of queries/access.ts), the moderation channel, the
 * rendering, the recipient id and the clock come from the caller.
 */
import { badRequest, LIMITS, NOTIFICATION_BOT, type FactOf, type MessageView } from '@teamchat/contracts';
import { codePointLength } from '@teamchat/policies';
import { systemBotMessageSent } from './system-bot-message';

/** Zulip's report types and the reason each is shown as (Realm.REPORT_MESSAGE_REASONS). */
export const REPORT_TYPES = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate content',
  norms: 'Violates community norms',
  other: 'Other reason',
} as const;
export type ReportType = keyof typeof REPORT_TYPES;

/** Zulip's Realm.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH. */
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;

/**
 * How much of the reported message is quoted: the report must fit in one message with the
 * description and the surrounding text (Zulip leaves 500 characters for the latter).
 */
export const MAX_REPORT_SNIPPET_LENGTH = LIMITS.max_message_length - MAX_REPORT_DESCRIPTION_LENGTH - 500;

export const reportingDisabled = () => badRequest('Message reporting is not enabled in this organization.');

/** The moderation-request channel as messaging's directory knows it. */
export interface ModerationChannel {
  channel_id: number;
  name: string;
  is_archived: boolean;
  /** Zulip posts in the empty topic when the channel allows only that one. */
  empty_topic_only: boolean;
  subscriber_ids: number[];
}

export interface ReportRequest {
  reporter: { user_id: number; full_name: string };
  report_type: string;
  description: string;
}

/**
 * The checks that need no message: a known type, a description within bounds (required
 * for "other"), and somewhere to send the report. Run before the message is looked up, so
 * that a malformed request is refused the same way whatever the message id.
 */
export function checkReportRequest(request: ReportRequest, channel: ModerationChannel | undefined): asserts channel is ModerationChannel {
  if (!Object.hasOwn(REPORT_TYPES, request.report_type)) throw badRequest('Invalid report_type');
  if (codePointLength(request.description) > MAX_REPORT_DESCRIPTION_LENGTH) {
    throw badRequest(`description is too long (limit: ${MAX_REPORT_DESCRIPTION_LENGTH} characters)`);
  }
  if (request.report_type === 'other' && request.description.trim() === '') throw badRequest('An explanation is required.');
  // A setting naming a channel archived since then sends reports nowhere a moderator reads.
  if (!channel || channel.is_archived) throw reportingDisabled();
}

/** A message reported: what the report says of it. */
export type ReportedMessage = Pick<MessageView, 'id' | 'sender_id' | 'sender_full_name' | 'recipient' | 'content' | 'timestamp'>;

const silentMention = (user: { id: number; full_name: string }) => `@_**${user.full_name}|${user.id}**`;

/** A fence the quoted text cannot close: one backtick more than its longest run (at least three). */
export function unusedFence(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

function truncated(content: string): string {
  const chars = [...content];
  return chars.length <= MAX_REPORT_SNIPPET_LENGTH ? content : `${chars.slice(0, MAX_REPORT_SNIPPET_LENGTH).join('')}\n[message truncated]`;
}

/** Where the reported message is: a channel message link, or the direct conversation's URL near it. */
function originalLink(message: ReportedMessage, realmUri: string): string {
  const { recipient } = message;
  if (recipient.type === 'channel') return `#**${recipient.channel_name}>${recipient.topic}@${message.id}**`;
  const ids = recipient.users.map((u) => u.id).sort((a, b) => a - b);
  const suffix = ids.length > 2 ? 'group' : 'dm';
  return `[the original message](${realmUri}/#narrow/dm/${ids.join(',')}-${suffix}/near/${message.id})`;
}

/**
 * The report's Markdown: who reported whom (silent mentions: nobody is notified by name),
 * when the message was sent, the reason and description in a quote, and the message
 * itself in a collapsed spoiler headed by its link. For a direct message the other
 * participants are named, since the channel's readers cannot open the conversation.
 */
export function reportContent(message: ReportedMessage, request: ReportRequest, realmUri: string): string {
  const reporter = { id: request.reporter.user_id, full_name: request.reporter.full_name };
  const sender = { id: message.sender_id, full_name: message.sender_full_name };
  const sent = `<time:${new Date(message.timestamp * 1000).toISOString().replace('.000Z', 'Z')}>`;
  let header = `${silentMention(reporter)} reported this message from ${silentMention(sender)}, sent ${sent}`;
  if (message.recipient.type === 'direct') {
    const others = message.recipient.users.filter((u) => u.id !== message.sender_id);
    const to = others.length > 0 ? others : message.recipient.users;
    header += ` to ${to.map((u) => silentMention(u)).join(', ')}`;
  }
  const reason = REPORT_TYPES[request.report_type as ReportType];
  const quoted = truncated(message.content);
  const fence = unusedFence(quoted);
  const description = request.description.trim();
  return [
    `${header}.`,
    '```quote',
    `**${reason}**.${description ? ` ${description}` : ''}`,
    '```',
    '',
    `${fence} spoiler Reported message: ${originalLink(message, realmUri)}`,
    quoted,
    fence,
  ].join('\n');
}

/** Zulip's topic for reports about a sender, or the empty topic where the channel allows only that. */
export function reportTopic(message: ReportedMessage, channel: ModerationChannel): string {
  return channel.empty_topic_only ? '' : `${message.sender_full_name} moderation`;
}

export interface ReportMessage {
  /** The reporter, who can see the message (checked by the caller). */
  reporter: { user_id: number; full_name: string };
  message: ReportedMessage;
  channel: ModerationChannel;
  content: string;
  rendered_content: string;
  recipient_id: number;
  now: number;
}

/** One's own message is not reported: asked of this server (issue 37), where Zulip accepts it. */
export function checkReportable(reporterId: number, message: Pick<ReportedMessage, 'sender_id'>): void {
  if (message.sender_id === reporterId) throw badRequest('You cannot report your own message.');
}

/** The notification bot's report, or a refusal for one's own message. */
export function decideReport(cmd: ReportMessage): FactOf<'MessageSent'> {
  checkReportable(cmd.reporter.user_id, cmd.message);
  return systemBotMessageSent(NOTIFICATION_BOT, {
    recipient: { type: 'channel', channel_id: cmd.channel.channel_id, channel_name: cmd.channel.name, topic: reportTopic(cmd.message, cmd.channel) },
    content: cmd.content,
    rendered_content: cmd.rendered_content,
    recipient_id: cmd.recipient_id,
    // The channel's subscribers: the moderators who chose to follow it.
    recipient_user_ids: [...new Set(cmd.channel.subscriber_ids)].sort((a, b) => a - b),
    mentioned_user_ids: [],
    now: cmd.now,
  });
}
