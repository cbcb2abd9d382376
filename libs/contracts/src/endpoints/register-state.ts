/**
 * POST /register's initial state: the sections of the reply (Zulip's field names and
 * shapes, zerver/lib/events.py `fetch_initial_state_data`), which client event type asks
 * for each, and the internal contracts through which the events service collects each
 * owner's sections. Each owner answers from its own read models together with the store
 * position they reflect, so that the queue can leave out what the state already holds.
 */
import { z } from 'zod';
import { ApiChannel, ApiSubscription } from '../client-events';
import { ApiChannelFolder, ApiRealmEmoji, ApiReminder, ApiScheduledMessage } from '../feature-events';
import { endpoint, type ServiceName } from './contract';
import { BotObject, PersonObject } from './people';
import { UserGroup } from '../groups';
import { StoredDraft, StoredPlayground, StoredSavedSnippet } from '../tools-facts';
import { OrgState } from './org';
import { StoredLinkifier } from '../linkifier-facts';
import { StoredNavigationView } from '../navigation-view-facts';
import { StoredDevice } from '../device-facts';

const int = () => z.number().int();
const ids = () => z.array(int());

/** A channel the user is not subscribed to: subscribers only when asked for. */
const ApiChannelWithSubscribers = ApiChannel.extend({ subscribers: ids().optional(), partial_subscribers: ids().optional() });
const ApiSubscriptionState = ApiSubscription.extend({ subscribers: ids().optional(), partial_subscribers: ids().optional() });

/** Zulip's user object, as the viewer may see it (people.ts). */
export const RealmUser = PersonObject;

export const RealmBot = BotObject;

const UnreadStream = z.object({ stream_id: int(), topic: z.string(), unread_message_ids: ids() });
const UnreadPm = z.object({ other_user_id: int(), sender_id: int(), unread_message_ids: ids() });
const UnreadHuddle = z.object({ user_ids_string: z.string(), unread_message_ids: ids() });
export const UnreadMsgs = z.object({
  count: int(),
  pms: z.array(UnreadPm),
  streams: z.array(UnreadStream),
  huddles: z.array(UnreadHuddle),
  mentions: ids(),
  old_unreads_missing: z.boolean(),
});
export type UnreadMsgs = z.infer<typeof UnreadMsgs>;

const UserTopicState = z.object({ stream_id: int(), topic_name: z.string(), last_updated: int(), visibility_policy: int() });

/** Settings are not configurable yet: every user has Zulip's defaults, except the time zone. */
export const UserSettings = z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]));

/** register's lists of users, which accounts sends already serialized (a BusReply's `json`). */
export const RealmUsersMembers = z.object({ realm_users: z.array(RealmUser).optional(), realm_non_active_users: z.array(RealmUser).optional() });

/** Accounts' sections. `realm` carries the organization's settings as `realm_*` members. */
export const AccountsState = z.object({
  realm: z.record(z.string(), z.unknown()).optional(),
  /** The caller's own account, as Zulip's `realm_user` section gives it beside the lists. */
  me: z.record(z.string(), z.unknown()).optional(),
  realm_users: z.array(RealmUser).optional(),
  realm_non_active_users: z.array(RealmUser).optional(),
  /** The system bots (system-bots.ts), marked as Zulip marks them. */
  cross_realm_bots: z.array(RealmUser.extend({ is_system_bot: z.boolean() })).optional(),
  realm_bots: z.array(RealmBot).optional(),
  realm_user_groups: z.array(UserGroup).optional(),
  user_settings: UserSettings.optional(),
  // The personal and organization tools (issue 15).
  drafts: z.array(StoredDraft).optional(),
  saved_snippets: z.array(StoredSavedSnippet).optional(),
  alert_words: z.array(z.string()).optional(),
  realm_playgrounds: z.array(StoredPlayground).optional(),
  // Linkifiers (issue 17); realm_filters is the same list as pre-4.0 tuples.
  realm_linkifiers: z.array(StoredLinkifier).optional(),
  realm_filters: z.array(z.tuple([z.string(), z.string(), int()])).optional(),
  navigation_views: z.array(StoredNavigationView).optional(),
  /** The user's logged-in devices by id (Zulip's `devices`, fetched with the `device` event type). */
  devices: z.record(z.string(), StoredDevice).optional(),
  realm_user_settings_defaults: z.record(z.string(), z.union([z.boolean(), int(), z.string()])).optional(),
  has_meeting_token: z.boolean().optional(),
  /** Custom emoji by id, deactivated ones included (Zulip's `realm_emoji`). */
  realm_emoji: z.record(z.string(), ApiRealmEmoji).optional(),
  // Allowed email domains (issue 16).
  realm_domains: z.array(z.object({ domain: z.string(), allow_subdomains: z.boolean() })).optional(),
  ...OrgState.shape,
});
export type AccountsState = z.infer<typeof AccountsState>;

export const ChannelsState = z.object({
  subscriptions: z.array(ApiSubscriptionState).optional(),
  unsubscribed: z.array(ApiChannelWithSubscribers).optional(),
  never_subscribed: z.array(ApiChannelWithSubscribers).optional(),
  streams: z.array(ApiChannel).optional(),
  realm_default_streams: ids().optional(),
  channel_folders: z.array(ApiChannelFolder).optional(),
});
export type ChannelsState = z.infer<typeof ChannelsState>;

