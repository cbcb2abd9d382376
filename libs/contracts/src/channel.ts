/**
 * Channels as every service sees them: the channel-level group-settings with Zulip's
 * defaults, how facts change a channel, who holds a channel permission, and the channel
 * objects of the `stream` and `subscription` events.
 */
import type { ChannelView, Fact, FactOf } from './facts';
import { isUserInGroupSetting, SYSTEM_GROUP, type GroupMember, type GroupSettingRules, type GroupSettingValue } from './groups';
import { ROLE } from './limits';

export const TOPICS_POLICIES = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'] as const;
export type TopicsPolicy = (typeof TOPICS_POLICIES)[number];

export const CHANNEL_GROUP_SETTINGS = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_send_message_group',
] as const;
export type ChannelGroupSettingName = (typeof CHANNEL_GROUP_SETTINGS)[number];
export type ChannelGroupSettings = Record<ChannelGroupSettingName, GroupSettingValue>;

/**
 * Zulip's defaults and rules for each setting, from `Stream.stream_permission_group_settings`
 * (zerver/models/streams.py): `creator` is Zulip's "channel_creator" default, an anonymous
 * group holding only the user who created the channel (role:nobody when none did).
 */
export const CHANNEL_GROUP_SETTING_RULES: Readonly<
  Record<ChannelGroupSettingName, GroupSettingRules & { default: number | 'creator' }>
> = {
  can_add_subscribers_group: { default: SYSTEM_GROUP.nobody, allowEveryone: false },
  can_remove_subscribers_group: { default: SYSTEM_GROUP.administrators, allowEveryone: true },
  can_administer_channel_group: { default: 'creator', allowEveryone: false },
  can_delete_any_message_group: { default: SYSTEM_GROUP.nobody, allowEveryone: true },
  can_delete_own_message_group: { default: SYSTEM_GROUP.nobody, allowEveryone: true },
  can_move_messages_out_of_channel_group: { default: SYSTEM_GROUP.nobody, allowEveryone: true },
  can_move_messages_within_channel_group: { default: SYSTEM_GROUP.nobody, allowEveryone: true },
  can_send_message_group: { default: SYSTEM_GROUP.everyone, allowEveryone: true },
};

export function defaultChannelGroupSettings(creatorId: number | null): ChannelGroupSettings {
  const settings = {} as ChannelGroupSettings;
  for (const name of CHANNEL_GROUP_SETTINGS) {
    const { default: value } = CHANNEL_GROUP_SETTING_RULES[name];
    settings[name] =
      value !== 'creator' ? value : creatorId === null ? SYSTEM_GROUP.nobody : { direct_members: [creatorId], direct_subgroups: [] };
  }
  return settings;
}

/** The group-settings a channel holds, the defaults filling any it never recorded. */
export function groupSettingsOf(channel: Partial<ChannelGroupSettings> & { creator_id: number | null }): ChannelGroupSettings {
  const settings = defaultChannelGroupSettings(channel.creator_id);
  for (const name of CHANNEL_GROUP_SETTINGS) {
    const value = channel[name];
    if (value !== undefined) settings[name] = value;
  }
  return settings;
}

export function channelFromCreated(fact: FactOf<'ChannelCreated'>): ChannelView {
  return {
    channel_id: fact.channel_id,
    name: fact.name,
    description: fact.description,
    rendered_description: fact.rendered_description,
    invite_only: fact.invite_only,
    is_web_public: fact.is_web_public,
    history_public_to_subscribers: fact.history_public_to_subscribers,
    is_default: fact.is_default,
    topics_policy: fact.topics_policy,
    message_retention_days: fact.message_retention_days,
    creator_id: fact.creator_id,
    date_created: fact.date_created,
    ...groupSettingsOf(fact),
    is_archived: false,
  };
}

