/**
 * The one reducer of a Zulip client's state: the reply of POST /register, kept current by
 * applying each event of its queue in order, as zulip-flutter's PerAccountStore does. The
 * web client (apps/web) and the convergence tests (apps/server/test/convergence.ts) both
 * apply events with this code, so the convergence suite checks the client's own reducer
 * against fresh registrations.
 *
 * Pure TypeScript, no DOM and no I/O. The state is mutated in place (the caller clones
 * where it needs a snapshot). An event type it does not know throws: a new event needs
 * its case here, or the convergence suite fails.
 */

/** A registration's state: POST /register's reply less the members that are not state. */
export type State = Record<string, any>;
type Event = Record<string, any>;
// Global in browsers and Node 17+; declared here so that the library needs neither DOM nor Node types.
declare const structuredClone: <T>(value: T) => T;

/** The registration members that are not state: they differ between two registrations. */
export const NOT_STATE = new Set([
  'result', 'msg', 'queue_id', 'last_event_id', 'ignored_parameters_unsupported', 'server_timestamp',
  // The cursor for polling POST /users/me/presence: no event carries it.
  'presence_last_update_id',
]);

export function stateOf(registration: Record<string, any>): State {
  return Object.fromEntries(Object.entries(registration).filter(([key]) => !NOT_STATE.has(key)));
}

/** Marks a state whose max_message_id a deletion made unknowable to a client. */
export const MAX_ID_UNKNOWN = '(max_message_id unknown)';

const byId = (list: Event[]) => [...list].sort((a, b) => a.stream_id - b.stream_id);
const without = <T>(list: T[], drop: (item: T) => boolean) => list.filter((item) => !drop(item));
const sortedIds = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);

/** Where an unread message is counted: its conversation, as unread_msgs groups them. */
export interface UnreadPlace {
  kind: 'stream' | 'pm' | 'huddle';
  key: string;
}

export function unreadPlaceOf(message: Event, self: number): UnreadPlace {
  if (message.type === 'stream') return { kind: 'stream', key: JSON.stringify([message.stream_id, message.subject]) };
  const others = (message.display_recipient as { id: number }[]).map((u) => u.id).filter((id) => id !== self);
  if (others.length <= 1) return { kind: 'pm', key: String(others[0] ?? self) };
  return { kind: 'huddle', key: sortedIds([...others, self]).join(',') };
}

/** What the reducer knows of the registration besides its state. */
export interface ReducerOptions {
  self: number;
  /** Whether the registration asked for subscriber lists (include_subscribers). */
  includeSubscribers: boolean;
  /** Whether the registration computes the provider's avatar URLs itself (client_gravatar). */
  clientGravatar?: boolean;
}

/**
 * Applies one event to a registration's state, as a Zulip client does. An event type it
 * does not know fails the check: a new event needs its case here.
 */
export function applyEvent(state: State, event: Event, options: ReducerOptions): void {
  applyEventToState(state, event, options);
  // Muting a channel or a topic changes the count as much as a new message does.
  if ('unread_msgs' in state) state.unread_msgs.count = countUnreads(state);
}

