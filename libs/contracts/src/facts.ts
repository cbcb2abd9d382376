/**
 * Domain facts: what the event store holds. Each service appends only the facts of its
 * own stream categories (see `streams`); every other service may subscribe to them.
 * Facts are named in the past tense and carry what the projections and the fan-out need,
 * including snapshots (e.g. the sender's name on a message) taken when the fact happened.
 */
import { z } from 'zod';
import { TOOLS_FACTS } from './tools-facts';
import { LINKIFIER_FACTS } from './linkifier-facts';
import { NAVIGATION_VIEW_FACTS } from './navigation-view-facts';
import { DEVICE_FACTS } from './device-facts';
import { RealmUserSettingsDefaultChanged } from './realm-user-defaults';
import { UPLOAD_FACTS } from './upload-facts';
import { SETTINGS_FACTS } from './settings-facts';
import { PASSWORD_FACTS } from './password-facts';
import { INVITE_FACTS } from './invite-facts';
import { CustomProfileDataChanged, CustomProfileFieldsChanged, RealmSettingsChanged, UserStatusChanged } from './org-facts';
import { SCHEDULED_FACTS } from './scheduled-facts';
import { ORGANIZATION_STREAM_FACTS, PEOPLE_FACTS } from './people-facts';
import { CHANNEL_FACTS } from './channel-facts';
import { MESSAGE_FACTS } from './message-facts';
import { USER_GROUP_FACTS } from './user-group-facts';
import { MUTED_USER_FACTS } from './muted-user-facts';
import { SESSION_FACTS } from './session-facts';
import { UserAvatarChanged } from './avatars';

// The facts of each domain live in a module of their own; this one assembles the union.
export * from './people-facts';
export * from './channel-facts';
export * from './message-facts';
export * from './user-group-facts';
export * from './muted-user-facts';
export * from './session-facts';

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
  /** messaging: the users one user has muted. */
  mutedUsers: (userId: number) => `muted_users-${userId}`,
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
  /** accounts: every user's logged-in devices (one stream, so device ids are allocated in order). */
  devices: 'devices',
  /** accounts: one user's push tokens (FCM and APNs). */
  pushTokens: (userId: number) => `push_tokens-${userId}`,
  /** accounts: one user's avatar (avatars.ts). */
  userAvatar: (userId: number) => `user_avatar-${userId}`,
  /** accounts: one user's web sessions (session-facts.ts). */
  sessions: (userId: number) => `sessions-${userId}`,
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

export const Fact = z.discriminatedUnion('type', [
  ...PEOPLE_FACTS,
  ...CHANNEL_FACTS,
  ...MESSAGE_FACTS,
  ...USER_GROUP_FACTS,
  ...TOOLS_FACTS,
  ...LINKIFIER_FACTS,
  ...NAVIGATION_VIEW_FACTS,
  ...DEVICE_FACTS,
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
  ...PASSWORD_FACTS,
  ...MUTED_USER_FACTS,
  ...SESSION_FACTS,
  UserAvatarChanged,
]);
export type Fact = z.infer<typeof Fact>;
export type FactOf<T extends Fact['type']> = Extract<Fact, { type: T }>;
export type FactType = Fact['type'];
