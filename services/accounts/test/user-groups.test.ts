/**
 * The user groups decider, given/when/then. The history holds the organization's users and
 * the groups' facts; both are folded, as the handler reads both streams.
 */
import { describe, it } from '@jest/globals';
import { ROLE, SYSTEM_GROUP, type Actor, type Fact, type FactOf } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { ORGANIZATION_POLICY } from '@teamchat/policies';
import { evolveOrganization, initialOrganization, type OrganizationState } from '../src/domain/organization';
import {
  decideCreateUserGroup,
  decideDeactivateUserGroup,
  decideUpdateMembers,
  decideUpdateSubgroups,
  decideUpdateUserGroup,
  evolveUserGroups,
  initialUserGroups,
  type CreateUserGroup,
  type GroupContext,
  type UpdateMembers,
  type UpdateSubgroups,
  type UpdateUserGroup,
  type UserGroupsState,
} from '../src/domain/user-groups';

const NOW = 1_700_000_000;
const OWNER = 1;
const ADMIN = 2;
const MODERATOR = 3;
const MEMBER = 4;
const MEMBER2 = 5;
const GUEST = 6;
const BOT = 7;
const GONE = 8;

const userCreated = (user_id: number, role: number, is_bot = false): Fact => ({
  type: 'UserCreated',
  user_id,
  email: `u${user_id}@acme.example`,
  full_name: `User ${user_id}`,
  role,
  is_bot,
  bot_type: is_bot ? 1 : null,
  bot_owner_id: null,
  timezone: '',
  date_joined: NOW - 86400,
  api_key_salt: 's',
  api_key_hash: 'h',
});

const organization: Fact[] = [
  { type: 'OrganizationCreated', name: 'Acme', host: 'acme.example', date_created: 0 },
  userCreated(OWNER, ROLE.owner),
  userCreated(ADMIN, ROLE.administrator),
  userCreated(MODERATOR, ROLE.moderator),
  userCreated(MEMBER, ROLE.member),
  userCreated(MEMBER2, ROLE.member),
  userCreated(GUEST, ROLE.guest),
  userCreated(BOT, ROLE.member, true),
  userCreated(GONE, ROLE.member),
  { type: 'UserDeactivated', user_id: GONE },
];

const actor = (user_id: number, role: number): Actor => ({ user_id, email: `u${user_id}@acme.example`, full_name: '', role, is_bot: false, client: 'test' });
const owner = actor(OWNER, ROLE.owner);
const admin = actor(ADMIN, ROLE.administrator);
const member = actor(MEMBER, ROLE.member);
const member2 = actor(MEMBER2, ROLE.member);
const guest = actor(GUEST, ROLE.guest);

const creator = (id: number) => ({ direct_members: [id], direct_subgroups: [] });

/** A group member created, with Zulip's default settings unless given. */
function created(group_id: number, extra: Partial<FactOf<'UserGroupCreated'>> = {}): FactOf<'UserGroupCreated'> {
  return {
    type: 'UserGroupCreated',
    group_id,
    name: `group ${group_id}`,
    description: '',
    members: [],
    subgroup_ids: [],
    creator_id: MEMBER,
    date_created: NOW,
    can_add_members_group: creator(MEMBER),
    can_join_group: SYSTEM_GROUP.nobody,
    can_leave_group: SYSTEM_GROUP.everyone,
    can_manage_group: creator(MEMBER),
    can_mention_group: SYSTEM_GROUP.everyone,
    can_remove_members_group: SYSTEM_GROUP.nobody,
    audience: 'active_users',
    ...extra,
  };
}

interface Both {
  org: OrganizationState;
  groups: UserGroupsState;
}

function specFor<C>(decide: (state: UserGroupsState, ctx: GroupContext, cmd: C) => Fact[], channelSettingGroupIds: number[] = []) {
  return deciderSpec<Both, C>({
    initial: () => ({ org: initialOrganization(), groups: initialUserGroups() }),
    evolve: (state, fact) => ({ org: evolveOrganization(state.org, fact), groups: evolveUserGroups(state.groups, fact) }),
    decide: (cmd, state) =>
      decide(
        state.groups,
        {
          users: state.org.usersById,
          channelSettingGroupIds: new Set(channelSettingGroupIds),
          canCreateGroups: ORGANIZATION_POLICY.canCreateGroups,
          canManageAllGroups: ORGANIZATION_POLICY.canManageAllGroups,
          now: NOW,
        },
        cmd,
      ),
  });
}

