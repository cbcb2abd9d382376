/**
 * Who may see, subscribe to, administer, read and post in a channel (Zulip's metadata
 * access, content access and channel administration), and so who must hear of changes to
 * it. Pure: the users, the subscribers and the clock come from the caller.
 */
import {
  CHANNEL_GROUP_SETTING_RULES,
  groupSettingsOf,
  type ChannelGroupSettingName,
  type ChannelGroupSettings,
  type ChannelView,
  type GroupMember,
} from '@teamchat/contracts';
import { isUserInGroupSetting, type GroupDirectory } from './group-settings';
import { ORGANIZATION_POLICY, type OrganizationPolicy } from './organization-policy';
import { isAdministrator, isGuest } from './roles';

/**
 * Whether the user holds a channel permission. Settings that may not be granted to
 * role:everyone never reach guests, whatever group they name (as Zulip's
 * `user_has_permission_for_group_setting`). Custom groups resolve through `groups`, the
 * caller's projection of them, so that a membership change takes effect at once.
 */
export function hasChannelPermission(
  channel: Partial<ChannelGroupSettings> & { creator_id: number | null },
  setting: ChannelGroupSettingName,
  user: GroupMember,
  nowSeconds: number,
  groups: GroupDirectory,
): boolean {
  if (!CHANNEL_GROUP_SETTING_RULES[setting].allowEveryone && isGuest(user.role)) return false;
  const value = channel[setting] ?? groupSettingsOf(channel)[setting];
  return isUserInGroupSetting(value, user, nowSeconds, groups);
}

/**
 * Content access (reading and joining): subscribers, and non-guests for public channels
 * or when the channel's can_add_subscribers_group names them (Zulip's
 * `user_has_content_access`; can_subscribe_group is not configurable here).
 */
export function hasContentAccess(channel: ChannelView, user: GroupMember, subscribed: boolean, nowSeconds: number, groups: GroupDirectory): boolean {
  if (channel.is_web_public || subscribed) return true;
  if (isGuest(user.role)) return false;
  if (!channel.invite_only) return true;
  return hasChannelPermission(channel, 'can_add_subscribers_group', user, nowSeconds, groups);
}

/** Organization administrators administer every channel; others need can_administer_channel_group. */
export function canAdministerChannel(channel: ChannelView, user: GroupMember, nowSeconds: number, groups: GroupDirectory): boolean {
  return isAdministrator(user.role) || hasChannelPermission(channel, 'can_administer_channel_group', user, nowSeconds, groups);
}

/**
 * Subscribing others needs the organization's or the channel's can_add_subscribers_group,
 * or administering the channel (Zulip's `get_streams_to_which_user_cannot_add_subscribers`).
 */
export function canAddSubscribers(
  channel: ChannelView,
  actor: GroupMember,
  nowSeconds: number,
  groups: GroupDirectory,
  policy: OrganizationPolicy = ORGANIZATION_POLICY,
): boolean {
  return (
    isUserInGroupSetting(policy.canAddSubscribersGroup, actor, nowSeconds, groups) ||
    canAdministerChannel(channel, actor, nowSeconds, groups) ||
    hasChannelPermission(channel, 'can_add_subscribers_group', actor, nowSeconds, groups)
  );
}

/**
 * Everyone who may see the channel's metadata, and so receives its events (Zulip's
 * `can_access_stream_metadata_user_ids`): for a public channel every non-guest and the
 * subscribed guests; for a private one its subscribers, the administrators, and whoever
 * its administering or subscriber-adding groups name.
 */
export function metadataAudience(
  channel: ChannelView,
  users: GroupMember[],
  subscribers: ReadonlySet<number>,
  nowSeconds: number,
  groups: GroupDirectory,
): number[] {
  return users
    .filter((user) => hasMetadataAccess(channel, user, subscribers.has(user.user_id), nowSeconds, groups))
    .map((user) => user.user_id)
    .sort((a, b) => a - b);
}

/**
 * Whether one user may see the channel's metadata (name, settings, subscribers): the rule
 * of `metadataAudience`, for one user, so that what a user is told of and what their
 * lists hold are the same channels. Web-public channels are visible to all.
 */
export function hasMetadataAccess(channel: ChannelView, user: GroupMember, subscribed: boolean, nowSeconds: number, groups: GroupDirectory): boolean {
  if (subscribed || channel.is_web_public) return true;
  if (!channel.invite_only) return !isGuest(user.role);
  return (
    isAdministrator(user.role) ||
    hasChannelPermission(channel, 'can_administer_channel_group', user, nowSeconds, groups) ||
    hasChannelPermission(channel, 'can_add_subscribers_group', user, nowSeconds, groups)
  );
}

// Messages in a channel, as messaging asks: one function answers every question it puts.
// The questions differ on purpose (each matches what Zulip answers at that place), so each
// caller picks the answer to its own question rather than a shared "may see".

/** What the rules read of a channel. */
export interface ChannelAccessView {
  invite_only: boolean;
  history_public_to_subscribers: boolean;
}

/** The actor as the rules see them, with respect to this channel. */
export interface ChannelAccessActor {
  role: number;
  subscribed: boolean;
}

export interface ChannelAccess {
  /**
   * The channel may be named and known to exist (a narrow's channel operator, a `with:`
   * link's conversation, marking a topic as read): any public channel, guests included,
   * and private ones the actor is subscribed to. Otherwise it reads as unknown.
   */
  seeMetadata: boolean;
  /**
   * Its messages may be read from channel history, not only those the actor received:
   * only where history is shared with subscribers, and then for subscribers, or for
   * anyone but guests in a public channel.
   */
  readHistory: boolean;
  /**
   * Messages may be moved into it (before the channel's own posting permission is
   * checked): subscribers, or anyone but guests in a public channel; history sharing
   * does not matter.
   */
  postOrMoveInto: boolean;
  /** The actor may set topic visibility policies in it: subscribers, or whoever may read its history. */
  setTopicVisibility: boolean;
}

const NONE: ChannelAccess = { seeMetadata: false, readHistory: false, postOrMoveInto: false, setTopicVisibility: false };

/** A channel that does not exist answers no to everything. */
export function channelAccess(channel: ChannelAccessView | undefined, actor: ChannelAccessActor): ChannelAccess {
  if (!channel) return NONE;
  const { subscribed } = actor;
  const publicToMembers = !channel.invite_only && !isGuest(actor.role);
  const readHistory = channel.history_public_to_subscribers && (subscribed || publicToMembers);
  return {
    seeMetadata: !channel.invite_only || subscribed,
    readHistory,
    postOrMoveInto: subscribed || publicToMembers,
    setTopicVisibility: subscribed || readHistory,
  };
}
