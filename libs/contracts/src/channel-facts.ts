/**
 * Facts of channels' streams: channels (created, changed, archived, who may see them),
 * subscriptions and their personal settings, and channel folders. Each carries who is told.
 */
import { z } from 'zod';
import { CHANNEL_GROUP_SETTINGS, TOPICS_POLICIES } from './channel-settings';
import { GroupSettingValue } from './groups';

const int = () => z.number().int();

type GroupSettingsShape = Record<(typeof CHANNEL_GROUP_SETTINGS)[number], typeof GroupSettingValue>;
const groupSettingsShape = Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((name) => [name, GroupSettingValue])) as GroupSettingsShape;

/** Who sees a `default_streams` event, and the default channels after the change. */
const DefaultChannels = z.object({ channel_ids: z.array(int()), user_ids: z.array(int()) });

export const ChannelCreated = z.object({
  type: z.literal('ChannelCreated'),
  channel_id: int(),
  name: z.string(),
  description: z.string(),
  rendered_description: z.string(),
  invite_only: z.boolean(),
  is_web_public: z.boolean(),
  history_public_to_subscribers: z.boolean(),
  is_default: z.boolean(),
  topics_policy: z.enum(TOPICS_POLICIES),
  message_retention_days: int().nullable(),
  creator_id: int().nullable(),
  /** Seconds since the epoch. */
  date_created: z.number(),
  /** The channel folder it is in (facts before folders existed: none, see upcast). */
  folder_id: int().nullable(),
  ...groupSettingsShape,
  /** Who may see the new channel: they get the `stream` create event. */
  audience_user_ids: z.array(int()),
  default_channels: DefaultChannels.optional(),
});

/** A channel's settings as they stand, carried by facts whose events describe the channel. */
export const ChannelSnapshot = ChannelCreated.omit({ type: true, audience_user_ids: true, default_channels: true }).extend({
  ...groupSettingsShape,
  is_archived: z.boolean(),
});
export type ChannelView = z.infer<typeof ChannelSnapshot>;

/** What the users who just gained sight of a channel need to show it. */
const ChannelShown = z.object({
  user_ids: z.array(int()),
  channel: ChannelSnapshot,
  subscriber_ids: z.array(int()),
  first_message_id: int().nullable(),
});

/**
 * One changed property, named as the `stream` update event names it; being a default
 * channel (`is_default`) is announced as the list of default channels instead.
 */
const ChannelChange = z.discriminatedUnion('property', [
  z.object({ property: z.literal('name'), value: z.string() }),
  z.object({ property: z.literal('description'), value: z.string(), rendered_description: z.string() }),
  /** Privacy changes as one, as Zulip's permission change does. */
  z.object({
    property: z.literal('invite_only'),
    value: z.boolean(),
    history_public_to_subscribers: z.boolean(),
    is_web_public: z.boolean(),
  }),
  z.object({ property: z.literal('is_default'), value: z.boolean() }),
  z.object({ property: z.literal('message_retention_days'), value: int().nullable() }),
  z.object({ property: z.literal('topics_policy'), value: z.enum(TOPICS_POLICIES) }),
  z.object({ property: z.literal('folder_id'), value: int().nullable() }),
  z.object({ property: z.enum(CHANNEL_GROUP_SETTINGS), value: GroupSettingValue }),
]);
export type ChannelChange = z.infer<typeof ChannelChange>;

export const ChannelUpdated = z.object({
  type: z.literal('ChannelUpdated'),
  channel_id: int(),
  /** The name before the change (the `name` of the `stream` update event). */
  name: z.string(),
  change: ChannelChange,
  /** Who saw the channel before and still does: they get the update. */
  audience_user_ids: z.array(int()),
  /** Who may see the channel only now: they get it whole. */
  shown: ChannelShown.optional(),
  /** Who may no longer see the channel. */
  hidden_user_ids: z.array(int()).optional(),
  default_channels: DefaultChannels.optional(),
});

export const ChannelArchived = z.object({
  type: z.literal('ChannelArchived'),
  channel_id: int(),
  name: z.string(),
  audience_user_ids: z.array(int()),
  /** Present when the channel was a default channel, which archiving ends. */
  default_channels: DefaultChannels.optional(),
});

