/**
 * The new-channel announcement: what the notification bot posts in the organization's
 * announcements channel when a channel is created with `announce` (Zulip announces public
 * and web-public channels only). Pure: the channels, the creator, the rendering, the
 * recipient id and the clock come from the caller. No permission applies: the server posts
 * it itself, as Zulip's internal sends do.
 */
import { NEW_CHANNELS_TOPIC, NOTIFICATION_BOT, type FactOf } from '@teamchat/contracts';
import { systemBotMessageSent } from './system-bot-message';

export interface AnnouncedChannel {
  channel_id: number;
  name: string;
  description: string;
  invite_only: boolean;
  is_archived: boolean;
}

export interface AnnouncementsTarget {
  channel_id: number;
  name: string;
  is_archived: boolean;
  subscriber_ids: number[];
}

/** Whether a new channel is announced, and where: nowhere for private channels, a missing or archived announcements channel. */
export function announcementTarget(channel: AnnouncedChannel | undefined, target: AnnouncementsTarget | undefined): AnnouncementsTarget | null {
  if (!channel || channel.invite_only || channel.is_archived) return null;
  if (!target || target.is_archived) return null;
  return target;
}

/** The announcement's Markdown: a silent mention of the creator (no notification) and a link to the channel. */
export function announcementContent(channel: Pick<AnnouncedChannel, 'name' | 'description'>, creator: { user_id: number; full_name: string }): string {
  const text = `#**${channel.name}** is a new channel, created by @_**${creator.full_name}|${creator.user_id}**.`;
  return channel.description.trim() ? `${text}\n\n\`\`\`quote\n${channel.description}\n\`\`\`` : text;
}

export function decideAnnouncement(cmd: {
  target: AnnouncementsTarget;
  content: string;
  rendered_content: string;
  recipient_id: number;
  now: number;
}): FactOf<'MessageSent'> {
  return systemBotMessageSent(NOTIFICATION_BOT, {
    recipient: { type: 'channel', channel_id: cmd.target.channel_id, channel_name: cmd.target.name, topic: NEW_CHANNELS_TOPIC },
    content: cmd.content,
    rendered_content: cmd.rendered_content,
    recipient_id: cmd.recipient_id,
    // The channel's subscribers; the bot has no history of its own.
    recipient_user_ids: [...new Set(cmd.target.subscriber_ids)].sort((a, b) => a - b),
    mentioned_user_ids: [],
    now: cmd.now,
  });
}