const createSpec = specFor<CreateUserGroup>(decideCreateUserGroup);
const updateSpec = specFor<UpdateUserGroup>(decideUpdateUserGroup);
const membersSpec = specFor<UpdateMembers>(decideUpdateMembers);
const subgroupsSpec = specFor<UpdateSubgroups>(decideUpdateSubgroups);
const deactivateSpec = specFor<{ actor: Actor; group_id: number }>(decideDeactivateUserGroup);
const deactivateUsedByChannel = specFor<{ actor: Actor; group_id: number }>(decideDeactivateUserGroup, [9]);

const create = (extra: Partial<CreateUserGroup> = {}): CreateUserGroup => ({ actor: member, name: 'group 9', description: '', members: [], settings: {}, ...extra });

describe('create a user group', () => {
  it('allocates the first id after the system groups, with Zulip default settings', () =>
    createSpec.given(organization).when(create({ members: [MEMBER2, MEMBER, MEMBER2] })).then([created(9, { members: [MEMBER, MEMBER2] })]));

  it('allocates the next id and keeps given settings in stored form', () =>
    createSpec
      .given([...organization, created(9)])
      .when(
        create({
          name: 'group 10',
          subgroups: [9, SYSTEM_GROUP.moderators],
          settings: { can_mention_group: { direct_members: [], direct_subgroups: [9] }, can_join_group: { direct_members: [], direct_subgroups: [] } },
        }),
      )
      .then([created(10, { subgroup_ids: [SYSTEM_GROUP.moderators, 9], can_mention_group: 9, can_join_group: SYSTEM_GROUP.nobody })]));

  it('lets a bot create a group', () =>
    createSpec
      .given(organization)
      .when(create({ actor: { ...actor(BOT, ROLE.member), is_bot: true } }))
      .then([created(9, { creator_id: BOT, can_add_members_group: creator(BOT), can_manage_group: creator(BOT) })]));

  it.each([
    ['a guest', create({ actor: guest }), 'Insufficient permission'],
    ['a nonexistent member', create({ members: [99] }), 'Invalid user ID: 99'],
    ['a deactivated member', create({ members: [GONE] }), `Invalid user ID: ${GONE}`],
    ['an empty name', create({ name: ' ' }), "User group name can't be empty!"],
    ['a name too long', create({ name: 'é'.repeat(101) }), 'User group name cannot exceed 100 characters.'],
    ['a reserved prefix', create({ name: 'channel:x' }), "User group name cannot start with 'channel:'."],
    ['a description too long', create({ description: 'x'.repeat(1025) }), 'User group description cannot exceed 1024 characters.'],
    ['an unknown subgroup', create({ subgroups: [42] }), 'Invalid user group ID: 42'],
    ['can_manage_group role:everyone', create({ settings: { can_manage_group: SYSTEM_GROUP.everyone } }), "'can_manage_group' setting cannot be set to 'role:everyone' group."],
    ['can_mention_group role:owners', create({ settings: { can_mention_group: SYSTEM_GROUP.owners } }), "'can_mention_group' setting cannot be set to 'role:owners' group."],
    ['can_leave_group role:internet', create({ settings: { can_leave_group: SYSTEM_GROUP.internet } }), "'can_leave_group' setting cannot be set to 'role:internet' group."],
    ['a deactivated user in a setting', create({ settings: { can_join_group: creator(GONE) } }), `Invalid user ID ${GONE} in 'can_join_group'`],
  ])('refuses %s', (_, cmd, msg) => createSpec.given(organization).when(cmd).thenThrows({ code: 'BAD_REQUEST', msg }));

  it('refuses a name an active group has (case-insensitively), not one a deactivated group had', () => {
    createSpec.given([...organization, created(9, { name: 'Cooks' })]).when(create({ name: 'cooks' })).thenThrows({ msg: "User group 'cooks' already exists." });
    createSpec
      .given([...organization, created(9, { name: 'Cooks' }), { type: 'UserGroupDeactivated', group_id: 9, audience: 'active_users' }])
      .when(create({ name: 'Cooks' }))
      .then([created(10, { name: 'Cooks' })]);
  });

  it('refuses a deactivated group as a subgroup or a setting', () => {
    const history = [...organization, created(9), { type: 'UserGroupDeactivated', group_id: 9, audience: 'active_users' } as Fact];
    createSpec.given(history).when(create({ name: 'x', subgroups: [9] })).thenThrows({ msg: 'Invalid user group ID: 9' });
    createSpec.given(history).when(create({ name: 'x', settings: { can_join_group: 9 } })).thenThrows({ msg: "Invalid user group ID 9 in 'can_join_group'" });
  });
});