function applyEventToState(state: State, event: Event, options: ReducerOptions): void {
  const { self } = options;
  switch (event.type) {
    case 'heartbeat':
      return;
    case 'message': {
      const message = event.message;
      if ('max_message_id' in state) state.max_message_id = Math.max(state.max_message_id, message.id);
      if ('unread_msgs' in state && !(event.flags as string[]).includes('read')) addUnread(state, message, self, event.flags);
      if ('recent_private_conversations' in state && message.type === 'private') {
        const userIds = sortedIds((message.display_recipient as { id: number }[]).map((u) => u.id).filter((id) => id !== self));
        const conversations = state.recent_private_conversations as { user_ids: number[]; max_message_id: number }[];
        const existing = conversations.find((c) => JSON.stringify(c.user_ids) === JSON.stringify(userIds));
        if (existing) existing.max_message_id = Math.max(existing.max_message_id, message.id);
        else conversations.push({ user_ids: userIds, max_message_id: message.id });
        conversations.sort((a, b) => b.max_message_id - a.max_message_id);
      }
      if ('starred_messages' in state && (event.flags as string[]).includes('starred')) {
        state.starred_messages = sortedIds([...state.starred_messages, message.id]);
      }
      return;
    }
    case 'update_message': {
      if (event.new_stream_id !== undefined || event.subject !== undefined) moveUnreads(state, event);
      return;
    }
    case 'delete_message': {
      // One message per event for clients without bulk_message_deletion.
      const gone = new Set<number>(event.message_ids ?? [event.message_id]);
      // The next lower id is not in any event: only the server can say (Zulip's own
      // apply_events asks the database); the comparison takes the fresh value then.
      if ('max_message_id' in state && gone.has(state.max_message_id)) state[MAX_ID_UNKNOWN] = true;
      if ('unread_msgs' in state) removeUnreads(state, gone);
      if ('starred_messages' in state) state.starred_messages = state.starred_messages.filter((id: number) => !gone.has(id));
      return;
    }
    case 'reaction':
      return;
    // Widgets' submessages live on messages, which no registration holds.
    case 'submessage':
      return;
    case 'update_message_flags': {
      const ids = new Set<number>(event.messages);
      if (event.flag === 'read' && 'unread_msgs' in state) {
        if (event.op === 'add') removeUnreads(state, ids);
        else for (const [id, details] of Object.entries(event.message_details ?? {})) addUnreadFromDetails(state, Number(id), details as Event, self);
      }
      if (event.flag === 'starred' && 'starred_messages' in state) {
        state.starred_messages =
          event.op === 'add' ? sortedIds([...state.starred_messages, ...ids]) : state.starred_messages.filter((id: number) => !ids.has(id));
      }
      return;
    }
    case 'user_topic': {
      if (!('user_topics' in state)) return;
      const rest = without(state.user_topics as Event[], (t) => t.stream_id === event.stream_id && t.topic_name === event.topic_name);
      const { type: _type, id: _id, ...topic } = event;
      state.user_topics = event.visibility_policy === 0 ? rest : [...rest, topic];
      return;
    }
    case 'stream':
      return applyStreamEvent(state, event);
    case 'subscription':
      return applySubscriptionEvent(state, event, options);
    case 'presence': {
      if (!('presences' in state)) return;
      // The simplified form (by user id) is what a client merges; the legacy one needs the server's aggregation.
      if (!event.presences) throw new Error('the reducer takes presence events in the simplified form only');
      Object.assign(state.presences, event.presences);
      return;
    }
    case 'typing':
    case 'typing_edit_message':
      return;
    case 'user_group':
      return applyUserGroupEvent(state, event);
    case 'realm_user':
      return applyRealmUserEvent(state, avatarAsRegistered(event, options.clientGravatar === true), self);
    case 'realm_bot':
      return applyRealmBotEvent(state, event);
    case 'default_streams': {
      if (!('realm_default_streams' in state)) return;
      state.realm_default_streams = event.default_streams;
      return;
    }
    case 'realm_user_settings_defaults':
      if ('realm_user_settings_defaults' in state) state.realm_user_settings_defaults[event.property] = event.value;
      return;
    case 'device': {
      if (!('devices' in state)) return;
      const devices = state.devices as Record<string, Event>;
      const { type: _type, id: _id, op, device_id, ...changes } = event;
      if (op === 'add') {
        devices[device_id] = { push_key_id: null, push_token_id: null, pending_push_token_id: null, push_token_last_updated_timestamp: null, push_registration_error_code: null };
      } else if (op === 'update') Object.assign(devices[device_id] ?? {}, changes);
      else delete devices[device_id];
      return;
    }
    case 'navigation_view': {
      if (!('navigation_views' in state)) return;
      const views = state.navigation_views as Event[];
      if (event.op === 'add') state.navigation_views = [...views, event.navigation_view];
      else if (event.op === 'update') Object.assign(views.find((v) => v.fragment === event.fragment) ?? {}, event.data);
      else state.navigation_views = views.filter((v) => v.fragment !== event.fragment);
      return;
    }
    // Linkifiers: each event carries the whole ordered list, in one form or the other.
    case 'realm_linkifiers':
      if ('realm_linkifiers' in state) state.realm_linkifiers = event.realm_linkifiers;
      return;
    case 'realm_filters':
      if ('realm_filters' in state) state.realm_filters = event.realm_filters;
      return;
    case 'channel_folder': {
      if (!('channel_folders' in state)) return;
      if (event.op === 'add') state.channel_folders = [...state.channel_folders, event.channel_folder];
      else if (event.op === 'update') {
        const folder = (state.channel_folders as Event[]).find((f) => f.id === event.channel_folder_id);
        if (folder) Object.assign(folder, event.data);
      } else if (event.op === 'reorder') {
        // Each folder's order becomes its place in the list; register lists them by order.
        const place = new Map<number, number>((event.order as number[]).map((id, index) => [id, index]));
        for (const folder of state.channel_folders as Event[]) folder.order = place.get(folder.id) ?? folder.order;
        state.channel_folders = [...state.channel_folders].sort((a: Event, b: Event) => a.order - b.order || a.id - b.id);
      } else throw new Error(`the reducer has no case for channel_folder op ${event.op}`);
      return;
    }
    case 'drafts':
    case 'saved_snippets':
    case 'alert_words':
    case 'realm_playgrounds':
    case 'user_settings':
      applyToolsEvent(state, event);
      return;
    case 'realm':
    case 'user_status':
    case 'custom_profile_fields':
      return applyOrgEvent(state, event);
    case 'scheduled_messages':
    case 'reminders':
      applyScheduledEvent(state, event);
      return;
    case 'realm_emoji':
      if (!('realm_emoji' in state)) return;
      // One emoji at a time for a client with individual_emoji_changes; else the whole set after each change.
      if (event.op === 'add') state.realm_emoji = { ...state.realm_emoji, [event.emoji.id]: event.emoji };
      else if (event.op === 'update_one') Object.assign(state.realm_emoji[event.emoji_id], event.data);
      else state.realm_emoji = event.realm_emoji;
      return;
    case 'muted_users':
      // The whole list after each change; what a mute does to unreads comes as flag events.
      if ('muted_users' in state) state.muted_users = event.muted_users;
      return;
    case 'attachment':
      // Zulip's register has no attachments section: GET /attachments lists them.
      return;
    case 'realm_domains':
      if (!state.realm_domains) return;
      if (event.op === 'add') state.realm_domains = [...state.realm_domains, event.realm_domain];
      else if (event.op === 'change') state.realm_domains = (state.realm_domains as Event[]).map((d) => (d.domain === event.realm_domain.domain ? event.realm_domain : d));
      else state.realm_domains = without(state.realm_domains as Event[], (d) => d.domain === event.domain);
      return;
    case 'invites_changed':
      // No state: clients fetch GET /invites again.
      return;
    default:
      throw new Error(`the reducer has no case for a ${event.type} event: add one`);
  }
}

