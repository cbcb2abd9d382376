/**
 * What the official Zulip apps' decoders require of this server's replies, as a table the
 * suites check every reply and event against (harness.ts `Client.request` calls
 * `checkAppFields`): a member the app requires, missing or of another JSON type, fails
 * the test that got the reply.
 *
 * Read from the apps' sources, facts only (no code of theirs is here):
 *  - zulip-flutter (the mobile app), lib/api/model/{initial_snapshot,model,events,
 *    reaction,submessage}.dart and lib/api/route/{realm,account,events,messages,users}.dart
 *    with their generated `*.g.dart` decoders: a field read with `as T` (non-nullable, no
 *    default) is required; `as T?` may be absent or null; a field with a default may be
 *    absent. The app's register sends no event_types or fetch_event_types and the client
 *    capabilities in FLUTTER_CAPABILITIES; it decodes the event types in FLUTTER_EVENTS
 *    and ignores the rest (its `UnexpectedEvent`).
 *  - zulip-terminal, zulipterminal/model.py, helper.py and ui_tools/*.py: the POST /register
 *    members it indexes directly (`initial_data["…"]`; `.get` with a default is optional)
 *    for its own fetch_event_types, and the members its event handlers index.
 *
 * Register members are checked only when the request asked for the event type whose
 * section holds them (`fetch_event_types`, else `event_types`, else everything), as the
 * apps always do; event shapes that depend on a client capability only for queues that
 * declared it (the harness remembers each queue's capabilities).
 */

/** A JSON type as the apps' decoders read it. */
export type Field =
  | 'int'
  | 'number'
  | 'string'
  | 'bool'
  | 'any'
  | { list: Field }
  | { dict: Field }
  | { object: Shape }
  | { nullable: Field }
  | { optional: Field }
  | { oneOf: Field[] };
export type Shape = Readonly<Record<string, Field>>;

const int = 'int' as const;
const str = 'string' as const;
const bool = 'bool' as const;
const any = 'any' as const;
const list = (of: Field): Field => ({ list: of });
const dict = (of: Field): Field => ({ dict: of });
const obj = (shape: Shape): Field => ({ object: shape });
/** `as T?`: may be absent or null, and is of its type when it is there. */
const opt = (of: Field): Field => ({ optional: of });
/** Required key whose value may be null. */
const nullable = (of: Field): Field => ({ nullable: of });
const oneOf = (...of: Field[]): Field => ({ oneOf: of });

/** A group-setting value: a group id or an anonymous group. */
const groupSetting = oneOf(int, obj({ direct_members: list(int), direct_subgroups: list(int) }));

// --- zulip-flutter: shared objects -------------------------------------------------------

const FLUTTER_USER: Shape = {
  user_id: int,
  delivery_email: opt(str),
  email: str,
  full_name: str,
  date_joined: str,
  // `is_active` the app fills in when absent (true in realm_users, false in realm_non_active_users).
  is_active: opt(bool),
  is_bot: bool,
  bot_type: opt(int),
  bot_owner_id: opt(int),
  role: int,
  timezone: str,
  avatar_url: opt(str),
  avatar_version: int,
  profile_data: opt(dict(obj({ value: str, rendered_value: opt(str) }))),
  is_system_bot: opt(bool),
};

const FLUTTER_CHANNEL: Shape = {
  stream_id: int,
  name: str,
  is_archived: opt(bool),
  description: str,
  rendered_description: str,
  date_created: int,
  first_message_id: opt(int),
  invite_only: bool,
  is_web_public: bool,
  history_public_to_subscribers: bool,
  message_retention_days: opt(int),
  topics_policy: opt(str),
  stream_post_policy: opt(int),
  folder_id: opt(int),
  can_add_subscribers_group: opt(groupSetting),
  can_delete_any_message_group: opt(groupSetting),
  can_delete_own_message_group: opt(groupSetting),
  can_send_message_group: opt(groupSetting),
  can_subscribe_group: opt(groupSetting),
  is_recently_active: opt(bool),
  stream_weekly_traffic: opt(int),
};

