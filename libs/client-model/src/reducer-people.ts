/**
 * The reducer's cases for the people of the organization (reducer.ts): users and their
 * roles, bots, user groups, the organization's settings, user status and custom profile
 * fields.
 */
import { type Event, sortedIds, type State, without } from './reducer-shared';

// Global in browsers and Node 17+; declared here so that the library needs neither DOM nor Node types.
declare const structuredClone: <T>(value: T) => T;

/**
 * An avatar update carries the URLs whatever the client's client_gravatar; such a client
 * keeps null for the provider's avatars, as its registration had them.
 */
export function avatarAsRegistered(event: Event, clientGravatar: boolean): Event {
  if (event.op !== 'update' || !clientGravatar || event.person.avatar_source !== 'G') return event;
  return { ...event, person: { ...event.person, avatar_url: null } };
}

const ROLE_FLAGS = (role: number) => ({ is_owner: role === 100, is_admin: role <= 200, is_guest: role === 600 });

/** As a Zulip client keeps its users: active and deactivated apart, by id; a deactivated user leaves every group. */
export function applyRealmUserEvent(state: State, event: Event, self: number): void {
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
export function applyOrgEvent(state: State, event: Event): void {
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

export function applyRealmBotEvent(state: State, event: Event): void {
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

export function applyUserGroupEvent(state: State, event: Event): void {
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
