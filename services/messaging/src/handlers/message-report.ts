/**
 * POST /messages/{message_id}/report: checks the request, finds the message through the
 * access rule every message endpoint applies (a message the reporter cannot see answers as
 * a missing one), renders the report and appends the notification bot's message as its
 * own stream, as any message. Nothing is stored until every check has passed.
 */
import { NOTIFICATION_BOT, streams, type Actor } from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import { newId, type AggregateRepository } from '@teamchat/platform';
import type { MessageState } from '../domain/message-changes';
import { checkReportable, checkReportRequest, decideReport, reportContent, type ModerationChannel } from '../domain/message-report';
import { accessibleMessage, type AccessDeps } from '../queries/access';
import type { Renderer } from './rendering';

export interface ReportDeps extends AccessDeps {
  directory: Directory;
  messages: AggregateRepository<MessageState>;
  renderer: Renderer;
  recipientIdFor: (key: string) => Promise<number>;
  /** The organization setting (-1: none), from messaging's own projection of the settings. */
  moderationChannelId: () => Promise<number>;
  realmUri: string;
}

async function moderationChannel(deps: ReportDeps): Promise<ModerationChannel | undefined> {
  const id = await deps.moderationChannelId();
  const doc = id < 0 ? undefined : await deps.directory.channelById(id);
  if (!doc) return undefined;
  return {
    channel_id: doc._id,
    name: doc.name,
    is_archived: doc.is_archived,
    empty_topic_only: doc.topics_policy === 'empty_topic_only',
    subscriber_ids: await deps.directory.subscriberIds(doc._id),
  };
}

export async function reportMessage(
  deps: ReportDeps,
  actor: Actor,
  params: { message_id: number; report_type: string; description?: string | undefined },
): Promise<{ position: number }> {
  const request = { report_type: params.report_type, description: params.description ?? '' };
  const channel = await moderationChannel(deps);
  const reporterDoc = await deps.directory.userById(actor.user_id);
  const reporter = { user_id: actor.user_id, full_name: reporterDoc?.full_name ?? '' };
  checkReportRequest({ ...request, reporter }, channel);
  const { message } = await accessibleMessage(deps, actor, params.message_id);
  const reported = {
    id: message._id,
    sender_id: message.sender_id,
    sender_full_name: message.sender_full_name,
    recipient: message.recipient,
    content: message.content,
    timestamp: message.timestamp,
  };
  // Refused before rendering or allocating a recipient id, so that a refusal leaves no trace.
  checkReportable(actor.user_id, reported);
  const content = reportContent(reported, { ...request, reporter }, deps.realmUri);
  const rendered = await deps.renderer.render(content, { sender_id: NOTIFICATION_BOT.user_id, recipient_user_ids: channel.subscriber_ids, topic_participant_ids: [] });
  const fact = decideReport({
    reporter,
    message: reported,
    channel,
    content,
    rendered_content: rendered.html,
    recipient_id: await deps.recipientIdFor(`channel:${channel.channel_id}`),
    now: Date.now(),
  });
  const { positions } = await deps.messages.create(streams.message(newId()), [fact]);
  return { position: positions[0]! };
}