export const MessagingState = z.object({
  max_message_id: int().optional(),
  unread_msgs: UnreadMsgs.optional(),
  recent_private_conversations: z.array(z.object({ max_message_id: int(), user_ids: ids() })).optional(),
  user_topics: z.array(UserTopicState).optional(),
  /** The muted topics in Zulip's legacy form, [channel name, topic, date muted] (zulip-terminal reads it). */
  muted_topics: z.array(z.tuple([z.string(), z.string(), int()])).optional(),
  starred_messages: ids().optional(),
  scheduled_messages: z.array(ApiScheduledMessage).optional(),
  reminders: z.array(ApiReminder).optional(),
  muted_users: z.array(z.object({ id: int(), timestamp: int() })).optional(),
});
export type MessagingState = z.infer<typeof MessagingState>;

/** Sections no service fills yet: present and empty until their feature is built. */
export const UnbuiltState = z.object({
  presences: z.record(z.string(), z.record(z.string(), z.unknown())).optional(),
  server_timestamp: z.number().optional(),
  presence_last_update_id: int().optional(),
  realm_default_stream_groups: z.array(z.record(z.string(), z.unknown())).optional(),
  onboarding_steps: z.array(z.record(z.string(), z.unknown())).optional(),
  has_zoom_token: z.boolean().optional(),
  giphy_api_key: z.string().optional(),
  video_chat_provider: int().optional(),
});

/**
 * Every client event type a queue may ask for (Zulip's), with the service whose state its
 * events update (null: ephemeral or not a state change). An event type outside this table
 * is refused at registration.
 */
export const EVENT_TYPE_OWNERS: Readonly<Record<string, ServiceName | null>> = {
  alert_words: 'accounts',
  attachment: null,
  channel_folder: 'channels',
  custom_profile_fields: 'accounts',
  default_stream_groups: null,
  default_streams: 'channels',
  delete_message: 'messaging',
  device: 'accounts',
  drafts: 'accounts',
  has_meeting_token: 'accounts',
  has_zoom_token: null,
  heartbeat: null,
  invites_changed: null,
  message: 'messaging',
  muted_topics: 'messaging',
  muted_users: 'messaging',
  navigation_view: 'accounts',
  onboarding_steps: null,
  presence: null,
  reaction: 'messaging',
  realm: 'accounts',
  realm_bot: 'accounts',
  realm_domains: 'accounts',
  realm_emoji: 'accounts',
  realm_export: null,
  realm_export_consent: null,
  realm_filters: 'accounts',
  realm_linkifiers: 'accounts',
  realm_playgrounds: 'accounts',
  realm_user: 'accounts',
  realm_user_settings_defaults: 'accounts',
  recent_private_conversations: 'messaging',
  reminders: 'messaging',
  restart: null,
  saved_snippets: 'accounts',
  scheduled_messages: 'messaging',
  starred_messages: 'messaging',
  stream: 'channels',
  submessage: 'messaging',
  subscription: 'channels',
  typing: null,
  typing_edit_message: null,
  update_display_settings: 'accounts',
  update_global_notifications: 'accounts',
  update_message: 'messaging',
  update_message_flags: 'messaging',
  user_group: 'accounts',
  realm_user_groups: 'accounts',
  user_settings: 'accounts',
  user_status: 'accounts',
  user_topic: 'messaging',
  web_reload_client: null,
};

export const isKnownEventType = (type: string): boolean => Object.hasOwn(EVENT_TYPE_OWNERS, type);

/** What every owner's state contract takes: which client event types' sections to build. */
export const StateParams = z.object({
  fetch_event_types: z.array(z.string()).nullable(),
  include_subscribers: z.union([z.boolean(), z.literal('partial')]),
  client_gravatar: z.boolean(),
  archived_channels: z.boolean(),
  /** Client capability: deactivated user groups are listed (and deactivation is an update, not a removal). */
  include_deactivated_groups: z.boolean().optional(),
});
export type StateParams = z.infer<typeof StateParams>;

/** Whether a section for `type` is wanted (null: every section). */
export const wantsState = (params: Pick<StateParams, 'fetch_event_types'>, type: string): boolean =>
  params.fetch_event_types === null || params.fetch_event_types.includes(type);

const stateReply = <S extends z.ZodObject>(state: S) => z.object({ state });

export const accountsStateEndpoints = {
  registerState: endpoint({
    service: 'accounts',
    subject: 'accounts.register_state',
    auth: true,
    params: StateParams,
    reply: stateReply(AccountsState),
    // The users' lists, already serialized (see services/accounts queries/register-state.ts).
    serialized: RealmUsersMembers,
  }),
};
export const channelsStateEndpoints = {
  registerState: endpoint({
    service: 'channels',
    subject: 'channels.register_state',
    auth: true,
    params: StateParams,
    reply: stateReply(ChannelsState),
    // `streams` and `never_subscribed`, kept serialized per channel (services/channels queries/register-state.ts).
    serialized: ChannelsState.pick({ streams: true, never_subscribed: true }),
  }),
};
export const messagingStateEndpoints = {
  registerState: endpoint({
    service: 'messaging',
    subject: 'messaging.register_state',
    auth: true,
    params: StateParams,
    reply: stateReply(MessagingState),
    // Its sections, serialized in the messaging thread rather than in the one that answers
    // (up to 50,000 unread ids; see services/messaging service.ts).
    serialized: MessagingState,
  }),
};

/** POST /register's reply beyond the queue: every section, each present when its event type was fetched. */
export const RegisterStateReply = {
  ...AccountsState.omit({ realm: true, me: true }).shape,
  ...ChannelsState.shape,
  ...MessagingState.shape,
  ...UnbuiltState.shape,
};
