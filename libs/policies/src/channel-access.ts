/**
 * Who may see, subscribe to and administer a channel (Zulip's metadata access, content
 * access and channel administration), and so who must hear of changes to it. Pure: the
 * users, the subscribers and the clock come from the caller.
 */
import {
  CHANNEL_GROUP_SETTING_RULES,
  groupSettingsOf,
  type ChannelGroupSettingName,
  type ChannelGroupSettings,
  type ChannelView,
  type GroupMember,
} from '@teamchat/contracts';
import { isUserInGroupSetting } from './group-settings';
import { ORGANIZATION_POLICY, type OrganizationPolicy } from './organization-policy';
import { isAdministrator, isGuest } from './roles';

/**
 * Whether the user holds a channel permission. Settings that may not be granted to
 * role:everyone never reach guests, whatever group they name (as Zulip's
 * `user_has_permission_for_group_setting`).
 */
export function hasChannelPermission(
  channel: Partial<ChannelGroupSettings> & { creator_id: number | null },
  setting: ChannelGroupSettingName,
  user: GroupMember,
  nowSeconds: number,
): boolean {
  if (!CHANNEL_GROUP_SETTING_RULES[setting].allowEveryone && isGuest(user.role)) return false;
  const value = channel[setting] ?? groupSettingsOf(channel)[setting];
  return isUserInGroupSetting(value, user, nowSeconds);
}

/**
 * Content access (reading and joining): subscribers, and non-guests for public channels
 * or when the channel's can_add_subscribers_group names them (Zulip's
 * `user_has_content_access`; can_subscribe_group is not configurable here).
 */
export function hasContentAccess(channel: ChannelView, user: GroupMember, subscribed: boolean, nowSeconds: number): boolean {
  if (channel.is_web_public || subscribed) return true;
  if (isGuest(user.role)) return false;
  if (!channel.invite_only) return true;
  return hasChannelPermission(channel, 'can_add_subscribers_group', user, nowSeconds);
}

/** Organization administrators administer every channel; others need can_administer_channel_group. */
export function canAdministerChannel(channel: ChannelView, user: GroupMember, nowSeconds: number): boolean {
  return isAdministrator(user.role) || hasChannelPermission(channel, 'can_administer_channel_group', user, nowSeconds);
}

/**
 * Subscribing others needs the organization's or the channel's can_add_subscribers_group,
 * or administering the channel (Zulip's `get_streams_to_which_user_cannot_add_subscribers`).
 */
export function canAddSubscribers(
  channel: ChannelView,
  actor: GroupMember,
  nowSeconds: number,
  policy: OrganizationPolicy = ORGANIZATION_POLICY,
): boolean {
  return (
    isUserInGroupSetting(policy.canAddSubscribersGroup, actor, nowSeconds) ||
    canAdministerChannel(channel, actor, nowSeconds) ||
    hasChannelPermission(channel, 'can_add_subscribers_group', actor, nowSeconds)
  );
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
      if (!channel.invite_only) return !isGuest(user.role);
      return (
        isAdministrator(user.role) ||
        hasChannelPermission(channel, 'can_administer_channel_group', user, nowSeconds) ||
        hasChannelPermission(channel, 'can_add_subscribers_group', user, nowSeconds)
      );
    })
    .map((user) => user.user_id)
    .sort((a, b) => a - b);
}
