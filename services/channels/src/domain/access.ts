/**
 * Who may see and administer a channel (Zulip's metadata access, content access and
 * channel administration), and so who must hear of changes to it. Pure: the users, the
 * subscribers and the clock come from the caller.
 */
import { hasChannelPermission, ROLE, type ChannelView, type GroupMember } from '@teamchat/contracts';
import { isAdministrator } from './policies';

/**
 * Content access (reading and joining): subscribers, and non-guests for public channels
 * or when the channel's can_add_subscribers_group names them (Zulip's
 * `user_has_content_access`; can_subscribe_group is not configurable here).
 */
export function hasContentAccess(channel: ChannelView, user: GroupMember, subscribed: boolean, nowSeconds: number): boolean {
  if (channel.is_web_public || subscribed) return true;
  if (user.role === ROLE.guest) return false;
  if (!channel.invite_only) return true;
  return hasChannelPermission(channel, 'can_add_subscribers_group', user, nowSeconds);
}

/** Organization administrators administer every channel; others need can_administer_channel_group. */
export function canAdministerChannel(channel: ChannelView, user: GroupMember, nowSeconds: number): boolean {
  return isAdministrator(user.role) || hasChannelPermission(channel, 'can_administer_channel_group', user, nowSeconds);
}

/**
 * Everyone who may see the channel's metadata, and so receives its events (Zulip's
 * `can_access_stream_metadata_user_ids`): for a public channel every non-guest and the
 * subscribed guests; for a private one its subscribers, the administrators, and whoever
 * its administering or subscriber-adding groups name.
 */
export function metadataAudience(channel: ChannelView, users: GroupMember[], subscribers: ReadonlySet<number>, nowSeconds: number): number[] {
  return users
    .filter((user) => {
      if (subscribers.has(user.user_id)) return true;
      if (!channel.invite_only) return user.role !== ROLE.guest;
      return (
        isAdministrator(user.role) ||
        hasChannelPermission(channel, 'can_administer_channel_group', user, nowSeconds) ||
        hasChannelPermission(channel, 'can_add_subscribers_group', user, nowSeconds)
      );
    })
    .map((user) => user.user_id)
    .sort((a, b) => a - b);
}
