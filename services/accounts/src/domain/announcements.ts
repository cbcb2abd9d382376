/**
 * The organization's new-channel announcements channel (Zulip's
 * new_stream_announcements_stream). Only trusted internal callers set it so far; the
 * channel's existence is theirs to know (channels owns channels).
 */
import { badRequest, type FactOf } from '@teamchat/contracts';
import type { OrganizationState } from './organization';

export function decideAnnouncementsChannel(state: OrganizationState, channelId: number | null): FactOf<'NewChannelAnnouncementsChannelChanged'>[] {
  if (!state.exists) throw badRequest('No organization');
  return [{ type: 'NewChannelAnnouncementsChannelChanged', channel_id: channelId }];
}