export const ChannelUnarchived = z.object({
  type: z.literal('ChannelUnarchived'),
  channel_id: int(),
  name: z.string(),
  audience_user_ids: z.array(int()),
  channel: ChannelSnapshot,
  subscriber_ids: z.array(int()),
  first_message_id: int().nullable(),
});

/**
 * A user group named in a private channel's can_administer_channel_group or
 * can_add_subscribers_group gained or lost members (directly or through subgroups), and so
 * who may see the channel changed, as Zulip announces it: the channel whole to those who
 * see it only now, its removal to those who no longer do.
 */
export const ChannelAccessChanged = z.object({
  type: z.literal('ChannelAccessChanged'),
  channel_id: int(),
  name: z.string(),
  /** The user group whose membership changed; absent when a user's role changed. */
  group_id: int().optional(),
  /** The user whose role changed (administrators see every private channel). */
  role_user_id: int().optional(),
  shown: ChannelShown.optional(),
  hidden_user_ids: z.array(int()).optional(),
});

export const SubscriptionsAdded = z.object({
  type: z.literal('SubscriptionsAdded'),
  channel_id: int(),
  user_ids: z.array(int()),
  // What the events need; absent from facts stored before they were recorded.
  channel: ChannelSnapshot.optional(),
  first_message_id: int().nullable().optional(),
  /** Every subscriber after the change. */
  subscriber_ids: z.array(int()).optional(),
  /** New subscribers who could not see the channel before: they get it first. */
  shown_user_ids: z.array(int()).optional(),
  /** Who else sees the channel's subscribers: they get `peer_add`. */
  peer_user_ids: z.array(int()).optional(),
  /** Re-subscribed users' own settings kept from before (by user id), for their `add` event. */
  properties: z.record(z.string(), z.record(z.string(), z.union([z.boolean(), z.string(), z.null()]))).optional(),
});

export const SubscriptionsRemoved = z.object({
  type: z.literal('SubscriptionsRemoved'),
  channel_id: int(),
  user_ids: z.array(int()),
  // What the events need; absent from facts stored before they were recorded.
  /** The channel's name, for the `subscription` remove event. */
  name: z.string().optional(),
  /** Who else sees the channel's subscribers: they get `peer_remove`. */
  peer_user_ids: z.array(int()).optional(),
  /** Removed users who can no longer see the channel at all (a private one): they get `stream` delete. */
  hidden_user_ids: z.array(int()).optional(),
});

/** The subscriber settings a user keeps per channel, as Zulip stores them (in_home_view is the inverse of is_muted). */
export const SUBSCRIPTION_SETTINGS = [
  'color',
  'is_muted',
  'pin_to_top',
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;

export const SubscriptionPropertyUpdated = z.object({
  type: z.literal('SubscriptionPropertyUpdated'),
  channel_id: int(),
  user_id: int(),
  property: z.enum(SUBSCRIPTION_SETTINGS),
  value: z.union([z.boolean(), z.string(), z.null()]),
});

export const ChannelFolderCreated = z.object({
  type: z.literal('ChannelFolderCreated'),
  folder_id: int(),
  name: z.string(),
  description: z.string(),
  rendered_description: z.string(),
  order: int(),
  creator_id: int().nullable(),
  /** Seconds since the epoch. */
  date_created: int(),
  /** Every active user: folders are organization-wide. */
  audience_user_ids: z.array(int()),
});

export const ChannelFolderUpdated = z.object({
  type: z.literal('ChannelFolderUpdated'),
  folder_id: int(),
  name: z.string().optional(),
  description: z.string().optional(),
  rendered_description: z.string().optional(),
  is_archived: z.boolean().optional(),
  audience_user_ids: z.array(int()),
});

/** Every folder's new place: `order[i]` is the id of the folder whose `order` becomes i. */
export const ChannelFoldersReordered = z.object({
  type: z.literal('ChannelFoldersReordered'),
  order: z.array(int()),
  audience_user_ids: z.array(int()),
});

export const CHANNEL_FACTS = [
  ChannelCreated,
  ChannelUpdated,
  ChannelArchived,
  ChannelUnarchived,
  ChannelAccessChanged,
  SubscriptionsAdded,
  SubscriptionsRemoved,
  SubscriptionPropertyUpdated,
  ChannelFolderCreated,
  ChannelFolderUpdated,
  ChannelFoldersReordered,
] as const;