const FLUTTER_SUBSCRIPTION: Shape = {
  ...FLUTTER_CHANNEL,
  desktop_notifications: opt(bool),
  email_notifications: opt(bool),
  wildcard_mentions_notify: opt(bool),
  push_notifications: opt(bool),
  audible_notifications: opt(bool),
  pin_to_top: bool,
  is_muted: bool,
  /** `#rrggbb`. */
  color: str,
};

const FLUTTER_USER_GROUP: Shape = {
  id: int,
  members: list(int),
  direct_subgroup_ids: list(int),
  name: str,
  description: str,
  is_system_group: bool,
  deactivated: opt(bool),
};

const FLUTTER_CUSTOM_PROFILE_FIELD: Shape = {
  id: int,
  type: int,
  order: int,
  name: str,
  hint: str,
  field_data: str,
  display_in_profile_summary: opt(bool),
};

const FLUTTER_REALM_EMOJI: Shape = { id: str, name: str, source_url: str, still_url: opt(str), deactivated: bool, author_id: opt(int) };

const FLUTTER_REACTION = obj({ emoji_name: str, emoji_code: str, reaction_type: str, user_id: int });

const FLUTTER_SUBMESSAGE = obj({ msg_type: str, content: str, sender_id: int });

/** A message as `Message.fromJson` reads it (GET /messages, GET /messages/{id}, `message` events). */
const FLUTTER_MESSAGE_COMMON: Shape = {
  type: str,
  client: str,
  content: str,
  content_type: str,
  id: int,
  is_me_message: bool,
  last_edit_timestamp: opt(int),
  edit_history: opt(list(obj({}))),
  reactions: list(FLUTTER_REACTION),
  sender_email: str,
  sender_full_name: str,
  sender_id: int,
  sender_realm_str: str,
  timestamp: int,
  flags: list(str),
  match_content: opt(str),
  match_subject: opt(str),
  submessages: opt(list(FLUTTER_SUBMESSAGE)),
};
export const FLUTTER_STREAM_MESSAGE: Shape = { ...FLUTTER_MESSAGE_COMMON, stream_id: int, subject: str, display_recipient: str };
export const FLUTTER_DM_MESSAGE: Shape = { ...FLUTTER_MESSAGE_COMMON, display_recipient: list(obj({ id: int })) };

// --- zulip-flutter: replies --------------------------------------------------------------

/** `GetServerSettingsResult`. */
export const FLUTTER_SERVER_SETTINGS: Shape = {
  authentication_methods: obj({ ldap: bool }),
  external_authentication_methods: list(obj({ name: str, display_name: str, display_icon: nullable(str), login_url: str, signup_url: str })),
  zulip_feature_level: int,
  zulip_version: str,
  zulip_merge_base: str,
  push_notifications_enabled: bool,
  is_incompatible: bool,
  email_auth_enabled: bool,
  require_email_format_usernames: bool,
  realm_uri: str,
  realm_name: str,
  realm_icon: str,
  realm_description: str,
  realm_web_public_access_enabled: bool,
};

/** The client capabilities the app's register declares. */
export const FLUTTER_CAPABILITIES = {
  notification_settings_null: true,
  bulk_message_deletion: true,
  user_avatar_url_field_optional: true,
  stream_typing_notifications: true,
  user_settings_object: true,
  include_deactivated_groups: true,
  empty_topic_name: true,
  individual_emoji_changes: true,
} as const;

/** The app's own POST /register parameters. */
export const FLUTTER_REGISTER_PARAMS = {
  apply_markdown: true,
  client_gravatar: false,
  slim_presence: true,
  client_capabilities: FLUTTER_CAPABILITIES,
};

