/**
 * The events clients receive from GET /events, as the Zulip API names them: every event
 * the events service puts in a queue is one of these. The schemas say what the fan-out
 * builds; its tests parse what it builds against them, so the two cannot drift apart.
 */
import { z } from 'zod';
import { TOPICS_POLICIES } from './channel-settings';

const int = () => z.number().int();
const ids = () => z.array(int());

/** A group-setting as the API shows it: a group id, or an anonymous group. */
const ApiGroupSetting = z.union([int(), z.strictObject({ direct_members: ids(), direct_subgroups: ids() })]);

/** The channel object of `stream` events (Zulip's `stream_to_dict`). */
export const ApiChannel = z.strictObject({
  stream_id: int(),
  name: z.string(),
  description: z.string(),
  rendered_description: z.string(),
  date_created: z.number(),
  creator_id: int().nullable(),
  invite_only: z.boolean(),
  is_web_public: z.boolean(),
  history_public_to_subscribers: z.boolean(),
  message_retention_days: int().nullable(),
  topics_policy: z.enum(TOPICS_POLICIES),
  is_archived: z.boolean(),
  first_message_id: int().nullable(),
  folder_id: int().nullable(),
  is_recently_active: z.boolean(),
  subscriber_count: int(),
  stream_weekly_traffic: int().nullable(),
  stream_post_policy: int(),
  is_announcement_only: z.boolean(),
  can_add_subscribers_group: ApiGroupSetting,
  can_remove_subscribers_group: ApiGroupSetting,
  can_administer_channel_group: ApiGroupSetting,
  can_delete_any_message_group: ApiGroupSetting,
  can_delete_own_message_group: ApiGroupSetting,
  can_move_messages_out_of_channel_group: ApiGroupSetting,
  can_move_messages_within_channel_group: ApiGroupSetting,
  can_send_message_group: ApiGroupSetting,
  can_create_topic_group: ApiGroupSetting,
  can_resolve_topics_group: ApiGroupSetting,
  can_subscribe_group: ApiGroupSetting,
});
export type ApiChannel = z.infer<typeof ApiChannel>;

/** A subscription record: the channel object and the subscriber's own settings. */
export const ApiSubscription = ApiChannel.extend({
  subscribers: ids(),
  color: z.string(),
  is_muted: z.boolean(),
  in_home_view: z.boolean(),
  pin_to_top: z.boolean(),
  desktop_notifications: z.boolean().nullable(),
  email_notifications: z.boolean().nullable(),
  wildcard_mentions_notify: z.boolean().nullable(),
  push_notifications: z.boolean().nullable(),
  audible_notifications: z.boolean().nullable(),
});
export type ApiSubscription = z.infer<typeof ApiSubscription>;

const ApiDisplayRecipientUser = z.strictObject({ id: int(), email: z.string(), full_name: z.string(), is_mirror_dummy: z.boolean() });

const ApiReaction = z.strictObject({ emoji_name: z.string(), emoji_code: z.string(), reaction_type: z.string(), user_id: int() });

/** One edit or move of a message; only the aspects that changed are present. */
const ApiEditHistoryEntry = z.strictObject({
  user_id: int().nullable(),
  timestamp: int(),
  prev_content: z.string().optional(),
  prev_rendered_content: z.string().optional(),
  prev_stream: int().optional(),
  stream: int().optional(),
  prev_topic: z.string().optional(),
  topic: z.string().optional(),
});

const ApiTopicLink = z.strictObject({ text: z.string(), url: z.string() });

/** The Message object, as GET /messages and the `message` event show it. */
export const ApiMessage = z.strictObject({
  id: int(),
  sender_id: int(),
  sender_email: z.string(),
  sender_full_name: z.string(),
  sender_realm_str: z.string(),
  avatar_url: z.string().nullable(),
  client: z.string(),
  content: z.string(),
  content_type: z.enum(['text/html', 'text/x-markdown']),
  recipient_id: int(),
  timestamp: int(),
  is_me_message: z.boolean(),
  reactions: z.array(ApiReaction),
  submessages: z.array(z.never()),
  topic_links: z.array(ApiTopicLink),
  type: z.enum(['stream', 'private']),
  display_recipient: z.union([z.string(), z.array(ApiDisplayRecipientUser)]),
  subject: z.string(),
  stream_id: int().optional(),
  edit_history: z.array(ApiEditHistoryEntry).optional(),
  last_edit_timestamp: int().optional(),
  last_moved_timestamp: int().optional(),
});
export type ApiMessage = z.infer<typeof ApiMessage>;