/**
 * An avatar update carries the URLs whatever the client's client_gravatar; such a client
 * keeps null for the provider's avatars, as its registration had them.
 */
function avatarAsRegistered(event: Event, clientGravatar: boolean): Event {
  if (event.op !== 'update' || !clientGravatar || event.person.avatar_source !== 'G') return event;
  return { ...event, person: { ...event.person, avatar_url: null } };
}

const ROLE_FLAGS = (role: number) => ({ is_owner: role === 100, is_admin: role <= 200, is_guest: role === 600 });

/** As a Zulip client keeps its users: active and deactivated apart, by id; a deactivated user leaves every group. */
function applyRealmUserEvent(state: State, event: Event, self: number): void {
  if (!('realm_users' in state)) return;
  // The client's own account, beside the lists, as Zulip's apply_events keeps it.
  if (event.op === 'update' && event.person.user_id === self) {
    const { role, full_name, new_email, delivery_email, avatar_source } = event.person;
    if (avatar_source !== undefined) Object.assign(state, { avatar_source, avatar_url: event.person.avatar_url, avatar_url_medium: event.person.avatar_url_medium });
    if (full_name !== undefined) state.full_name = full_name;
    if (new_email !== undefined) state.email = new_email;
    if (delivery_email !== undefined) state.delivery_email = delivery_email;
    if (role !== undefined) {
      Object.assign(state, ROLE_FLAGS(role), { role, is_moderator: role === 300 });
      for (const key of ['can_create_streams', 'can_create_public_streams', 'can_create_private_streams', 'can_subscribe_other_users']) state[key] = role !== 600;
      state.can_invite_others_to_realm = role <= 200;
    }
  }
  if (event.op === 'add') {
    state.realm_users = [...without(state.realm_users as Event[], (u) => u.user_id === event.person.user_id), structuredClone(event.person)].sort(
      (a, b) => a.user_id - b.user_id,
    );
    return;
  }
  if (event.op !== 'update') throw new Error(`the reducer has no case for realm_user op ${event.op}`);
  if (event.person.custom_profile_field) return applyOrgEvent(state, event);
  const { person } = event;
  const all = [...(state.realm_users as Event[]), ...((state.realm_non_active_users ?? []) as Event[])];
  const user = all.find((u) => u.user_id === person.user_id);
  if (!user) throw new Error(`realm_user update of a user the state does not hold: ${person.user_id}`);
  // A new API email replaces `email`; a time zone's event carries the (deprecated) email as it was.
  // The source and the medium size are the client's own account's only, not the users'.
  const { user_id: _id, new_email, avatar_source: _source, avatar_url_medium: _medium, ...change } = person;
  if (new_email !== undefined) change.email = new_email;
  if (person.timezone !== undefined) delete change.email;
  Object.assign(user, change, person.role === undefined ? {} : ROLE_FLAGS(person.role));
  if (person.is_active !== undefined) {
    const byUserId = (a: Event, b: Event) => a.user_id - b.user_id;
    state.realm_users = all.filter((u) => u.is_active).sort(byUserId);
    state.realm_non_active_users = all.filter((u) => !u.is_active).sort(byUserId);
    if (!person.is_active && 'realm_user_groups' in state) {
      for (const group of state.realm_user_groups as Event[]) group.members = without(group.members as number[], (id) => id === person.user_id);
    }
  }
}