/** The event type whose section holds a register member, all of several, or null: always there. */
type FetchedBy = string | readonly string[] | null;
/** Marks a member whose form is the slim presence one, checked only for requests asking for it. */
const SLIM_PRESENCE = 'presence+slim';
/**
 * The legacy `muted_topics`, which this server gives only to clients naming the type in
 * fetch_event_types (as zulip-terminal does): no `muted_topics` event keeps it current yet.
 */
const NAMED_MUTED_TOPICS = 'muted_topics+named';
/** Zulip sends the unread messages to clients that fetch both. */
const UNREADS = ['message', 'update_message_flags'] as const;

/**
 * `InitialSnapshot`, each member with the event type whose section holds it (Zulip's
 * `fetch_initial_state_data`; null: always there).
 */
export const FLUTTER_REGISTER: Readonly<Record<string, readonly [FetchedBy, Field]>> = {
  queue_id: [null, opt(str)],
  last_event_id: [null, int],
  zulip_feature_level: [null, int],
  zulip_version: [null, str],
  zulip_merge_base: [null, str],
  alert_words: ['alert_words', list(str)],
  custom_profile_fields: ['custom_profile_fields', list(obj(FLUTTER_CUSTOM_PROFILE_FIELD))],
  max_stream_name_length: ['realm', int],
  max_topic_length: ['realm', int],
  server_presence_ping_interval_seconds: ['realm', int],
  server_presence_offline_threshold_seconds: ['realm', int],
  server_typing_started_expiry_period_milliseconds: ['realm', opt(int)],
  server_typing_stopped_wait_period_milliseconds: ['realm', opt(int)],
  server_typing_started_wait_period_milliseconds: ['realm', opt(int)],
  muted_users: ['muted_users', list(obj({ id: int }))],
  // The slim form, keyed by user id, which the app asks for (`slim_presence`); others get Zulip's older form.
  presences: [SLIM_PRESENCE, dict(obj({ active_timestamp: int, idle_timestamp: int }))],
  realm_emoji: ['realm_emoji', dict(obj(FLUTTER_REALM_EMOJI))],
  realm_user_groups: ['realm_user_groups', list(obj(FLUTTER_USER_GROUP))],
  recent_private_conversations: ['recent_private_conversations', list(obj({ max_message_id: int, user_ids: list(int) }))],
  saved_snippets: ['saved_snippets', opt(list(obj({ id: int, title: str, content: str, date_created: int })))],
  subscriptions: ['subscription', list(obj(FLUTTER_SUBSCRIPTION))],
  channel_folders: ['channel_folders', opt(list(obj({ id: int, name: str, order: opt(int), date_created: opt(int), creator_id: opt(int), description: str, rendered_description: str, is_archived: bool })))],
  unread_msgs: [
    UNREADS,
    obj({
      count: int,
      pms: list(obj({ other_user_id: int, unread_message_ids: list(int) })),
      streams: list(obj({ topic: str, stream_id: int, unread_message_ids: list(int) })),
      huddles: list(obj({ user_ids_string: str, unread_message_ids: list(int) })),
      mentions: list(int),
      old_unreads_missing: bool,
    }),
  ],
  starred_messages: ['starred_messages', list(int)],
  streams: ['stream', list(obj(FLUTTER_CHANNEL))],
  user_status: ['user_status', dict(obj({ status_text: opt(str), emoji_name: opt(str), emoji_code: opt(str), reaction_type: opt(str) }))],
  user_settings: [
    'user_settings',
    obj({ twenty_four_hour_time: opt(bool), starred_message_counts: bool, display_emoji_reaction_users: bool, emojiset: str, web_inbox_show_channel_folders: opt(bool), presence_enabled: bool }),
  ],
  user_topics: ['user_topic', list(obj({ stream_id: int, topic_name: str, last_updated: int, visibility_policy: int }))],
  devices: ['device', opt(dict(obj({ push_key_id: opt(int), push_token_id: opt(str), pending_push_token_id: opt(str), push_token_last_updated_timestamp: opt(int), push_registration_error_code: opt(str) })))],
  realm_can_delete_any_message_group: ['realm', opt(groupSetting)],
  realm_can_delete_own_message_group: ['realm', opt(groupSetting)],
  realm_delete_own_message_policy: ['realm', opt(int)],
  realm_wildcard_mention_policy: ['realm', int],
  realm_topics_policy: ['realm', opt(str)],
  realm_mandatory_topics: ['realm', opt(bool)],
  realm_name: ['realm', str],
  realm_waiting_period_threshold: ['realm', int],
  realm_message_content_delete_limit_seconds: ['realm', opt(int)],
  realm_allow_message_editing: ['realm', bool],
  realm_message_content_edit_limit_seconds: ['realm', opt(int)],
  realm_enable_read_receipts: ['realm', bool],
  realm_icon_url: ['realm', str],
  realm_presence_disabled: ['realm', bool],
  realm_default_external_accounts: ['realm', dict(obj({ name: str, text: str, hint: str, url_pattern: str }))],
  max_file_upload_size_mib: ['realm', int],
  server_thumbnail_formats: ['realm', opt(list(obj({ name: str, max_width: int, max_height: int, animated: bool, format: str })))],
  server_emoji_data_url: ['realm', str],
  event_queue_longpoll_timeout_seconds: [null, int],
  realm_moderation_request_channel_id: ['realm', opt(int)],
  realm_empty_topic_display_name: ['realm', opt(str)],
  realm_users: ['realm_user', list(obj(FLUTTER_USER))],
  realm_non_active_users: ['realm_user', list(obj(FLUTTER_USER))],
  cross_realm_bots: ['realm_user', list(obj(FLUTTER_USER))],
  server_report_message_types: ['realm', opt(list(obj({ key: str, name: str })))],
};

