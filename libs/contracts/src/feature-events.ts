/**
 * Client events of features whose facts do not exist yet (drafts, snippets, settings,
 * custom emoji, user groups, …). Their shapes are Zulip's (zulip.com/api/get-events)
 * except where the spec gives fields; each feature's issue emits them through the events
 * service's audience routing (services/events/src/domain/audience.ts). They are members
 * of the ClientEvent union in client-events.ts.
 */
import { z } from 'zod';
import { GroupSettingValue, UserGroup } from './groups';
import { ApiProfileField } from './org-facts';
import type { StoredRealmEmoji } from './upload-facts';

const int = () => z.number().int();
const ids = () => z.array(int());

const SettingValue = z.union([z.boolean(), int(), z.string()]);

/** The spec's form; `language_name` only with `default_language`. */
export const UserSettingsEvent = z.strictObject({
  type: z.literal('user_settings'),
  op: z.literal('update'),
  property: z.string(),
  value: SettingValue,
  language_name: z.string().optional(),
});
export type UserSettingsEvent = z.infer<typeof UserSettingsEvent>;

export const AlertWordsEvent = z.strictObject({ type: z.literal('alert_words'), alert_words: z.array(z.string()) });
export type AlertWordsEvent = z.infer<typeof AlertWordsEvent>;

/** The spec's Draft resource, with its id. */
const ApiDraft = z.strictObject({
  id: int(),
  type: z.enum(['', 'stream', 'private']),
  to: ids(),
  topic: z.string(),
  content: z.string(),
  timestamp: int(),
});
export const DraftsEvent = z.union([
  z.strictObject({ type: z.literal('drafts'), op: z.literal('add'), drafts: z.array(ApiDraft) }),
  z.strictObject({ type: z.literal('drafts'), op: z.literal('update'), draft: ApiDraft }),
  z.strictObject({ type: z.literal('drafts'), op: z.literal('remove'), draft_id: int() }),
]);
export type DraftsEvent = z.infer<typeof DraftsEvent>;

const ApiSavedSnippet = z.strictObject({ id: int(), title: z.string(), content: z.string(), date_created: int() });
export const SavedSnippetsEvent = z.union([
  z.strictObject({ type: z.literal('saved_snippets'), op: z.enum(['add', 'update']), saved_snippet: ApiSavedSnippet }),
  z.strictObject({ type: z.literal('saved_snippets'), op: z.literal('remove'), saved_snippet_id: int() }),
]);
export type SavedSnippetsEvent = z.infer<typeof SavedSnippetsEvent>;

export const ApiScheduledMessage = z.strictObject({
  scheduled_message_id: int(),
  type: z.enum(['stream', 'private']),
  /** A channel id, or the recipients' user ids. */
  to: z.union([int(), ids()]),
  topic: z.string().optional(),
  content: z.string(),
  rendered_content: z.string(),
  scheduled_delivery_timestamp: int(),
  failed: z.boolean(),
});
export const ScheduledMessagesEvent = z.union([
  z.strictObject({ type: z.literal('scheduled_messages'), op: z.literal('add'), scheduled_messages: z.array(ApiScheduledMessage) }),
  z.strictObject({ type: z.literal('scheduled_messages'), op: z.literal('update'), scheduled_message: ApiScheduledMessage }),
  z.strictObject({ type: z.literal('scheduled_messages'), op: z.literal('remove'), scheduled_message_id: int() }),
]);
export type ScheduledMessagesEvent = z.infer<typeof ScheduledMessagesEvent>;

export const ApiReminder = z.strictObject({
  reminder_id: int(),
  type: z.literal('private'),
  to: ids(),
  content: z.string(),
  rendered_content: z.string(),
  scheduled_delivery_timestamp: int(),
  failed: z.boolean(),
  reminder_target_message_id: int(),
});
export const RemindersEvent = z.union([
  z.strictObject({ type: z.literal('reminders'), op: z.literal('add'), reminders: z.array(ApiReminder) }),
  z.strictObject({ type: z.literal('reminders'), op: z.literal('remove'), reminder_id: int() }),
]);
export type RemindersEvent = z.infer<typeof RemindersEvent>;

const ApiAttachment = z.strictObject({
  id: int(),
  name: z.string(),
  path_id: z.string(),
  size: int(),
  create_time: int(),
  messages: z.array(z.strictObject({ id: int(), date_sent: int() })),
});
export const AttachmentEvent = z.union([
  z.strictObject({ type: z.literal('attachment'), op: z.enum(['add', 'update']), attachment: ApiAttachment, upload_space_used: int() }),
  z.strictObject({ type: z.literal('attachment'), op: z.literal('remove'), attachment: z.strictObject({ id: int() }), upload_space_used: int() }),
]);
export type AttachmentEvent = z.infer<typeof AttachmentEvent>;