/** Organization settings, user status, custom profile fields and users' values of them. */
function applyOrgEvent(state: State, event: Event): void {
  switch (event.type) {
    case 'realm': {
      const data: Event = event.op === 'update' ? { [event.property]: event.value } : event.op === 'update_dict' && event.property === 'default' ? event.data : {};
      if (event.op !== 'update' && !(event.op === 'update_dict' && event.property === 'default')) throw new Error(`the reducer has no case for realm op ${event.op}`);
      for (const [name, value] of Object.entries(data)) if (`realm_${name}` in state) state[`realm_${name}`] = value;
      return;
    }
    case 'user_status': {
      if (!('user_status' in state)) return;
      const status: Event = { ...(state.user_status[String(event.user_id)] ?? {}) };
      if ('status_text' in event) {
        if (event.status_text === '') delete status.status_text;
        else status.status_text = event.status_text;
      }
      if ('emoji_name' in event) {
        for (const key of ['emoji_name', 'emoji_code', 'reaction_type']) {
          if (event.emoji_name === '') delete status[key];
          else status[key] = event[key];
        }
      }
      if (Object.keys(status).length === 0) delete state.user_status[String(event.user_id)];
      else state.user_status[String(event.user_id)] = status;
      return;
    }
    case 'custom_profile_fields': {
      if ('custom_profile_fields' in state) state.custom_profile_fields = structuredClone(event.fields);
      // A field that is gone takes every user's value of it along (no separate event says so).
      const kept = new Set((event.fields as Event[]).map((f) => String(f.id)));
      for (const key of ['realm_users', 'realm_non_active_users']) {
        for (const user of (state[key] as Event[] | undefined) ?? []) {
          for (const id of Object.keys(user.profile_data ?? {})) if (!kept.has(id)) delete user.profile_data[id];
        }
      }
      return;
    }
    case 'realm_user': {
      const field = event.op === 'update' ? event.person.custom_profile_field : undefined;
      if (!field) throw new Error(`the reducer has no case for this realm_user event: ${JSON.stringify(event)}`);
      for (const key of ['realm_users', 'realm_non_active_users']) {
        const user = (state[key] as Event[] | undefined)?.find((u) => u.user_id === event.person.user_id);
        if (!user) continue;
        if (field.value === null) delete user.profile_data[String(field.id)];
        else user.profile_data[String(field.id)] = { value: field.value };
      }
      return;
    }
  }
}