/** How a fact changes a channel: the one evolution the registry and the directory share. */
export function evolveChannelView(channel: ChannelView, fact: Fact): ChannelView {
  switch (fact.type) {
    case 'ChannelUpdated': {
      const change = fact.change;
      switch (change.property) {
        case 'name':
          return { ...channel, name: change.value };
        case 'description':
          return { ...channel, description: change.value, rendered_description: change.rendered_description };
        case 'invite_only':
          return {
            ...channel,
            invite_only: change.value,
            history_public_to_subscribers: change.history_public_to_subscribers,
            is_web_public: change.is_web_public,
          };
        case 'is_default':
          return { ...channel, is_default: change.value };
        case 'message_retention_days':
          return { ...channel, message_retention_days: change.value };
        case 'topics_policy':
          return { ...channel, topics_policy: change.value };
        default:
          return { ...channel, [change.property]: change.value };
      }
    }
    case 'ChannelArchived':
      // Zulip removes an archived channel from the default channels.
      return { ...channel, is_archived: true, is_default: false };
    case 'ChannelUnarchived':
      return { ...channel, is_archived: false };
    default:
      return channel;
  }
}

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
  if (!CHANNEL_GROUP_SETTING_RULES[setting].allowEveryone && user.role === ROLE.guest) return false;
  const value = channel[setting] ?? groupSettingsOf(channel)[setting];
  return isUserInGroupSetting(value, user, nowSeconds);
}

/** The legacy `stream_post_policy` that matches a posting group (Zulip's mapping). */
function streamPostPolicy(group: GroupSettingValue): number {
  switch (group) {
    case SYSTEM_GROUP.administrators:
      return 2;
    case SYSTEM_GROUP.fullmembers:
      return 3;
    case SYSTEM_GROUP.moderators:
      return 4;
    default:
      return 1;
  }
}

const asApiValue = (value: GroupSettingValue) =>
  typeof value === 'number' ? value : { direct_members: value.direct_members, direct_subgroups: value.direct_subgroups };

/** The channel object of `stream` events (Zulip's `stream_to_dict`). */
export function channelApiObject(channel: ChannelView, extra: { first_message_id: number | null; subscriber_count: number }) {
  const postPolicy = streamPostPolicy(channel.can_send_message_group);
  return {
    stream_id: channel.channel_id,
    name: channel.name,
    description: channel.description,
    rendered_description: channel.rendered_description,
    date_created: channel.date_created,
    creator_id: channel.creator_id,
    invite_only: channel.invite_only,
    is_web_public: channel.is_web_public,
    history_public_to_subscribers: channel.history_public_to_subscribers,
    message_retention_days: channel.message_retention_days,
    topics_policy: channel.topics_policy,
    is_archived: channel.is_archived,
    first_message_id: extra.first_message_id,
    folder_id: null,
    is_recently_active: true,
    subscriber_count: extra.subscriber_count,
    stream_weekly_traffic: null,
    stream_post_policy: postPolicy,
    is_announcement_only: postPolicy === 2,
    can_add_subscribers_group: asApiValue(channel.can_add_subscribers_group),
    can_remove_subscribers_group: asApiValue(channel.can_remove_subscribers_group),
    can_administer_channel_group: asApiValue(channel.can_administer_channel_group),
    can_delete_any_message_group: asApiValue(channel.can_delete_any_message_group),
    can_delete_own_message_group: asApiValue(channel.can_delete_own_message_group),
    can_move_messages_out_of_channel_group: asApiValue(channel.can_move_messages_out_of_channel_group),
    can_move_messages_within_channel_group: asApiValue(channel.can_move_messages_within_channel_group),
    can_send_message_group: asApiValue(channel.can_send_message_group),
    // Settings not configurable here, reported with the values that describe what the
    // server does: anyone may start topics, and only the organization-level settings
    // decide who resolves topics or joins private channels.
    can_create_topic_group: SYSTEM_GROUP.everyone,
    can_resolve_topics_group: SYSTEM_GROUP.nobody,
    can_subscribe_group: SYSTEM_GROUP.nobody,
  };
}

/** Zulip's palette for channel colors; a channel's color is picked from it by id. */
const CHANNEL_COLORS = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5',
  '#f5ce6e', '#c2726a', '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063',
  '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4', '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
];

/**
 * A subscription record (the Channel resource of the spec): the channel object plus the
 * subscriber's own settings, all at their defaults for a new subscription.
 */
export function subscriptionApiObject(channel: ChannelView, extra: { first_message_id: number | null; subscriber_ids: number[] }) {
  return {
    ...channelApiObject(channel, { first_message_id: extra.first_message_id, subscriber_count: extra.subscriber_ids.length }),
    subscribers: extra.subscriber_ids,
    color: CHANNEL_COLORS[channel.channel_id % CHANNEL_COLORS.length]!,
    is_muted: false,
    in_home_view: true,
    pin_to_top: false,
    desktop_notifications: null,
    email_notifications: null,
    wildcard_mentions_notify: null,
    push_notifications: null,
    audible_notifications: null,
  };
}