describe('update a user group', () => {
  const history = [...organization, created(9)];
  const update = (extra: Partial<UpdateUserGroup>): UpdateUserGroup => ({ actor: member, group_id: 9, settings: {}, ...extra });
  const updated = (changes: FactOf<'UserGroupUpdated'>['changes']): Fact => ({ type: 'UserGroupUpdated', group_id: 9, changes, audience: 'active_users' });

  it('records only what changes', () =>
    updateSpec
      .given(history)
      .when(update({ name: 'group 9', description: 'new', settings: { can_leave_group: { new: SYSTEM_GROUP.everyone }, can_join_group: { new: SYSTEM_GROUP.members } } }))
      .then([updated({ description: 'new', can_join_group: SYSTEM_GROUP.members })]));

  it('changes nothing when every value is already current', () =>
    updateSpec.given(history).when(update({ settings: { can_mention_group: { new: SYSTEM_GROUP.everyone, old: SYSTEM_GROUP.everyone } } })).then([]));

  it('takes an old value in any form that means the current one', () =>
    updateSpec
      .given(history)
      .when(update({ settings: { can_manage_group: { new: SYSTEM_GROUP.moderators, old: { direct_members: [MEMBER, MEMBER], direct_subgroups: [] } } } }))
      .then([updated({ can_manage_group: SYSTEM_GROUP.moderators })]));

  it('lets the owner (can_manage_all_groups) and a manager through a custom group update', () => {
    updateSpec.given(history).when(update({ actor: owner, description: 'by owner' })).then([updated({ description: 'by owner' })]);
    const managed = [...organization, created(9, { members: [MEMBER2] }), created(10, { can_manage_group: 9 })];
    updateSpec.given(managed).when(update({ actor: member2, group_id: 10, description: 'nested' })).then([
      { type: 'UserGroupUpdated', group_id: 10, changes: { description: 'nested' }, audience: 'active_users' },
    ]);
  });

  it.each([
    ['an old value that does not match', update({ settings: { can_mention_group: { new: SYSTEM_GROUP.members, old: SYSTEM_GROUP.members } } }), "'old' value for can_mention_group does not match expected value."],
    ['nothing supplied', update({}), 'No new data supplied'],
    ['an administrator who does not manage it', update({ actor: admin, description: 'x' }), 'Insufficient permission'],
    ['a system group', update({ group_id: SYSTEM_GROUP.members, description: 'x' }), 'System groups cannot be modified.'],
    ['an unknown group', update({ group_id: 77, description: 'x' }), 'Invalid user group'],
    ['can_manage_group role:everyone', update({ settings: { can_manage_group: { new: SYSTEM_GROUP.everyone } } }), "'can_manage_group' setting cannot be set to 'role:everyone' group."],
  ])('refuses %s', (_, cmd, msg) => updateSpec.given(history).when(cmd).thenThrows({ code: 'BAD_REQUEST', msg }));

  it('refuses a name another active group has', () =>
    updateSpec.given([...history, created(10)]).when(update({ name: 'GROUP 10' })).thenThrows({ msg: "User group 'GROUP 10' already exists." }));
});

describe('members', () => {
  const history = [...organization, created(9, { members: [MEMBER] })];
  const change = (extra: Partial<UpdateMembers>): UpdateMembers => ({ actor: member, group_id: 9, add: [], delete: [], ...extra });

  it('adds and removes in one request', () =>
    membersSpec
      .given(history)
      .when(change({ add: [GUEST, MEMBER2], delete: [MEMBER] }))
      .then([
        { type: 'UserGroupMembersAdded', group_id: 9, user_ids: [MEMBER2, GUEST], audience: 'active_users' },
        { type: 'UserGroupMembersRemoved', group_id: 9, user_ids: [MEMBER], audience: 'active_users' },
      ]));

  it('lets a user join through can_join_group, and leave through can_leave_group (guests included)', () => {
    const open = [...organization, created(9, { members: [GUEST], can_join_group: SYSTEM_GROUP.members })];
    membersSpec.given(open).when(change({ actor: member2, add: [MEMBER2] })).then([{ type: 'UserGroupMembersAdded', group_id: 9, user_ids: [MEMBER2], audience: 'active_users' }]);
    membersSpec.given(open).when(change({ actor: guest, delete: [GUEST] })).then([{ type: 'UserGroupMembersRemoved', group_id: 9, user_ids: [GUEST], audience: 'active_users' }]);
  });

  it('never lets a guest join, whatever can_join_group names (it is closed to role:everyone)', () =>
    membersSpec
      .given([...organization, created(9, { can_join_group: creator(GUEST) })])
      .when(change({ actor: guest, add: [GUEST] }))
      .thenThrows({ msg: 'Insufficient permission' }));

  it.each([
    ['nothing to do', change({}), 'Nothing to do. Specify at least one of "add" or "delete".'],
    ['joining without can_join_group', change({ actor: member2, add: [MEMBER2] }), 'Insufficient permission'],
    ['adding others without can_add_members_group', change({ actor: member2, add: [GUEST] }), 'Insufficient permission'],
    ['removing others without can_remove_members_group', change({ actor: member2, delete: [MEMBER] }), 'Insufficient permission'],
    ['a member already there', change({ add: [MEMBER] }), `User ${MEMBER} is already a member of this group`],
    ['a nonexistent user', change({ add: [99] }), 'Invalid user ID: 99'],
    ['a deactivated user', change({ add: [GONE] }), `Invalid user ID: ${GONE}`],
    ['removing a non-member', change({ delete: [GUEST] }), `There is no member '${GUEST}' in this user group`],
    ['a system group', change({ group_id: SYSTEM_GROUP.moderators, add: [MEMBER] }), 'System groups cannot be modified.'],
  ])('refuses %s', (_, cmd, msg) => membersSpec.given(history).when(cmd).thenThrows({ code: 'BAD_REQUEST', msg }));
});