export const MessageEvent = z.strictObject({
  type: z.literal('message'),
  message: ApiMessage,
  flags: z.array(z.string()),
  /** Only in the sending client's own queue, for its local echo. */
  local_message_id: z.string().optional(),
});
export type MessageEvent = z.infer<typeof MessageEvent>;

export const UpdateMessageEvent = z.strictObject({
  type: z.literal('update_message'),
  user_id: int(),
  edit_timestamp: int(),
  message_id: int(),
  message_ids: ids(),
  flags: z.array(z.string()),
  rendering_only: z.boolean(),
  // When the content changed:
  orig_content: z.string().optional(),
  orig_rendered_content: z.string().optional(),
  content: z.string().optional(),
  rendered_content: z.string().optional(),
  is_me_message: z.boolean().optional(),
  // When messages moved:
  stream_id: int().optional(),
  propagate_mode: z.enum(['change_one', 'change_later', 'change_all']).optional(),
  orig_subject: z.string().optional(),
  subject: z.string().optional(),
  topic_links: z.array(ApiTopicLink).optional(),
  new_stream_id: int().optional(),
});
export type UpdateMessageEvent = z.infer<typeof UpdateMessageEvent>;

export const DeleteMessageEvent = z.strictObject({
  type: z.literal('delete_message'),
  message_ids: ids(),
  message_id: int().optional(),
  message_type: z.enum(['stream', 'private']),
  stream_id: int().optional(),
  topic: z.string().optional(),
});
export type DeleteMessageEvent = z.infer<typeof DeleteMessageEvent>;

export const ReactionEvent = z.strictObject({
  type: z.literal('reaction'),
  op: z.enum(['add', 'remove']),
  message_id: int(),
  user_id: int(),
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.enum(['unicode_emoji', 'realm_emoji', 'service_extra_emoji']),
});
export type ReactionEvent = z.infer<typeof ReactionEvent>;

/** Where a message that became unread again is, so clients can count it again. */
const ApiMessageDetails = z.union([
  z.strictObject({ type: z.literal('stream'), stream_id: int(), topic: z.string(), mentioned: z.boolean().optional() }),
  z.strictObject({ type: z.literal('private'), user_ids: ids(), mentioned: z.boolean().optional() }),
]);

export const UpdateMessageFlagsEvent = z.strictObject({
  type: z.literal('update_message_flags'),
  op: z.enum(['add', 'remove']),
  /** The older name of `op`, which clients still read. */
  operation: z.enum(['add', 'remove']),
  flag: z.string(),
  messages: ids(),
  all: z.boolean(),
  message_details: z.record(z.string(), ApiMessageDetails).optional(),
});
export type UpdateMessageFlagsEvent = z.infer<typeof UpdateMessageFlagsEvent>;

export const UserTopicEvent = z.strictObject({
  type: z.literal('user_topic'),
  stream_id: int(),
  topic_name: z.string(),
  last_updated: int(),
  visibility_policy: int(),
});
export type UserTopicEvent = z.infer<typeof UserTopicEvent>;

export const StreamCreateEvent = z.strictObject({
  type: z.literal('stream'),
  op: z.literal('create'),
  streams: z.array(ApiChannel),
  for_unarchiving: z.boolean(),
});
export type StreamCreateEvent = z.infer<typeof StreamCreateEvent>;

export const StreamUpdateEvent = z.strictObject({
  type: z.literal('stream'),
  op: z.literal('update'),
  stream_id: int(),
  name: z.string(),
  property: z.string(),
  value: z.union([z.string(), z.boolean(), int(), z.null(), ApiGroupSetting]),
  // With a new description, and with a privacy change:
  rendered_description: z.string().optional(),
  history_public_to_subscribers: z.boolean().optional(),
  is_web_public: z.boolean().optional(),
});
export type StreamUpdateEvent = z.infer<typeof StreamUpdateEvent>;

export const StreamDeleteEvent = z.strictObject({
  type: z.literal('stream'),
  op: z.literal('delete'),
  streams: z.array(z.strictObject({ stream_id: int(), name: z.string() })),
  stream_ids: ids(),
});
export type StreamDeleteEvent = z.infer<typeof StreamDeleteEvent>;

export const SubscriptionAddEvent = z.strictObject({
  type: z.literal('subscription'),
  op: z.literal('add'),
  subscriptions: z.array(ApiSubscription),
});
export type SubscriptionAddEvent = z.infer<typeof SubscriptionAddEvent>;

export const SubscriptionPeerAddEvent = z.strictObject({
  type: z.literal('subscription'),
  op: z.literal('peer_add'),
  stream_ids: ids(),
  user_ids: ids(),
});
export type SubscriptionPeerAddEvent = z.infer<typeof SubscriptionPeerAddEvent>;

