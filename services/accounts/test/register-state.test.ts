import { describe, expect, it } from '@jest/globals';
import { realmSettingsOf, type RealmSettings, type StateParams } from '@teamchat/contracts';
import { organizationPolicyOf } from '@teamchat/policies';
import { groupSnapshotOf, type UserDoc, type UserGroupDoc } from '@teamchat/directory';
import type { AccountsReadModel } from '../src/projections/credentials';
import { accountsState, realmUsersMembers, systemGroups } from '../src/queries/register-state';

const all: StateParams = { fetch_event_types: null, include_subscribers: false, client_gravatar: true, archived_channels: false };

function user(_id: number, role: number, extra: Partial<UserDoc> = {}): UserDoc {
  const email = `u${_id}@example.com`;
  return {
    _id, email, email_lc: email, full_name: `User ${_id}`, full_name_lc: `user ${_id}`, role, is_active: true,
    is_bot: false, bot_type: null, bot_owner_id: null, timezone: 'UTC', date_joined: 1_700_000_000, ...extra,
  };
}

const users = [
  user(1, 100),
  user(2, 200),
  user(3, 400),
  user(4, 600),
  user(5, 400, { is_active: false }),
  user(6, 400, { is_bot: true, bot_type: 1, bot_owner_id: 2 }),
  user(7, 400, { is_bot: true, bot_type: 1, bot_owner_id: 3 }),
];
const group = (_id: number, extra: Partial<UserGroupDoc> = {}): UserGroupDoc => ({
  _id, name: `group ${_id}`, description: '', members: [3, 5], subgroup_ids: [5], creator_id: 3, date_created: 7, deactivated: false,
  can_add_members_group: 8, can_join_group: 8, can_leave_group: 2, can_manage_group: { direct_members: [3], direct_subgroups: [] },
  can_mention_group: 2, can_remove_members_group: 8, ...extra,
});
const groups = [group(9), group(10, { deactivated: true })];
const deps = {
  directory: { allUsers: async () => users, userById: async (id: number) => users.find((u) => u._id === id), channelById: async () => undefined },
  accounts: {
    organization: { get: async () => ({ _id: 'organization', name: 'Acme', host: 'acme.test', date_created: 5 }) },
    botSettings: { get: async () => undefined },
  } as unknown as AccountsReadModel,
  realmHost: 'acme.test',
  userGroups: { snapshot: async () => groupSnapshotOf(groups) },
  realmUri: 'http://acme.test',
  apiKeyOf: async (bot: UserDoc) => `key-${bot._id}`,
  realmSettings: { current: async () => realm, policy: async () => organizationPolicyOf(realm) },
  userSettings: async (id: number): Promise<Record<string, unknown>> => ownSettings.get(id) ?? {},
};
let realm: RealmSettings = realmSettingsOf('Acme');
const ownSettings = new Map<number, Record<string, unknown>>();

describe('accounts register state', () => {
  it('lists active and deactivated users apart, with the caller own fields and the organization settings', async () => {
    const state = await accountsState(deps, 3, all);
    const people = JSON.parse(String(await realmUsersMembers(deps, 3, all, new Map([[2, { '4': 'Berlin' }]])))) as Record<string, { user_id: number; avatar_url: unknown; profile_data: unknown }[]>;
    expect(people.realm_users?.map((u) => u.user_id)).toEqual([1, 2, 3, 4, 6, 7]);
    expect(people.realm_non_active_users?.map((u) => u.user_id)).toEqual([5]);
    expect(state.cross_realm_bots?.map((u) => [u.email, u.is_bot])).toEqual([['notification-bot@zulip.com', true], ['welcome-bot@zulip.com', true]]);
    expect(people.realm_users?.[0]?.avatar_url).toBeNull();
    expect(people.realm_users?.map((u) => u.profile_data)).toEqual([{}, { '4': { value: 'Berlin' } }, {}, {}, {}, {}]);
    // Kept per user document: the same text for the next registration, a new one for a changed user.
    const again = await realmUsersMembers(deps, 3, all, new Map([[2, { '4': 'Berlin' }]]));
    expect(String(again)).toBe(JSON.stringify(people));
    expect(await realmUsersMembers(deps, 3, { ...all, fetch_event_types: ['message'] }, new Map())).toBeUndefined();
    expect(state.me).toMatchObject({ user_id: 3, is_admin: false, is_guest: false, role: 400 });
    expect(state.realm).toMatchObject({ realm_name: 'Acme', realm_url: 'http://acme.test', realm_date_created: 5 });
    expect(state.user_settings).toMatchObject({ timezone: 'UTC' });
  });

  it('shows bots to their owners and to administrators only', async () => {
    expect((await accountsState(deps, 3, all)).realm_bots?.map((b) => [b.user_id, b.api_key])).toEqual([[7, 'key-7']]);
    expect((await accountsState(deps, 2, all)).realm_bots?.map((b) => b.user_id)).toEqual([6, 7]);
    expect((await accountsState(deps, 4, all)).realm_bots).toEqual([]);
  });

  it('builds only the sections asked for', async () => {
    const state = await accountsState(deps, 3, { ...all, fetch_event_types: ['user_settings', 'message'] });
    expect(Object.keys(state)).toEqual(['user_settings']);
  });

  it('nests the system groups by role', () => {
    const groups = systemGroups(users.filter((u) => u.is_active));
    const byName = Object.fromEntries(groups.map((g) => [g.name, g]));
    expect(groups).toHaveLength(8);
    expect(byName['role:owners']).toMatchObject({ members: [1], direct_subgroup_ids: [] });
    expect(byName['role:administrators']).toMatchObject({ members: [2], direct_subgroup_ids: [byName['role:owners']!.id] });
    expect(byName['role:everyone']).toMatchObject({ members: [4] });
  });

  it('lists the custom groups after the system groups: active ones, deactivated ones only with the capability, active members only', async () => {
    const listed = (await accountsState(deps, 3, { ...all, fetch_event_types: ['realm_user_groups'] })).realm_user_groups ?? [];
    expect(listed.map((g) => g.id)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(listed.at(-1)).toEqual({
      id: 9, name: 'group 9', description: '', members: [3], direct_subgroup_ids: [5], is_system_group: false, date_created: 7, creator_id: 3,
      deactivated: false, can_add_members_group: 8, can_join_group: 8, can_leave_group: 2,
      can_manage_group: { direct_members: [3], direct_subgroups: [] }, can_mention_group: 2, can_remove_members_group: 8,
    });
    const withDeactivated = (await accountsState(deps, 3, { ...all, fetch_event_types: ['user_group'], include_deactivated_groups: true })).realm_user_groups;
    expect(withDeactivated?.filter((g) => !g.is_system_group).map((g) => [g.id, g.deactivated])).toEqual([[9, false], [10, true]]);
  });
});