function applyRealmBotEvent(state: State, event: Event): void {
  if (!('realm_bots' in state)) return;
  const bots = state.realm_bots as Event[];
  switch (event.op) {
    case 'add':
      state.realm_bots = [...without(bots, (b) => b.user_id === event.bot.user_id), structuredClone(event.bot)].sort((a, b) => a.user_id - b.user_id);
      return;
    case 'delete':
      state.realm_bots = without(bots, (b) => b.user_id === event.bot.user_id);
      return;
    case 'update': {
      const bot = bots.find((b) => b.user_id === event.bot.user_id);
      if (!bot) throw new Error(`realm_bot update of a bot the state does not hold: ${event.bot.user_id}`);
      Object.assign(bot, event.bot);
      return;
    }
    default:
      throw new Error(`the reducer has no case for realm_bot op ${event.op}`);
  }
}

function applyUserGroupEvent(state: State, event: Event): void {
  if (!('realm_user_groups' in state)) return;
  const groups = state.realm_user_groups as Event[];
  if (event.op === 'add') {
    state.realm_user_groups = [...without(groups, (g) => g.id === event.group.id), structuredClone(event.group)].sort((a, b) => a.id - b.id);
    return;
  }
  if (event.op === 'remove') {
    state.realm_user_groups = without(groups, (g) => g.id === event.group_id);
    return;
  }
  const group = groups.find((g) => g.id === event.group_id);
  if (!group) throw new Error(`user_group ${event.op} of a group the state does not hold: ${event.group_id}`);
  switch (event.op) {
    case 'update':
      Object.assign(group, event.data);
      return;
    case 'add_members':
      group.members = sortedIds([...group.members, ...event.user_ids]);
      return;
    case 'remove_members':
      group.members = without(group.members as number[], (id) => event.user_ids.includes(id));
      return;
    case 'add_subgroups':
      group.direct_subgroup_ids = sortedIds([...group.direct_subgroup_ids, ...event.direct_subgroup_ids]);
      return;
    case 'remove_subgroups':
      group.direct_subgroup_ids = without(group.direct_subgroup_ids as number[], (id) => event.direct_subgroup_ids.includes(id));
      return;
    default:
      throw new Error(`the reducer has no case for user_group op ${event.op}`);
  }
}

/** The personal and organization tools (issue 15), as a client keeps them. */
function applyToolsEvent(state: State, event: Event): void {
  switch (event.type) {
    case 'drafts':
      if (!state.drafts) return;
      if (event.op === 'add') state.drafts.push(...event.drafts);
      else if (event.op === 'update') state.drafts = state.drafts.map((d: Event) => (d.id === event.draft.id ? event.draft : d));
      else state.drafts = without(state.drafts as Event[], (d) => d.id === event.draft_id);
      return;
    case 'saved_snippets':
      if (!state.saved_snippets) return;
      if (event.op === 'add') state.saved_snippets.push(event.saved_snippet);
      else if (event.op === 'update') state.saved_snippets = state.saved_snippets.map((s: Event) => (s.id === event.saved_snippet.id ? event.saved_snippet : s));
      else state.saved_snippets = without(state.saved_snippets as Event[], (s) => s.id === event.saved_snippet_id);
      return;
    case 'alert_words':
      if (state.alert_words) state.alert_words = event.alert_words;
      return;
    case 'realm_playgrounds':
      if (state.realm_playgrounds) state.realm_playgrounds = event.realm_playgrounds;
      return;
    case 'user_settings':
      if (state.user_settings) state.user_settings[event.property] = event.value;
      // Clients without user_settings_object read the settings at the top level.
      if (event.property in state) state[event.property] = event.value;
      // The spec's Drafts transition: the server drops every draft, and sends no drafts event for it.
      if (event.property === 'enable_drafts_synchronization' && event.value === false && state.drafts) state.drafts = [];
      return;
  }
}