const ApiNavigationView = z.strictObject({ fragment: z.string(), is_pinned: z.boolean(), name: z.string().nullable() });
export const NavigationViewEvent = z.union([
  z.strictObject({ type: z.literal('navigation_view'), op: z.literal('add'), navigation_view: ApiNavigationView }),
  z.strictObject({
    type: z.literal('navigation_view'),
    op: z.literal('update'),
    fragment: z.string(),
    data: z.strictObject({ is_pinned: z.boolean().optional(), name: z.string().nullable().optional() }),
  }),
  z.strictObject({ type: z.literal('navigation_view'), op: z.literal('remove'), fragment: z.string() }),
]);
export type NavigationViewEvent = z.infer<typeof NavigationViewEvent>;

/** A push-notification device of the user's (Zulip's E2EE push registration). */
export const DeviceEvent = z.union([
  z.strictObject({ type: z.literal('device'), op: z.literal('add'), device_id: int() }),
  z.strictObject({
    type: z.literal('device'),
    op: z.literal('update'),
    device_id: int(),
    push_key_id: int().nullable().optional(),
    push_token_id: z.string().nullable().optional(),
    pending_push_token_id: z.string().nullable().optional(),
    push_token_last_updated_timestamp: int().nullable().optional(),
    push_registration_error_code: z.string().nullable().optional(),
  }),
  z.strictObject({ type: z.literal('device'), op: z.literal('remove'), device_id: int() }),
]);
export type DeviceEvent = z.infer<typeof DeviceEvent>;

/** The organization's code playgrounds, the whole list after each change (Zulip's `realm_playgrounds`). */
export const RealmPlaygroundsEvent = z.strictObject({
  type: z.literal('realm_playgrounds'),
  realm_playgrounds: z.array(z.strictObject({ id: int(), name: z.string(), lexer_language: z.string(), url_template: z.string() })),
});
export type RealmPlaygroundsEvent = z.infer<typeof RealmPlaygroundsEvent>;

const ApiLinkifier = z.strictObject({ id: int(), pattern: z.string(), url_template: z.string() });
/** The organization's linkifiers, the whole list in order after each change. */
export const RealmLinkifiersEvent = z.strictObject({ type: z.literal('realm_linkifiers'), realm_linkifiers: z.array(ApiLinkifier) });
export type RealmLinkifiersEvent = z.infer<typeof RealmLinkifiersEvent>;
/** The same list in the form clients before Zulip 4.0 read: [pattern, URL template, id] tuples. */
export const RealmFiltersEvent = z.strictObject({ type: z.literal('realm_filters'), realm_filters: z.array(z.tuple([z.string(), z.string(), int()])) });
export type RealmFiltersEvent = z.infer<typeof RealmFiltersEvent>;

/** Whether the user has linked a video-call account (Zulip's older name: `has_zoom_token`). */
export const HasMeetingTokenEvent = z.strictObject({ type: z.literal('has_meeting_token'), value: z.boolean() });
export type HasMeetingTokenEvent = z.infer<typeof HasMeetingTokenEvent>;

const RealmValue = z.union([z.boolean(), int(), z.string(), z.null(), GroupSettingValue]);
export const RealmEvent = z.union([
  z.strictObject({ type: z.literal('realm'), op: z.literal('update'), property: z.string(), value: RealmValue }),
  z.strictObject({
    type: z.literal('realm'),
    op: z.literal('update_dict'),
    /** `default` for several settings at once; `icon`, `logo`, `night_logo` for images. */
    property: z.string(),
    data: z.record(z.string(), RealmValue),
  }),
  z.strictObject({ type: z.literal('realm'), op: z.literal('deactivated'), realm_id: int() }),
]);
export type RealmEvent = z.infer<typeof RealmEvent>;

export const RealmUserSettingsDefaultsEvent = z.strictObject({
  type: z.literal('realm_user_settings_defaults'),
  op: z.literal('update'),
  property: z.string(),
  value: SettingValue,
});
export type RealmUserSettingsDefaultsEvent = z.infer<typeof RealmUserSettingsDefaultsEvent>;

/** One custom emoji as clients see it: in the realm_emoji event, GET /realm/emoji and /register. */
export const ApiRealmEmoji = z.strictObject({
  id: z.string(),
  name: z.string(),
  source_url: z.string(),
  still_url: z.string().nullable().optional(),
  deactivated: z.boolean(),
  author_id: int().nullable(),
});
export type ApiRealmEmoji = z.infer<typeof ApiRealmEmoji>;

