/**
 * Domain facts: what the event store holds. Each service appends only the facts of its
 * own stream categories (see `streams`); every other service may subscribe to them.
 * Facts are named in the past tense and carry what the projections and the fan-out need,
 * including snapshots (e.g. the sender's name on a message) taken when the fact happened.
 */
import { z } from 'zod';
import { CHANNEL_GROUP_SETTINGS, TOPICS_POLICIES } from './channel-settings';
import { GroupSettingValue, USER_GROUP_SETTINGS } from './groups';
import { TOOLS_FACTS } from './tools-facts';
import { LINKIFIER_FACTS } from './linkifier-facts';
import { NAVIGATION_VIEW_FACTS } from './navigation-view-facts';
import { RealmUserSettingsDefaultChanged } from './realm-user-defaults';
import { UPLOAD_FACTS } from './upload-facts';
import { SETTINGS_FACTS } from './settings-facts';
import { INVITE_FACTS } from './invite-facts';
import { CustomProfileDataChanged, CustomProfileFieldsChanged, RealmSettingsChanged, UserStatusChanged } from './org-facts';
import { SCHEDULED_FACTS } from './scheduled-facts';
import { ORGANIZATION_STREAM_FACTS, PEOPLE_FACTS } from './people-facts';

// The facts of each domain live in a module of their own; this one assembles the union.
export * from './people-facts';

/** Stream names, by owning service. */
export const streams = {
  /** accounts: the organization and its user registry (unique emails, user ids). */
  organization: 'organization',
  /** channels: the channel registry (unique names, channel ids). */
  channelRegistry: 'channel_registry',
  /** channels: one stream per channel for its subscriptions and settings. */
  channel: (channelId: number) => `channel-${channelId}`,
  /** channels: the channel folders (ids, unique names, order). */
  channelFolders: 'channel_folders',
  /** messaging: one stream per message; the id of the message is the position of its first fact. */
  message: (uuid: string) => `message-${uuid}`,
  /** messaging: allocates one recipient id per channel and per set of direct-message participants. */
  messageRecipients: 'message-recipients',
  /** messaging: one user's personal message flags (read, starred, collapsed). */
  messageFlags: (userId: number) => `message_flags-${userId}`,
  /** messaging: one user's topic visibility policies. */
  userTopics: (userId: number) => `user_topics-${userId}`,
  /** accounts: every custom user group (unique names, group ids, subgroup cycles need one boundary). */
  userGroups: 'user_groups',
  /** accounts: one user's own data: settings, drafts, saved snippets, alert words. */
  userData: (userId: number) => `user_data-${userId}`,
  /** accounts: one bot's key-value storage. */
  botStorage: (userId: number) => `bot_storage-${userId}`,
  /** accounts: the organization's code playgrounds. */
  playgrounds: 'realm_playgrounds',
  /** accounts: the organization's linkifiers (ids, order). */
  linkifiers: 'realm_linkifiers',
  /** accounts: one user's navigation views. */
  navigationViews: (userId: number) => `navigation_views-${userId}`,
  /** accounts: the organization's defaults for new users' settings. */
  realmUserDefaults: 'realm_user_settings_defaults',
  /** messaging: the organization's uploaded files (ids, paths, space used). */
  attachments: 'attachments',
  /** accounts: the organization's custom emoji (ids, unique active names). */
  realmEmoji: 'realm_emoji',
  /** accounts: the organization's allowed email domains. */
  realmDomains: 'realm_domains',
  /** accounts: every invitation, by email and reusable link (ids, the daily limit). */
  invitations: 'invitations',
  /**
   * channels: who gained or lost sight of private channels when a user group's membership
   * changed, one stream per group fact (named by that fact's id, so deciding again appends nothing).
   */
  channelAccess: (groupFactId: string) => `channel_access-${groupFactId}`,
  /** messaging: one scheduled message or reminder; its id is the position of its first fact. */
  scheduledMessage: (uuid: string) => `scheduled_message-${uuid}`,
} as const;

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

export const RecipientAllocated = z.object({
  type: z.literal('RecipientAllocated'),
  /** `channel:<id>` or `direct:<sorted user ids joined by commas>`. */
  key: z.string(),
  recipient_id: z.number().int(),
});

/** A link found in a topic (the message's `topic_links`). */
const TopicLink = z.object({ text: z.string(), url: z.string() });

const DisplayRecipientUser = z.object({
  id: z.number().int(),
  email: z.string(),
  full_name: z.string(),
  is_mirror_dummy: z.boolean(),
});