/** Scheduled messages and reminders (issue 17), as a client keeps them. */
function applyScheduledEvent(state: State, event: Event): void {
  if (event.type === 'scheduled_messages') {
    if (!state.scheduled_messages) return;
    if (event.op === 'add') state.scheduled_messages.push(...event.scheduled_messages);
    else if (event.op === 'update')
      state.scheduled_messages = state.scheduled_messages.map((m: Event) => (m.scheduled_message_id === event.scheduled_message.scheduled_message_id ? event.scheduled_message : m));
    else state.scheduled_messages = without(state.scheduled_messages as Event[], (m) => m.scheduled_message_id === event.scheduled_message_id);
    return;
  }
  if (!state.reminders) return;
  if (event.op === 'add') state.reminders.push(...event.reminders);
  else state.reminders = without(state.reminders as Event[], (r) => r.reminder_id === event.reminder_id);
}

function applyStreamEvent(state: State, event: Event): void {
  const lists = ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed'].filter((key) => key in state);
  if (event.op === 'create') {
    // Each list keeps its own copy, as the objects are changed in place later.
    const copies = () => (event.streams as Event[]).map((s) => structuredClone(s));
    if ('streams' in state) state.streams = byId([...without(state.streams, (s: Event) => event.streams.some((n: Event) => n.stream_id === s.stream_id)), ...copies()]);
    if ('never_subscribed' in state) {
      const known = new Set(['subscriptions', 'unsubscribed'].flatMap((key) => (state[key] ?? []).map((s: Event) => s.stream_id)));
      const fresh = copies().filter((s) => !known.has(s.stream_id));
      state.never_subscribed = byId([...without(state.never_subscribed, (s: Event) => fresh.some((n) => n.stream_id === s.stream_id)), ...fresh]);
    }
    return;
  }
  if (event.op === 'delete') {
    const gone = new Set<number>(event.stream_ids);
    for (const key of lists) state[key] = without(state[key], (s: Event) => gone.has(s.stream_id));
    return;
  }
  if (event.op === 'update') {
    for (const key of lists) {
      for (const channel of state[key] as Event[]) {
        if (channel.stream_id !== event.stream_id) continue;
        channel[event.property] = event.value;
        if (event.rendered_description !== undefined) channel.rendered_description = event.rendered_description;
        if (event.history_public_to_subscribers !== undefined) channel.history_public_to_subscribers = event.history_public_to_subscribers;
        if (event.is_web_public !== undefined) channel.is_web_public = event.is_web_public;
      }
    }
  }
}

const CHANNEL_LISTS = ['streams', 'subscriptions', 'unsubscribed', 'never_subscribed'];