/** `GetMessagesResult` (GET /messages); its messages are checked as messages. */
export const FLUTTER_GET_MESSAGES: Shape = { anchor: int, found_newest: bool, found_oldest: bool, found_anchor: bool, history_limited: bool, messages: list(any) };

// --- zulip-flutter: events ---------------------------------------------------------------

type EventTable = Readonly<Record<string, { shape: Shape; capability?: string; withoutCapability?: string }>>;

/** Per `type` or `type/op`, what the app's `Event.fromJson` reads; other ops are ignored. */
export const FLUTTER_EVENTS: EventTable = {
  'realm_emoji/add': { shape: { emoji: obj(FLUTTER_REALM_EMOJI) } },
  'realm_emoji/update_one': { shape: { emoji_id: str, data: obj({ deactivated: opt(bool) }) } },
  'realm_emoji/update': { shape: { realm_emoji: dict(obj(FLUTTER_REALM_EMOJI)) } },
  alert_words: { shape: { alert_words: list(str) } },
  'user_settings/update': { shape: { property: str, value: any } },
  'device/add': { shape: { device_id: int } },
  'device/remove': { shape: { device_id: int } },
  'device/update': { shape: { device_id: int } },
  custom_profile_fields: { shape: { fields: list(obj(FLUTTER_CUSTOM_PROFILE_FIELD)) } },
  'user_group/add': { shape: { group: obj(FLUTTER_USER_GROUP) } },
  'user_group/update': { shape: { group_id: int, data: obj({ name: opt(str), description: opt(str), deactivated: opt(bool) }) } },
  'user_group/add_members': { shape: { group_id: int, user_ids: list(int) } },
  'user_group/remove_members': { shape: { group_id: int, user_ids: list(int) } },
  'user_group/add_subgroups': { shape: { group_id: int, direct_subgroup_ids: list(int) } },
  'user_group/remove_subgroups': { shape: { group_id: int, direct_subgroup_ids: list(int) } },
  'user_group/remove': { shape: { group_id: int } },
  'realm_user/add': { shape: { person: obj(FLUTTER_USER) } },
  'realm_user/remove': { shape: { person: obj({ user_id: int }) } },
  'realm_user/update': {
    shape: {
      person: obj({ user_id: int, full_name: opt(str), avatar_url: opt(str), avatar_version: opt(int), timezone: opt(str), bot_owner_id: opt(int), role: opt(int), new_email: opt(str), is_active: opt(bool) }),
    },
  },
  'saved_snippets/add': { shape: { saved_snippet: obj({ id: int, title: str, content: str, date_created: int }) } },
  'saved_snippets/update': { shape: { saved_snippet: obj({ id: int, title: str, content: str, date_created: int }) } },
  'saved_snippets/remove': { shape: { saved_snippet_id: int } },
  'stream/create': { shape: { streams: list(obj(FLUTTER_CHANNEL)) } },
  // `stream_ids`, or else `streams` with their ids.
  'stream/delete': { shape: { stream_ids: opt(list(int)), streams: opt(list(obj({ stream_id: int }))) } },
  'stream/update': { shape: { stream_id: int, name: str, property: str, value: any, rendered_description: opt(str), history_public_to_subscribers: opt(bool), is_web_public: opt(bool) } },
  'subscription/add': { shape: { subscriptions: list(obj(FLUTTER_SUBSCRIPTION)) } },
  'subscription/remove': { shape: { subscriptions: list(obj({ stream_id: int })) } },
  'subscription/update': { shape: { stream_id: int, property: str, value: any } },
  'subscription/peer_add': { shape: { stream_ids: list(int), user_ids: list(int) } },
  'subscription/peer_remove': { shape: { stream_ids: list(int), user_ids: list(int) } },
  'channel_folder/add': { shape: { channel_folder: obj({ id: int, name: str, description: str, rendered_description: str, is_archived: bool }) } },
  'channel_folder/reorder': { shape: { order: list(int) } },
  'channel_folder/update': { shape: { channel_folder_id: int, data: obj({}) } },
  user_status: { shape: { user_id: int } },
  user_topic: { shape: { stream_id: int, topic_name: str, last_updated: int, visibility_policy: int } },
  muted_users: { shape: { muted_users: list(obj({ id: int })) } },
  message: { shape: { message: obj({}), flags: list(str), local_message_id: opt(str) } },
  update_message: { shape: { user_id: opt(int), rendering_only: bool, message_id: int, message_ids: list(int), flags: list(str), edit_timestamp: int, stream_id: opt(int), new_stream_id: opt(int), orig_subject: opt(str), subject: opt(str), propagate_mode: opt(str), orig_content: opt(str), orig_rendered_content: opt(str), content: opt(str), rendered_content: opt(str), is_me_message: opt(bool) } },
  // The legacy form (one `message_id`) is for clients without the capability.
  delete_message: { shape: { message_ids: list(int), message_type: str, stream_id: opt(int), topic: opt(str) }, capability: 'bulk_message_deletion' },
  'update_message_flags/add': { shape: { flag: str, messages: list(int), all: bool } },
  'update_message_flags/remove': { shape: { flag: str, messages: list(int), message_details: opt(dict(obj({ type: str, mentioned: opt(bool), user_ids: opt(list(int)), stream_id: opt(int), topic: opt(str) }))) } },
  submessage: { shape: { msg_type: str, content: str, message_id: int, sender_id: int, submessage_id: int } },
  typing: { shape: { op: str, message_type: str, sender: obj({ user_id: int }), recipients: opt(list(obj({ user_id: int }))), stream_id: opt(int), topic: opt(str) } },
  // The form for clients without `simplified_presence_events` (the app does not declare it); the time is a float.
  presence: { shape: { user_id: int, server_timestamp: 'number', presence: dict(obj({ client: str, status: str, timestamp: int, pushable: bool })) }, withoutCapability: 'simplified_presence_events' },
  reaction: { shape: { op: str, emoji_name: str, emoji_code: str, reaction_type: str, user_id: int, message_id: int } },
  heartbeat: { shape: {} },
};