export const MessageSent = z.object({
  type: z.literal('MessageSent'),
  sender_id: z.number().int(),
  /** Snapshot of the sender at send time, for the `message` event. */
  sender_email: z.string(),
  sender_full_name: z.string(),
  recipient: z.discriminatedUnion('type', [
    z.object({ type: z.literal('channel'), channel_id: z.number().int(), channel_name: z.string(), topic: z.string() }),
    /** `users` holds every participant, the sender included, ordered by id. */
    z.object({ type: z.literal('direct'), users: z.array(DisplayRecipientUser) }),
  ]),
  content: z.string(),
  rendered_content: z.string(),
  is_me_message: z.boolean(),
  client: z.string(),
  recipient_id: z.number().int(),
  /** Seconds since the epoch. */
  timestamp: z.number().int(),
  /** Everyone who receives the message (gets it in their personal history and queues). */
  recipient_user_ids: z.array(z.number().int()),
  mentioned_user_ids: z.array(z.number().int()),
  wildcard_mentioned_user_ids: z.array(z.number().int()),
  read_by_sender: z.boolean(),
  /** The sender's queue and the client's id for local echo. */
  local_echo: z.object({ queue_id: z.string(), local_id: z.string() }).nullable(),
  /** Recipients with one of their alert words in the message (their `has_alert_word` flag); absent: none. */
  alert_word_user_ids: z.array(z.number().int()).optional(),
  /** What the organization's linkifiers (and web addresses) make of the topic when sent; absent: none. */
  topic_links: z.array(TopicLink).optional(),
});

const Reaction = z.object({
  message_id: z.number().int(),
  user_id: z.number().int(),
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.enum(['unicode_emoji', 'realm_emoji', 'service_extra_emoji']),
  /** Who may see the message now: the users the change is announced to. */
  audience_user_ids: z.array(z.number().int()),
});
export const ReactionAdded = Reaction.extend({ type: z.literal('ReactionAdded') });
export const ReactionRemoved = Reaction.extend({ type: z.literal('ReactionRemoved') });

/** Personal flags a user may change; the others (mentioned, …) follow from content. */
export const EDITABLE_FLAGS = ['read', 'starred', 'collapsed'] as const;

export const MessageFlagsUpdated = z.object({
  type: z.literal('MessageFlagsUpdated'),
  user_id: z.number().int(),
  op: z.enum(['add', 'remove']),
  flag: z.enum(EDITABLE_FLAGS),
  /** Only the messages whose flag actually changed. */
  message_ids: z.array(z.number().int()),
  /**
   * When messages become unread again: where each one is, so clients can put it back
   * in their unread counts (the `message_details` of the event).
   */
  message_details: z
    .record(
      z.string(),
      z.union([
        z.object({ type: z.literal('channel'), channel_id: z.number().int(), topic: z.string(), mentioned: z.boolean().optional() }),
        z.object({ type: z.literal('direct'), user_ids: z.array(z.number().int()), mentioned: z.boolean().optional() }),
      ]),
    )
    .optional(),
});

export const MessageEdited = z.object({
  type: z.literal('MessageEdited'),
  message_id: z.number().int(),
  editor_id: z.number().int(),
  /** Seconds since the epoch. */
  timestamp: z.number().int(),
  /** Present when the content changed. */
  content: z
    .object({
      prev_content: z.string(),
      prev_rendered_content: z.string(),
      content: z.string(),
      rendered_content: z.string(),
      is_me_message: z.boolean(),
      mentioned_user_ids: z.array(z.number().int()),
      wildcard_mentioned_user_ids: z.array(z.number().int()),
      /**
       * Recipients with one of their alert words in the new content (their
       * `has_alert_word` flag follows it); absent in edits stored before alert words
       * existed, which leave the flag as it was.
       */
      alert_word_user_ids: z.array(z.number().int()).optional(),
    })
    .nullable(),
  /** Present when messages moved to another topic and/or channel. */
  move: z
    .object({
      prev_channel_id: z.number().int(),
      channel_id: z.number().int(),
      channel_name: z.string(),
      prev_topic: z.string(),
      topic: z.string(),
      propagate_mode: z.enum(['change_one', 'change_later', 'change_all']),
      /** Every message moved, the edited one included, ascending. */
      message_ids: z.array(z.number().int()),
      /** Recipient id of the destination channel. */
      recipient_id: z.number().int(),
      /**
       * Users who had the messages but may not see them where they now are (a private
       * destination they are not subscribed to): the messages leave their history.
       */
      revoked_user_ids: z.array(z.number().int()),
      /** When the topic changed: the new topic's links (absent: none). */
      topic_links: z.array(TopicLink).optional(),
    })
    .nullable(),
  audience_user_ids: z.array(z.number().int()),
});