function applySubscriptionEvent(state: State, event: Event, { self, includeSubscribers }: ReducerOptions): void {
  if (event.op === 'add') {
    const added = new Map((event.subscriptions as Event[]).map((s) => [s.stream_id, s]));
    // A client that did not ask for subscriber lists drops them, as Zulip's does.
    const subscriptions = (event.subscriptions as Event[]).map(({ subscribers, ...rest }) => (includeSubscribers ? { ...rest, subscribers } : rest));
    if ('subscriptions' in state) state.subscriptions = byId([...without(state.subscriptions, (s: Event) => added.has(s.stream_id)), ...subscriptions]);
    for (const key of ['unsubscribed', 'never_subscribed'].filter((k) => k in state)) state[key] = without(state[key], (s: Event) => added.has(s.stream_id));
    // One count per channel, wherever the client keeps it.
    for (const channel of (state.streams ?? []) as Event[]) {
      const sub = added.get(channel.stream_id);
      if (sub) channel.subscriber_count = sub.subscriber_count;
    }
    return;
  }
  if (event.op === 'peer_add') {
    for (const key of CHANNEL_LISTS.filter((k) => k in state)) {
      for (const channel of state[key] as Event[]) {
        if (!event.stream_ids.includes(channel.stream_id)) continue;
        channel.subscriber_count += event.user_ids.length;
        if (Array.isArray(channel.subscribers)) channel.subscribers = sortedIds([...channel.subscribers, ...event.user_ids]);
      }
    }
    return;
  }
  if (event.op === 'peer_remove') {
    const gone = new Set<number>(event.user_ids);
    for (const key of CHANNEL_LISTS.filter((k) => k in state)) {
      for (const channel of state[key] as Event[]) {
        if (!event.stream_ids.includes(channel.stream_id)) continue;
        channel.subscriber_count -= event.user_ids.length;
        if (Array.isArray(channel.subscribers)) channel.subscribers = channel.subscribers.filter((id: number) => !gone.has(id));
      }
    }
    return;
  }
  if (event.op === 'remove') {
    // The channel moves to the user's left channels, without their own settings; they are
    // no longer among its subscribers (no peer_remove tells them so).
    const removed = new Set((event.subscriptions as Event[]).map((s) => s.stream_id));
    const left = ((state.subscriptions ?? []) as Event[]).filter((s) => removed.has(s.stream_id));
    if ('subscriptions' in state) state.subscriptions = without(state.subscriptions, (s: Event) => removed.has(s.stream_id));
    if ('unsubscribed' in state) {
      const channels = left.map((s) => {
        const { color: _c, is_muted: _m, in_home_view: _h, pin_to_top: _p, desktop_notifications: _d, email_notifications: _e,
          wildcard_mentions_notify: _w, push_notifications: _u, audible_notifications: _a, ...channel } = s;
        return channel;
      });
      state.unsubscribed = byId([...state.unsubscribed, ...channels]);
    }
    for (const key of ['unsubscribed', 'streams'].filter((k) => k in state)) {
      for (const channel of state[key] as Event[]) {
        if (!removed.has(channel.stream_id) || !left.some((s) => s.stream_id === channel.stream_id)) continue;
        if (key === 'streams') channel.subscriber_count -= 1;
        else if (Array.isArray(channel.subscribers)) channel.subscribers = channel.subscribers.filter((id: number) => id !== self);
      }
    }
    for (const channel of (state.unsubscribed ?? []) as Event[]) {
      if (left.some((s) => s.stream_id === channel.stream_id)) channel.subscriber_count = left.find((s) => s.stream_id === channel.stream_id)!.subscriber_count - 1;
    }
    return;
  }
  if (event.op === 'update') {
    for (const sub of (state.subscriptions ?? []) as Event[]) if (sub.stream_id === event.stream_id) sub[event.property] = event.value;
    return;
  }
  throw new Error(`the reducer has no case for subscription op ${event.op} (user ${self})`);
}

// unread_msgs, grouped as Zulip groups them: streams by channel and topic, pms by the other
// user, huddles by everyone's ids; mentions and count beside them.

function addUnread(state: State, message: Event, self: number, flags: string[]): void {
  const unread = state.unread_msgs;
  const place = unreadPlaceOf(message, self);
  addToPlace(unread, place, message.id, message);
  if (flags.includes('mentioned') || flags.includes('wildcard_mentioned') || flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned')) {
    unread.mentions = sortedIds([...unread.mentions, message.id]);
  }
}

function addUnreadFromDetails(state: State, id: number, details: Event, self: number): void {
  const message =
    details.type === 'stream'
      ? { type: 'stream', stream_id: details.stream_id, subject: details.topic }
      : { type: 'private', display_recipient: (details.user_ids as number[]).map((uid) => ({ id: uid })) };
  addToPlace(state.unread_msgs, unreadPlaceOf(message, self), id, message);
  if (details.mentioned) state.unread_msgs.mentions = sortedIds([...state.unread_msgs.mentions, id]);
}