// --- zulip-terminal ----------------------------------------------------------------------

/** Its fetch_event_types (`initial_data_to_fetch`; `zulip_version` is no event type: servers ignore it). */
export const TERMINAL_FETCH_EVENT_TYPES = [
  'realm',
  'presence',
  'subscription',
  'message',
  'starred_messages',
  'update_message_flags',
  'muted_topics',
  'realm_user',
  'realm_user_groups',
  'user_settings',
  'realm_emoji',
  'custom_profile_fields',
  'zulip_version',
] as const;

/** Its event_types (the keys of `event_actions`). */
export const TERMINAL_EVENT_TYPES = ['message', 'update_message', 'reaction', 'submessage', 'subscription', 'typing', 'update_message_flags', 'user_settings', 'realm_emoji', 'realm_user'] as const;

export const TERMINAL_REGISTER_PARAMS = {
  event_types: TERMINAL_EVENT_TYPES,
  fetch_event_types: TERMINAL_FETCH_EVENT_TYPES,
  client_gravatar: true,
  apply_markdown: true,
  include_subscribers: true,
};

/** The POST /register members it indexes, with the event type that brings each. */
export const TERMINAL_REGISTER: Readonly<Record<string, readonly [FetchedBy, Field]>> = {
  zulip_version: [null, str],
  queue_id: [null, str],
  last_event_id: [null, int],
  max_message_id: ['message', int],
  user_id: ['realm_user', int],
  email: ['realm_user', str],
  full_name: ['realm_user', str],
  realm_name: ['realm', str],
  realm_message_retention_days: ['realm', nullable(int)],
  realm_allow_message_editing: ['realm', bool],
  realm_allow_edit_history: ['realm', bool],
  subscriptions: [
    'subscription',
    list(obj({ stream_id: int, name: str, color: str, description: str, pin_to_top: bool, is_muted: bool, desktop_notifications: nullable(bool), message_retention_days: nullable(int), date_created: int, invite_only: bool, is_web_public: bool })),
  ],
  muted_topics: [NAMED_MUTED_TOPICS, list(list(any))],
  realm_user_groups: ['realm_user_groups', list(obj({ id: int, name: str, members: list(int) }))],
  realm_emoji: ['realm_emoji', dict(obj({ name: str, deactivated: bool }))],
  user_settings: ['user_settings', obj({ send_private_typing_notifications: bool, twenty_four_hour_time: bool, pm_content_in_desktop_notifications: bool })],
  presences: ['presence', dict(dict(any))],
  realm_users: ['realm_user', list(obj({ user_id: int, full_name: str, email: str, is_bot: bool }))],
  cross_realm_bots: ['realm_user', list(obj({ user_id: int, full_name: str, email: str }))],
  unread_msgs: [
    UNREADS,
    obj({
      mentions: list(int),
      pms: list(obj({ sender_id: int, unread_message_ids: list(int) })),
      streams: list(obj({ stream_id: int, topic: str, unread_message_ids: list(int) })),
      huddles: list(obj({ user_ids_string: str, unread_message_ids: list(int) })),
    }),
  ],
  starred_messages: ['starred_messages', list(int)],
  custom_profile_fields: ['custom_profile_fields', list(obj({ id: int, type: int, field_data: str }))],
};

