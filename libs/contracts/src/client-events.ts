/**
 * The events clients receive from GET /events, as the Zulip API names them: every event
 * the events service puts in a queue is one of these. The schemas say what the fan-out
 * builds; its tests parse what it builds against them, so the two cannot drift apart.
 */
import { z } from 'zod';
import { TOPICS_POLICIES } from './channel-settings';
import {
  AlertWordsEvent,
  AttachmentEvent,
  ChannelFolderEvent,
  DeviceEvent,
  DraftsEvent,
  HasMeetingTokenEvent,
  NavigationViewEvent,
  RealmBotEvent,
  RealmDomainsEvent,
  InvitesChangedEvent,
  RealmEmojiEvent,
  RealmEmojiAddEvent,
  RealmEmojiUpdateOneEvent,
  MutedUsersEvent,
  RealmEvent,
  RealmPlaygroundsEvent,
  RealmLinkifiersEvent,
  RealmFiltersEvent,
  RealmUserEvent,
  RealmUserSettingsDefaultsEvent,
  RemindersEvent,
  SavedSnippetsEvent,
  ScheduledMessagesEvent,
  UserGroupEvent,
  UserSettingsEvent,
  UserStatusEvent,
  CustomProfileFieldsEvent,
} from './feature-events';

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

/** A submessage of a widget (poll, to-do list), as a message lists it. */
const ApiSubmessage = z.strictObject({ id: int(), message_id: int(), sender_id: int(), msg_type: z.string(), content: z.string() });

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
  submessages: z.array(ApiSubmessage),
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

/**
 * A deletion: `message_ids` for clients with the `bulk_message_deletion` capability, else
 * one event per message with `message_id` (Zulip's form before feature level 13).
 */
export const DeleteMessageEvent = z.strictObject({
  type: z.literal('delete_message'),
  message_ids: ids().optional(),
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

/** A submessage added to a widget's message (POST /submessage), to the message's readers. */
export const SubmessageEvent = z.strictObject({
  type: z.literal('submessage'),
  msg_type: z.string(),
  message_id: int(),
  submessage_id: int(),
  sender_id: int(),
  content: z.string(),
});
export type SubmessageEvent = z.infer<typeof SubmessageEvent>;

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

/** The rest of a channel's subscription changes (emitted by the channels issue). */
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
  SubmessageEvent,
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
  RealmEmojiAddEvent,
  RealmEmojiUpdateOneEvent,
  MutedUsersEvent,
  RealmDomainsEvent,
  InvitesChangedEvent,
  RealmBotEvent,
  RealmUserEvent,
  UserGroupEvent,
  ChannelFolderEvent,
  RealmPlaygroundsEvent,
  RealmLinkifiersEvent,
  RealmFiltersEvent,
  UserStatusEvent,
  CustomProfileFieldsEvent,
]);
export type ClientEvent = z.infer<typeof ClientEvent>;
