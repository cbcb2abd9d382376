/**
 * The internal `messaging.announce_new_channel` command: channels asks for it after
 * creating a channel with `announce`. Looks up the channel, its creator and the
 * organization's announcements channel in messaging's own projections, renders, and
 * appends the notification bot's message as its own stream, as any message.
 */
import { NOTIFICATION_BOT, streams } from '@teamchat/contracts';
import type { AnnouncementsChannel, Directory } from '@teamchat/directory';
import { newId, type AggregateRepository } from '@teamchat/platform';
import { announcementContent, announcementTarget, decideAnnouncement } from '../domain/announcement';
import type { MessageState } from '../domain/message-changes';
import type { Renderer } from './rendering';

export interface AnnounceDeps {
  directory: Directory;
  announcements: Pick<AnnouncementsChannel, 'channelId'>;
  messages: AggregateRepository<MessageState>;
  renderer: Renderer;
  recipientIdFor: (key: string) => Promise<number>;
}

export async function announceNewChannel(deps: AnnounceDeps, params: { channel_id: number; creator_id: number }): Promise<{ message_id: number | null; position?: number }> {
  const { directory } = deps;
  const [channel, creator, targetId] = await Promise.all([directory.channelById(params.channel_id), directory.userById(params.creator_id), deps.announcements.channelId()]);
  const targetDoc = targetId === null ? undefined : await directory.channelById(targetId);
  const target = announcementTarget(
    channel && { channel_id: channel._id, name: channel.name, description: channel.description, invite_only: channel.invite_only, is_archived: channel.is_archived },
    targetDoc && { channel_id: targetDoc._id, name: targetDoc.name, is_archived: targetDoc.is_archived, subscriber_ids: await directory.subscriberIds(targetDoc._id) },
  );
  if (!channel || !creator || !target) return { message_id: null };
  const content = announcementContent(channel, { user_id: creator._id, full_name: creator.full_name });
  const rendered = await deps.renderer.render(content, { sender_id: NOTIFICATION_BOT.user_id, recipient_user_ids: target.subscriber_ids, topic_participant_ids: [] });
  const fact = decideAnnouncement({
    target,
    content,
    rendered_content: rendered.html,
    recipient_id: await deps.recipientIdFor(`channel:${target.channel_id}`),
    now: Date.now(),
  });
  const { positions } = await deps.messages.create(streams.message(newId()), [fact]);
  return { message_id: positions[0]!, position: positions[0]! };
}