/** What its handlers index, per event type (op-specific members are read only for their op). */
export const TERMINAL_EVENTS: EventTable = {
  message: { shape: { message: obj({ id: int, type: str, sender_id: int, content: str }) } },
  update_message: { shape: { message_id: int } },
  reaction: { shape: { op: str, message_id: int, emoji_code: str } },
  subscription: { shape: { op: str } },
  'subscription/peer_add': { shape: { stream_ids: list(int), user_ids: list(int) } },
  'subscription/peer_remove': { shape: { stream_ids: list(int), user_ids: list(int) } },
  'subscription/update': { shape: { stream_id: int, property: str, value: any } },
  typing: { shape: { op: str, sender: obj({ user_id: int, email: str }) } },
  update_message_flags: { shape: { op: str, all: bool, flag: str, messages: list(int) } },
  user_settings: { shape: { op: str, property: str, value: any } },
  // Without `individual_emoji_changes` (which it does not declare) the whole list, as op `update`.
  realm_emoji: { shape: { realm_emoji: dict(obj({ name: str, deactivated: bool })) }, withoutCapability: 'individual_emoji_changes' },
  realm_user: { shape: { op: str, person: obj({ user_id: int }) } },
  submessage: { shape: { content: str, message_id: int, msg_type: str, sender_id: int, submessage_id: int } },
};