describe('subgroups', () => {
  const history = [...organization, created(9), created(10, { subgroup_ids: [9] }), created(11, { subgroup_ids: [10] })];
  const change = (extra: Partial<UpdateSubgroups>): UpdateSubgroups => ({ actor: member, group_id: 9, add: [], delete: [], ...extra });

  it('adds system and custom groups, and removes them', () =>
    subgroupsSpec
      .given(history)
      .when(change({ group_id: 11, add: [SYSTEM_GROUP.owners, 9], delete: [10] }))
      .then([
        { type: 'UserGroupSubgroupsAdded', group_id: 11, subgroup_ids: [SYSTEM_GROUP.owners, 9], audience: 'active_users' },
        { type: 'UserGroupSubgroupsRemoved', group_id: 11, subgroup_ids: [10], audience: 'active_users' },
      ]));

  it.each([
    ['the group itself', change({ add: [9] }), 'User group 9 is already a subgroup of one of the passed subgroups.'],
    ['a cycle through two groups', change({ add: [11] }), 'User group 9 is already a subgroup of one of the passed subgroups.'],
    ['a subgroup already there', change({ group_id: 10, add: [9] }), 'User group 9 is already a subgroup of this group.'],
    ['an unknown group', change({ add: [50] }), 'Invalid user group ID: 50'],
    ['removing a group that is not a subgroup', change({ delete: [10] }), 'User group 10 is not a subgroup of this group.'],
    ['a user without can_add_members_group', change({ actor: member2, add: [SYSTEM_GROUP.owners] }), 'Insufficient permission'],
    ['nothing to do', change({}), 'Nothing to do. Specify at least one of "add" or "delete".'],
  ])('refuses %s', (_, cmd, msg) => subgroupsSpec.given(history).when(cmd).thenThrows({ code: 'BAD_REQUEST', msg }));
});

describe('deactivate', () => {
  const deactivated: Fact = { type: 'UserGroupDeactivated', group_id: 9, audience: 'active_users' };

  it('deactivates an unused group', () => deactivateSpec.given([...organization, created(9)]).when({ actor: member, group_id: 9 }).then([deactivated]));

  it('ignores the group naming itself in its own settings', () =>
    deactivateSpec.given([...organization, created(9, { can_mention_group: 9 })]).when({ actor: member, group_id: 9 }).then([deactivated]));

  it.each([
    ['a subgroup of another group', [created(9), created(10, { subgroup_ids: [9] })], 'You cannot deactivate a user group that is subgroup of any user group.'],
    ['a group another group’s setting names', [created(9), created(10, { can_join_group: { direct_members: [1], direct_subgroups: [9] } })], 'You cannot deactivate a user group which is used for setting.'],
    ['an already deactivated group', [created(9), deactivated], 'User group is deactivated.'],
    ['without can_manage_group', [created(9, { can_manage_group: SYSTEM_GROUP.moderators })], 'Insufficient permission'],
  ])('refuses %s', (_, facts, msg) => deactivateSpec.given([...organization, ...facts]).when({ actor: member, group_id: 9 }).thenThrows({ msg }));

  it('refuses a group a channel setting names', () =>
    deactivateUsedByChannel
      .given([...organization, created(9)])
      .when({ actor: member, group_id: 9 })
      .thenThrows({ msg: 'You cannot deactivate a user group which is used for setting.' }));

  it('lets a deactivated subgroup’s parent be deactivated in turn once it is removed', () =>
    deactivateSpec
      .given([
        ...organization,
        created(9),
        created(10, { subgroup_ids: [9] }),
        { type: 'UserGroupSubgroupsRemoved', group_id: 10, subgroup_ids: [9], audience: 'active_users' },
      ])
      .when({ actor: member, group_id: 9 })
      .then([deactivated]));
});