function addToPlace(unread: Event, place: UnreadPlace, id: number, message: Event): void {
  if (place.kind === 'stream') {
    const entry = unread.streams.find((s: Event) => s.stream_id === message.stream_id && s.topic === message.subject);
    if (entry) entry.unread_message_ids = sortedIds([...entry.unread_message_ids, id]);
    else unread.streams.push({ stream_id: message.stream_id, topic: message.subject, unread_message_ids: [id] });
  } else if (place.kind === 'pm') {
    const other = Number(place.key);
    const entry = unread.pms.find((p: Event) => p.other_user_id === other);
    if (entry) entry.unread_message_ids = sortedIds([...entry.unread_message_ids, id]);
    // sender_id: the older name of other_user_id, which clients still read.
    else unread.pms.push({ other_user_id: other, sender_id: other, unread_message_ids: [id] });
  } else {
    const entry = unread.huddles.find((h: Event) => h.user_ids_string === place.key);
    if (entry) entry.unread_message_ids = sortedIds([...entry.unread_message_ids, id]);
    else unread.huddles.push({ user_ids_string: place.key, unread_message_ids: [id] });
  }
}

function removeUnreads(state: State, ids: Set<number>): void {
  const unread = state.unread_msgs;
  for (const key of ['streams', 'pms', 'huddles']) {
    for (const entry of unread[key]) entry.unread_message_ids = entry.unread_message_ids.filter((id: number) => !ids.has(id));
    unread[key] = unread[key].filter((entry: Event) => entry.unread_message_ids.length > 0);
  }
  unread.mentions = unread.mentions.filter((id: number) => !ids.has(id));
}

/** Messages moved to another channel or topic take their unread entries with them. */
function moveUnreads(state: State, event: Event): void {
  if (!('unread_msgs' in state)) return;
  const moved = new Set<number>(event.message_ids);
  const unread = state.unread_msgs;
  const taken = unread.streams.flatMap((s: Event) => s.unread_message_ids.filter((id: number) => moved.has(id)));
  if (taken.length === 0) return;
  for (const entry of unread.streams) entry.unread_message_ids = entry.unread_message_ids.filter((id: number) => !moved.has(id));
  unread.streams = unread.streams.filter((entry: Event) => entry.unread_message_ids.length > 0);
  const target = { type: 'stream', stream_id: event.new_stream_id ?? event.stream_id, subject: event.subject ?? event.orig_subject };
  for (const id of taken) addToPlace(unread, { kind: 'stream', key: '' }, id, target);
}

/**
 * As Zulip counts: every unread direct message, and channel messages unless muted — in a
 * muted channel (one subscribed to with is_muted) whose topic is not unmuted or followed,
 * or in a muted topic of a channel that is not muted.
 */
export function countUnreads(state: State): number {
  const unread = state.unread_msgs;
  const mutedChannels = new Set(((state.subscriptions ?? []) as Event[]).filter((s) => s.is_muted).map((s) => s.stream_id as number));
  const policies = new Map(((state.user_topics ?? []) as Event[]).map((t) => [`${t.stream_id}:${String(t.topic_name).toLowerCase()}`, t.visibility_policy as number]));
  const muted = (entry: Event) => {
    const policy = policies.get(`${entry.stream_id}:${String(entry.topic).toLowerCase()}`) ?? 0;
    return mutedChannels.has(entry.stream_id) ? policy !== 2 && policy !== 3 : policy === 1;
  };
  const direct = ['pms', 'huddles'].reduce((sum, key) => sum + unread[key].reduce((n: number, e: Event) => n + e.unread_message_ids.length, 0), 0);
  return direct + unread.streams.filter((e: Event) => !muted(e)).reduce((n: number, e: Event) => n + e.unread_message_ids.length, 0);
}

