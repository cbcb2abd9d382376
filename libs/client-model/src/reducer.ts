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
import { applyStreamEvent, applySubscriptionEvent } from './reducer-channels';
import { applyOrgEvent, applyRealmBotEvent, applyRealmUserEvent, applyUserGroupEvent, avatarAsRegistered } from './reducer-people';
import { type Event, type ReducerOptions, sortedIds, type State, without } from './reducer-shared';
import { addUnread, addUnreadFromDetails, countUnreads, moveUnreads, removeUnreads } from './reducer-unread';

export type { ReducerOptions, State } from './reducer-shared';
export { countUnreads, type UnreadPlace, unreadPlaceOf } from './reducer-unread';

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