export const MessageDeleted = z.object({
  type: z.literal('MessageDeleted'),
  message_id: z.number().int(),
  deleted_by: z.number().int(),
  /** Where the message was, for the `delete_message` event. */
  channel_id: z.number().int().nullable(),
  topic: z.string().nullable(),
  audience_user_ids: z.array(z.number().int()),
});

/** Topic visibility policy values, as Zulip numbers them. */
export const VISIBILITY_POLICY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

export const UserTopicUpdated = z.object({
  type: z.literal('UserTopicUpdated'),
  user_id: z.number().int(),
  channel_id: z.number().int(),
  topic: z.string(),
  visibility_policy: z.number().int().min(0).max(3),
  /** Seconds since the epoch. */
  last_updated: z.number().int(),
});

type UserGroupSettingsShape = Record<(typeof USER_GROUP_SETTINGS)[number], typeof GroupSettingValue>;
const userGroupSettingsShape = Object.fromEntries(USER_GROUP_SETTINGS.map((name) => [name, GroupSettingValue])) as UserGroupSettingsShape;

/**
 * User group facts carry their audience: every active user of the organization when the
 * change was decided (Zulip sends `user_group` events to the whole realm).
 */
const GroupAudience = { audience_user_ids: z.array(int()) };

export const UserGroupCreated = z.object({
  type: z.literal('UserGroupCreated'),
  group_id: int(),
  name: z.string(),
  description: z.string(),
  /** Direct members and direct subgroups. */
  members: z.array(int()),
  subgroup_ids: z.array(int()),
  creator_id: int().nullable(),
  /** Seconds since the epoch. */
  date_created: int(),
  ...userGroupSettingsShape,
  ...GroupAudience,
});

export const UserGroupUpdated = z.object({
  type: z.literal('UserGroupUpdated'),
  group_id: int(),
  /** Only what changed. */
  changes: z.object({ name: z.string(), description: z.string(), ...userGroupSettingsShape }).partial(),
  ...GroupAudience,
});

export const UserGroupMembersAdded = z.object({ type: z.literal('UserGroupMembersAdded'), group_id: int(), user_ids: z.array(int()), ...GroupAudience });
export const UserGroupMembersRemoved = z.object({ type: z.literal('UserGroupMembersRemoved'), group_id: int(), user_ids: z.array(int()), ...GroupAudience });
export const UserGroupSubgroupsAdded = z.object({ type: z.literal('UserGroupSubgroupsAdded'), group_id: int(), subgroup_ids: z.array(int()), ...GroupAudience });
export const UserGroupSubgroupsRemoved = z.object({ type: z.literal('UserGroupSubgroupsRemoved'), group_id: int(), subgroup_ids: z.array(int()), ...GroupAudience });
export const UserGroupDeactivated = z.object({ type: z.literal('UserGroupDeactivated'), group_id: int(), ...GroupAudience });

export const Fact = z.discriminatedUnion('type', [
  ...PEOPLE_FACTS,
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
  RecipientAllocated,
  MessageSent,
  ReactionAdded,
  ReactionRemoved,
  MessageFlagsUpdated,
  MessageEdited,
  MessageDeleted,
  UserTopicUpdated,
  UserGroupCreated,
  UserGroupUpdated,
  UserGroupMembersAdded,
  UserGroupMembersRemoved,
  UserGroupSubgroupsAdded,
  UserGroupSubgroupsRemoved,
  UserGroupDeactivated,
  ...TOOLS_FACTS,
  ...LINKIFIER_FACTS,
  ...NAVIGATION_VIEW_FACTS,
  RealmUserSettingsDefaultChanged,
  ...INVITE_FACTS,
  ...ORGANIZATION_STREAM_FACTS,
  RealmSettingsChanged,
  UserStatusChanged,
  CustomProfileFieldsChanged,
  CustomProfileDataChanged,
  ...SCHEDULED_FACTS,
  ...UPLOAD_FACTS,
  ...SETTINGS_FACTS,
]);
export type Fact = z.infer<typeof Fact>;
export type FactOf<T extends Fact['type']> = Extract<Fact, { type: T }>;
export type FactType = Fact['type'];

/** Facts as deciders return them: the data, without the store's envelope. */
export type DisplayRecipientUser = z.infer<typeof DisplayRecipientUser>;