export const DefaultStreamsEvent = z.strictObject({ type: z.literal('default_streams'), default_streams: ids() });
export type DefaultStreamsEvent = z.infer<typeof DefaultStreamsEvent>;

/** Sent when a long-poll found nothing, so that clients know the queue is alive. */
export const HeartbeatEvent = z.strictObject({ type: z.literal('heartbeat') });
export type HeartbeatEvent = z.infer<typeof HeartbeatEvent>;

/** Someone started or stopped typing in a conversation (Zulip's `typing` event). */
const TypingUser = z.strictObject({ user_id: int(), email: z.string() });
export const TypingEvent = z.union([
  z.strictObject({
    type: z.literal('typing'),
    op: z.enum(['start', 'stop']),
    message_type: z.literal('direct'),
    sender: TypingUser,
    recipients: z.array(TypingUser),
  }),
  z.strictObject({
    type: z.literal('typing'),
    op: z.enum(['start', 'stop']),
    message_type: z.literal('stream'),
    sender: TypingUser,
    stream_id: int(),
    topic: z.string(),
  }),
]);
export type TypingEvent = z.infer<typeof TypingEvent>;

/** Someone started or stopped editing a message. */
export const TypingEditMessageEvent = z.strictObject({
  type: z.literal('typing_edit_message'),
  op: z.enum(['start', 'stop']),
  sender_id: int(),
  message_id: int(),
  recipient: z.union([
    z.strictObject({ type: z.literal('channel'), channel_id: int(), topic: z.string() }),
    z.strictObject({ type: z.literal('direct'), user_ids: ids() }),
  ]),
});
export type TypingEditMessageEvent = z.infer<typeof TypingEditMessageEvent>;

/** A user came online or became active: the legacy form, one client's presence. */
export const PresenceEvent = z.strictObject({
  type: z.literal('presence'),
  user_id: int(),
  email: z.string(),
  server_timestamp: z.number(),
  presence: z.record(
    z.string(),
    z.strictObject({ client: z.string(), status: z.enum(['active', 'idle']), timestamp: int(), pushable: z.boolean() }),
  ),
});
export type PresenceEvent = z.infer<typeof PresenceEvent>;

/** The same, for clients with the `simplified_presence_events` capability. */
export const SimplifiedPresenceEvent = z.strictObject({
  type: z.literal('presence'),
  presences: z.record(z.string(), z.strictObject({ active_timestamp: int(), idle_timestamp: int() })),
});
export type SimplifiedPresenceEvent = z.infer<typeof SimplifiedPresenceEvent>;

// Events of features whose facts do not exist yet. Their shapes are Zulip's
// (zulip.com/api/get-events) except where the spec gives fields; each feature's issue
// emits them through the events service's audience routing (domain/audience.ts).

/** The rest of a channel's subscription changes. */
export const SubscriptionRemoveEvent = z.strictObject({
  type: z.literal('subscription'),
  op: z.literal('remove'),
  subscriptions: z.array(z.strictObject({ stream_id: int(), name: z.string() })),
});
export type SubscriptionRemoveEvent = z.infer<typeof SubscriptionRemoveEvent>;

export const SubscriptionUpdateEvent = z.strictObject({
  type: z.literal('subscription'),
  op: z.literal('update'),
  stream_id: int(),
  property: z.string(),
  value: z.union([z.boolean(), z.string(), int(), z.null()]),
});
export type SubscriptionUpdateEvent = z.infer<typeof SubscriptionUpdateEvent>;

export const SubscriptionPeerRemoveEvent = z.strictObject({
  type: z.literal('subscription'),
  op: z.literal('peer_remove'),
  stream_ids: ids(),
  user_ids: ids(),
});
export type SubscriptionPeerRemoveEvent = z.infer<typeof SubscriptionPeerRemoveEvent>;

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