// --- the check ---------------------------------------------------------------------------

const typeName = (value: unknown): string => (value === null ? 'null' : Array.isArray(value) ? 'list' : typeof value);

/** Where `value` at `path` is not a `field`: one line per violation. */
export function violationsOf(value: unknown, field: Field, path: string): string[] {
  if (field === 'any') return [];
  if (typeof field === 'string') {
    const ok =
      field === 'int' ? Number.isInteger(value) : field === 'number' ? typeof value === 'number' : field === 'string' ? typeof value === 'string' : typeof value === 'boolean';
    return ok ? [] : [`${path}: ${field} expected, ${typeName(value)} found`];
  }
  if ('optional' in field || 'nullable' in field) {
    const inner = 'optional' in field ? field.optional : field.nullable;
    return value === null || value === undefined ? [] : violationsOf(value, inner, path);
  }
  if ('oneOf' in field) {
    const each = field.oneOf.map((f) => violationsOf(value, f, path));
    return each.some((v) => v.length === 0) ? [] : each[0]!;
  }
  if ('list' in field) {
    if (!Array.isArray(value)) return [`${path}: list expected, ${typeName(value)} found`];
    return value.flatMap((item, i) => violationsOf(item, field.list, `${path}[${i}]`));
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${path}: object expected, ${typeName(value)} found`];
  const record = value as Record<string, unknown>;
  if ('dict' in field) return Object.entries(record).flatMap(([key, item]) => violationsOf(item, field.dict, `${path}.${key}`));
  return shapeViolations(record, field.object, path);
}

function shapeViolations(record: Record<string, unknown>, shape: Shape, path: string): string[] {
  return Object.entries(shape).flatMap(([key, field]) => {
    const optional = typeof field === 'object' && 'optional' in field;
    if (!(key in record)) return optional ? [] : [`${path}.${key}: missing`];
    return violationsOf(record[key], field, `${path}.${key}`);
  });
}

const messageViolations = (message: unknown, path: string): string[] => {
  const type = (message as { type?: unknown } | null)?.type;
  return violationsOf(message, obj(type === 'private' ? FLUTTER_DM_MESSAGE : FLUTTER_STREAM_MESSAGE), `${path}(flutter)`);
};

/** What a queue was registered with: the event types it gets state for and its capabilities. */
export interface RegisterRequest {
  event_types?: readonly string[];
  fetch_event_types?: readonly string[];
  client_capabilities?: Readonly<Record<string, unknown>>;
  /** `slim_presence` or the `simplified_presence_events` capability: presences keyed by user id. */
  slim?: boolean;
}

const parseList = (value: unknown): readonly string[] | undefined => {
  const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
  return Array.isArray(parsed) ? (parsed as string[]) : undefined;
};

/** The register parameters as the test client sent them (JSON-encoded strings or values). */
export function registerRequestOf(params: Record<string, unknown>): RegisterRequest {
  try {
    const capabilities = typeof params.client_capabilities === 'string' ? JSON.parse(params.client_capabilities) : params.client_capabilities;
    const event_types = parseList(params.event_types);
    const fetch_event_types = parseList(params.fetch_event_types);
    const slim = params.slim_presence === true || params.slim_presence === 'true' || capabilities?.simplified_presence_events === true;
    return {
      ...(slim ? { slim } : {}),
      ...(event_types ? { event_types } : {}),
      ...(fetch_event_types ? { fetch_event_types } : {}),
      ...(capabilities && typeof capabilities === 'object' && !Array.isArray(capabilities) ? { client_capabilities: capabilities } : {}),
    };
  } catch {
    return {};
  }
}

function registerViolations(body: Record<string, unknown>, request: RegisterRequest): string[] {
  const wanted = request.fetch_event_types ?? request.event_types;
  const fetched = (by: FetchedBy): boolean =>
    by === SLIM_PRESENCE
      ? request.slim === true && fetched('presence')
      : by === NAMED_MUTED_TOPICS
        ? request.fetch_event_types?.includes('muted_topics') === true
        : by === null || wanted === undefined || (typeof by === 'string' ? [by] : by).every((type) => wanted.includes(type));
  const check = (table: typeof FLUTTER_REGISTER, app: string) =>
    Object.entries(table).flatMap(([key, [type, field]]) => (fetched(type) ? shapeViolations(body, { [key]: field }, `register(${app})`) : []));
  return [...check(FLUTTER_REGISTER, 'flutter'), ...check(TERMINAL_REGISTER, 'terminal')];
}

function eventViolations(event: Record<string, unknown>, capabilities: Readonly<Record<string, unknown>> | undefined): string[] {
  const keys = [String(event.type), `${String(event.type)}/${String(event.op)}`];
  const out: string[] = [];
  for (const [app, table] of [['flutter', FLUTTER_EVENTS], ['terminal', TERMINAL_EVENTS]] as const) {
    for (const key of keys) {
      const entry = table[key];
      if (!entry) continue;
      // A capability's form is known only for queues this client registered.
      if (entry.capability && capabilities?.[entry.capability] !== true) continue;
      if (entry.withoutCapability && (capabilities === undefined || capabilities[entry.withoutCapability] === true)) continue;
      out.push(...shapeViolations(event, { id: int, type: str, ...entry.shape }, `event ${key} (${app})`));
    }
  }
  if (event.type === 'message') out.push(...messageViolations({ ...(event.message as object), flags: event.flags }, 'event message.message'));
  return out;
}

/**
 * Every violation of the apps' table in one successful reply: `request` is the method,
 * the path under /api/v1 and the parameters sent; `queues` what each queue this client
 * registered asked for.
 */
export function checkAppFields(
  request: { method: string; path: string; params: Record<string, unknown> },
  body: Record<string, unknown>,
  queues: ReadonlyMap<string, RegisterRequest>,
): string[] {
  if (body.result !== 'success') return [];
  const { method, path } = request;
  const route = path.split('?')[0]!;
  if (method === 'GET' && route === '/server_settings') return shapeViolations(body, FLUTTER_SERVER_SETTINGS, 'server_settings(flutter)');
  if (method === 'POST' && route === '/register') return registerViolations(body, registerRequestOf(request.params));
  if (method === 'GET' && route === '/events' && Array.isArray(body.events)) {
    const queueId = typeof request.params.queue_id === 'string' ? request.params.queue_id : body.queue_id;
    const capabilities = typeof queueId === 'string' ? queues.get(queueId)?.client_capabilities ?? (queues.has(queueId) ? {} : undefined) : undefined;
    return (body.events as Record<string, unknown>[]).flatMap((event) => eventViolations(event, capabilities));
  }
  if (method === 'GET' && route === '/messages') {
    return [
      // The app reads pages around an anchor; by `message_ids` Zulip answers without one.
      ...(request.params.message_ids === undefined ? shapeViolations(body, FLUTTER_GET_MESSAGES, 'messages(flutter)') : []),
      ...(Array.isArray(body.messages) ? body.messages.flatMap((m, i) => messageViolations(m, `messages.messages[${i}]`)) : []),
    ];
  }
  if (method === 'GET' && /^\/messages\/\d+$/.test(route) && body.message) return messageViolations(body.message, 'message');
  return [];
}