/**
 * Zulip's realm_emoji dictionary: by id, each without the server's storage details (blob
 * key, content type). One mapping for the services that show the set: accounts (GET
 * /realm/emoji, /register) and events (the realm_emoji event).
 */
export const apiRealmEmojiSet = (set: readonly StoredRealmEmoji[]): Record<string, ApiRealmEmoji> =>
  Object.fromEntries(
    set.map((e) => [e.id, { id: e.id, name: e.name, source_url: e.source_url, still_url: null, deactivated: e.deactivated, author_id: e.author_id }]),
  );
/** The whole set of custom emoji, by id, after each change. */
export const RealmEmojiEvent = z.strictObject({ type: z.literal('realm_emoji'), op: z.literal('update'), realm_emoji: z.record(z.string(), ApiRealmEmoji) });
export type RealmEmojiEvent = z.infer<typeof RealmEmojiEvent>;
/**
 * The same changes one emoji at a time, for clients that declared the
 * `individual_emoji_changes` capability (Zulip's feature level 491): a new emoji whole,
 * and a deactivation as the one property that changed.
 */
export const RealmEmojiAddEvent = z.strictObject({ type: z.literal('realm_emoji'), op: z.literal('add'), emoji: ApiRealmEmoji });
export type RealmEmojiAddEvent = z.infer<typeof RealmEmojiAddEvent>;
export const RealmEmojiUpdateOneEvent = z.strictObject({
  type: z.literal('realm_emoji'),
  op: z.literal('update_one'),
  emoji_id: z.string(),
  data: z.strictObject({ deactivated: z.boolean() }),
});
export type RealmEmojiUpdateOneEvent = z.infer<typeof RealmEmojiUpdateOneEvent>;

/** Everyone the user has muted, after each mute or unmute (Zulip's `muted_users` event). */
export const MutedUsersEvent = z.strictObject({
  type: z.literal('muted_users'),
  muted_users: z.array(z.strictObject({ id: int(), timestamp: int() })),
});
export type MutedUsersEvent = z.infer<typeof MutedUsersEvent>;

const ApiRealmDomain = z.strictObject({ domain: z.string(), allow_subdomains: z.boolean() });
export const RealmDomainsEvent = z.union([
  z.strictObject({ type: z.literal('realm_domains'), op: z.enum(['add', 'change']), realm_domain: ApiRealmDomain }),
  z.strictObject({ type: z.literal('realm_domains'), op: z.literal('remove'), domain: z.string() }),
]);
export type RealmDomainsEvent = z.infer<typeof RealmDomainsEvent>;

/** The invitation list changed; clients fetch GET /invites again (Zulip's `invites_changed`). */
export const InvitesChangedEvent = z.strictObject({ type: z.literal('invites_changed') });
export type InvitesChangedEvent = z.infer<typeof InvitesChangedEvent>;

const ApiBot = z.strictObject({
  user_id: int(),
  email: z.string(),
  full_name: z.string(),
  bot_type: int().nullable(),
  is_active: z.boolean(),
  api_key: z.string(),
  default_sending_stream: z.string().nullable(),
  default_events_register_stream: z.string().nullable(),
  default_all_public_streams: z.boolean(),
  avatar_url: z.string(),
  owner_id: int().nullable(),
  services: z.array(z.record(z.string(), z.unknown())),
});
export const RealmBotEvent = z.union([
  z.strictObject({ type: z.literal('realm_bot'), op: z.literal('add'), bot: ApiBot }),
  z.strictObject({ type: z.literal('realm_bot'), op: z.literal('update'), bot: ApiBot.partial().required({ user_id: true }) }),
  z.strictObject({ type: z.literal('realm_bot'), op: z.literal('delete'), bot: z.strictObject({ user_id: int() }) }),
]);
export type RealmBotEvent = z.infer<typeof RealmBotEvent>;

