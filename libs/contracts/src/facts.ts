/**
 * Domain facts: what the event store holds. Each service appends only the facts of its
 * own stream categories (see `streams`); every other service may subscribe to them.
 * Facts are named in the past tense and carry what the projections and the fan-out need,
 * including snapshots (e.g. the sender's name on a message) taken when the fact happened.
 */
import { z } from 'zod';
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
import { CHANNEL_FACTS } from './channel-facts';

// The facts of each domain live in a module of their own; this one assembles the union.
export * from './people-facts';
export * from './channel-facts';

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
  ...CHANNEL_FACTS,
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
