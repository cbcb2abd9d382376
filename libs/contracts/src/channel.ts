/**
 * Channels as every service sees them: Zulip's defaults for the channel-level
 * group-settings, a channel as its creation made it, and the channel objects of the
 * `stream` and `subscription` events.
 */
import { CHANNEL_GROUP_SETTINGS, type ChannelGroupSettingName, type ChannelGroupSettings } from './channel-settings';
import type { ChannelView, FactOf } from './facts';
import { SYSTEM_GROUP, type GroupSettingRules, type GroupSettingValue } from './groups';

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
    folder_id: fact.folder_id,
    ...groupSettingsOf(fact),
    is_archived: false,
  };
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
    folder_id: channel.folder_id ?? null,
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
 * subscriber's own settings (`settings`: those the subscriber changed, as stored; the
 * rest at their defaults).
 */
export function subscriptionApiObject(
  channel: ChannelView,
  extra: { first_message_id: number | null; subscriber_ids: number[]; settings?: Readonly<Record<string, boolean | string | null>> },
) {
  // Assigned rather than spread: V8 defines each member that follows a spread in an object
  // literal by a call into its runtime, and with the eleven here a record cost 30–40 µs
  // (8 ms of a registration listing 243 of them), where assigning costs well under one.
  return Object.assign(
    channelApiObject(channel, { first_message_id: extra.first_message_id, subscriber_count: extra.subscriber_ids.length }),
    { subscribers: extra.subscriber_ids },
    ownSettings(channel, extra.settings),
  );
}

/**
 * A subscription record without its `subscribers`, as POST /register and GET
 * /users/me/subscriptions give it when the list is not asked for (and add the list, whole
 * or in part, at the end when it is).
 */
export function subscriptionRecord(
  channel: ChannelView,
  extra: { first_message_id: number | null; subscriber_count: number; settings?: Readonly<Record<string, boolean | string | null>> },
) {
  return Object.assign(channelApiObject(channel, { first_message_id: extra.first_message_id, subscriber_count: extra.subscriber_count }), ownSettings(channel, extra.settings));
}

/** The subscriber's own settings in a subscription record: those they changed, the rest at their defaults. */
function ownSettings(channel: ChannelView, settings: Readonly<Record<string, boolean | string | null>> | undefined) {
  const own = settings ?? {};
  const isMuted = typeof own.is_muted === 'boolean' ? own.is_muted : false;
  const flag = (name: string) => (typeof own[name] === 'boolean' ? (own[name] as boolean) : null);
  return {
    color: typeof own.color === 'string' ? own.color : CHANNEL_COLORS[channel.channel_id % CHANNEL_COLORS.length]!,
    is_muted: isMuted,
    in_home_view: !isMuted,
    pin_to_top: own.pin_to_top === true,
    desktop_notifications: flag('desktop_notifications'),
    email_notifications: flag('email_notifications'),
    wildcard_mentions_notify: flag('wildcard_mentions_notify'),
    push_notifications: flag('push_notifications'),
    audible_notifications: flag('audible_notifications'),
  };
}