/** A user as `realm_user` add gives it (Zulip's user object). */
const ApiRealmUser = z.strictObject({
  user_id: int(),
  email: z.string(),
  delivery_email: z.string().nullable(),
  full_name: z.string(),
  date_joined: z.string(),
  is_active: z.boolean(),
  is_owner: z.boolean(),
  is_admin: z.boolean(),
  is_guest: z.boolean(),
  is_billing_admin: z.boolean().optional(),
  is_bot: z.boolean(),
  bot_type: int().nullable(),
  bot_owner_id: int().nullable().optional(),
  role: int(),
  timezone: z.string(),
  avatar_url: z.string().nullable(),
  avatar_version: int(),
  is_imported_stub: z.boolean().optional(),
  profile_data: z.record(z.string(), z.strictObject({ value: z.string(), rendered_value: z.string().optional() })).optional(),
});
/** The forms of `person` in a `realm_user` update: the spec's table, then Zulip's for the rest. */
const RealmUserPersonUpdate = z.union([
  z.strictObject({
    user_id: int(),
    avatar_url: z.string(),
    avatar_source: z.enum(['G', 'J', 'U']),
    avatar_url_medium: z.string(),
    avatar_version: int(),
  }),
  z.strictObject({ user_id: int(), email: z.string(), timezone: z.string() }),
  z.strictObject({ user_id: int(), delivery_email: z.string().nullable() }),
  z.strictObject({
    user_id: int(),
    custom_profile_field: z.strictObject({ id: int(), value: z.string().nullable(), rendered_value: z.string().optional() }),
  }),
  z.strictObject({ user_id: int(), new_email: z.string() }),
  z.strictObject({ user_id: int(), is_imported_stub: z.literal(false) }),
  z.strictObject({ user_id: int(), full_name: z.string() }),
  z.strictObject({ user_id: int(), bot_owner_id: int() }),
  z.strictObject({ user_id: int(), role: int() }),
  z.strictObject({ user_id: int(), is_billing_admin: z.boolean() }),
  z.strictObject({ user_id: int(), is_active: z.boolean() }),
]);
export const RealmUserEvent = z.union([
  z.strictObject({ type: z.literal('realm_user'), op: z.literal('add'), person: ApiRealmUser }),
  z.strictObject({ type: z.literal('realm_user'), op: z.literal('update'), person: RealmUserPersonUpdate }),
  /** Before feature level 222 deactivation; now only for a user the viewer can no longer access. */
  z.strictObject({ type: z.literal('realm_user'), op: z.literal('remove'), person: z.strictObject({ user_id: int(), full_name: z.string() }) }),
]);
export type RealmUserEvent = z.infer<typeof RealmUserEvent>;
export const UserGroupEvent = z.union([
  z.strictObject({ type: z.literal('user_group'), op: z.literal('add'), group: UserGroup }),
  z.strictObject({
    type: z.literal('user_group'),
    op: z.literal('update'),
    group_id: int(),
    data: UserGroup.omit({ id: true, members: true, direct_subgroup_ids: true, is_system_group: true, date_created: true, creator_id: true }).partial(),
  }),
  z.strictObject({ type: z.literal('user_group'), op: z.enum(['add_members', 'remove_members']), group_id: int(), user_ids: ids() }),
  z.strictObject({ type: z.literal('user_group'), op: z.enum(['add_subgroups', 'remove_subgroups']), group_id: int(), direct_subgroup_ids: ids() }),
  z.strictObject({ type: z.literal('user_group'), op: z.literal('remove'), group_id: int() }),
]);
export type UserGroupEvent = z.infer<typeof UserGroupEvent>;

export const ApiChannelFolder = z.strictObject({
  id: int(),
  name: z.string(),
  description: z.string(),
  rendered_description: z.string(),
  order: int(),
  date_created: int(),
  creator_id: int().nullable(),
  is_archived: z.boolean(),
});
export type ApiChannelFolder = z.infer<typeof ApiChannelFolder>;
export const ChannelFolderEvent = z.union([
  z.strictObject({ type: z.literal('channel_folder'), op: z.literal('add'), channel_folder: ApiChannelFolder }),
  z.strictObject({
    type: z.literal('channel_folder'),
    op: z.literal('update'),
    channel_folder_id: int(),
    data: ApiChannelFolder.pick({ name: true, description: true, rendered_description: true, is_archived: true }).partial(),
  }),
  /** The folders' ids in their new order. */
  z.strictObject({ type: z.literal('channel_folder'), op: z.literal('reorder'), order: ids() }),
]);
export type ChannelFolderEvent = z.infer<typeof ChannelFolderEvent>;

/** A user's status changed: only what the request set (Zulip's `user_status` event). */
export const UserStatusEvent = z.strictObject({
  type: z.literal('user_status'),
  user_id: int(),
  away: z.boolean().optional(),
  status_text: z.string().optional(),
  emoji_name: z.string().optional(),
  emoji_code: z.string().optional(),
  reaction_type: z.enum(['unicode_emoji', 'realm_emoji', 'service_extra_emoji']).optional(),
});
export type UserStatusEvent = z.infer<typeof UserStatusEvent>;

/** Every custom profile field after a change to any of them. */
export const CustomProfileFieldsEvent = z.strictObject({ type: z.literal('custom_profile_fields'), fields: z.array(ApiProfileField) });
export type CustomProfileFieldsEvent = z.infer<typeof CustomProfileFieldsEvent>;