const ApiScheduledMessage = z.strictObject({
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

const ApiReminder = z.strictObject({
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

/** Whether the user has linked a video-call account (Zulip's older name: `has_zoom_token`). */
export const HasMeetingTokenEvent = z.strictObject({ type: z.literal('has_meeting_token'), value: z.boolean() });
export type HasMeetingTokenEvent = z.infer<typeof HasMeetingTokenEvent>;

const RealmValue = z.union([z.boolean(), int(), z.string(), z.null(), ApiGroupSetting]);
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

const ApiRealmEmoji = z.strictObject({
  id: z.string(),
  name: z.string(),
  source_url: z.string(),
  still_url: z.string().nullable().optional(),
  deactivated: z.boolean(),
  author_id: int().nullable(),
});
/** The whole set of custom emoji, by id, after each change. */
export const RealmEmojiEvent = z.strictObject({ type: z.literal('realm_emoji'), op: z.literal('update'), realm_emoji: z.record(z.string(), ApiRealmEmoji) });
export type RealmEmojiEvent = z.infer<typeof RealmEmojiEvent>;

const ApiRealmDomain = z.strictObject({ domain: z.string(), allow_subdomains: z.boolean() });
export const RealmDomainsEvent = z.union([
  z.strictObject({ type: z.literal('realm_domains'), op: z.enum(['add', 'change']), realm_domain: ApiRealmDomain }),
  z.strictObject({ type: z.literal('realm_domains'), op: z.literal('remove'), domain: z.string() }),
]);
export type RealmDomainsEvent = z.infer<typeof RealmDomainsEvent>;

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

const ApiUserGroup = z.strictObject({
  id: int(),
  name: z.string(),
  description: z.string(),
  members: ids(),
  direct_subgroup_ids: ids(),
  is_system_group: z.boolean(),
  date_created: int().nullable(),
  creator_id: int().nullable(),
  deactivated: z.boolean(),
  can_add_members_group: ApiGroupSetting,
  can_join_group: ApiGroupSetting,
  can_leave_group: ApiGroupSetting,
  can_manage_group: ApiGroupSetting,
  can_mention_group: ApiGroupSetting,
  can_remove_members_group: ApiGroupSetting,
});
export const UserGroupEvent = z.union([
  z.strictObject({ type: z.literal('user_group'), op: z.literal('add'), group: ApiUserGroup }),
  z.strictObject({
    type: z.literal('user_group'),
    op: z.literal('update'),
    group_id: int(),
    data: ApiUserGroup.omit({ id: true, members: true, direct_subgroup_ids: true, is_system_group: true, date_created: true, creator_id: true }).partial(),
  }),
  z.strictObject({ type: z.literal('user_group'), op: z.enum(['add_members', 'remove_members']), group_id: int(), user_ids: ids() }),
  z.strictObject({ type: z.literal('user_group'), op: z.enum(['add_subgroups', 'remove_subgroups']), group_id: int(), direct_subgroup_ids: ids() }),
  z.strictObject({ type: z.literal('user_group'), op: z.literal('remove'), group_id: int() }),
]);
export type UserGroupEvent = z.infer<typeof UserGroupEvent>;

const ApiChannelFolder = z.strictObject({
  id: int(),
  name: z.string(),
  description: z.string(),
  rendered_description: z.string(),
  order: int(),
  date_created: int(),
  creator_id: int().nullable(),
  is_archived: z.boolean(),
});
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

/**
 * The event types the spec's Events section names, written once: the events service's
 * routing table and its tests are checked against this list.
 */
export const SPEC_EVENT_TYPES = [
  'attachment',
  'channel_folder',
  'device',
  'drafts',
  'navigation_view',
  'reaction',
  'realm',
  'realm_bot',
  'realm_domains',
  'realm_emoji',
  'realm_user',
  'realm_user_settings_defaults',
  'reminders',
  'saved_snippets',
  'scheduled_messages',
  'stream',
  'subscription',
  'typing',
  'typing_edit_message',
  'update_message_flags',
  'user_group',
  'user_settings',
  'alert_words',
  'message',
  'user_topic',
  'has_meeting_token',
  'heartbeat',
] as const;
export type SpecEventType = (typeof SPEC_EVENT_TYPES)[number];

/** An event as it goes into a queue, before the queue gives it its id. */
export const ClientEvent = z.union([
  MessageEvent,
  UpdateMessageEvent,
  DeleteMessageEvent,
  ReactionEvent,
  UpdateMessageFlagsEvent,
  UserTopicEvent,
  StreamCreateEvent,
  StreamUpdateEvent,
  StreamDeleteEvent,
  SubscriptionAddEvent,
  SubscriptionPeerAddEvent,
  DefaultStreamsEvent,
  HeartbeatEvent,
  TypingEvent,
  TypingEditMessageEvent,
  PresenceEvent,
  SimplifiedPresenceEvent,
  SubscriptionRemoveEvent,
  SubscriptionUpdateEvent,
  SubscriptionPeerRemoveEvent,
  UserSettingsEvent,
  AlertWordsEvent,
  DraftsEvent,
  SavedSnippetsEvent,
  ScheduledMessagesEvent,
  RemindersEvent,
  AttachmentEvent,
  NavigationViewEvent,
  DeviceEvent,
  HasMeetingTokenEvent,
  RealmEvent,
  RealmUserSettingsDefaultsEvent,
  RealmEmojiEvent,
  RealmDomainsEvent,
  RealmBotEvent,
  RealmUserEvent,
  UserGroupEvent,
  ChannelFolderEvent,
]);
export type ClientEvent = z.infer<typeof ClientEvent>;
