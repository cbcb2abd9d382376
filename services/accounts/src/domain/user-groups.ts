/**
 * The user groups decider: custom groups, their members, subgroups and permission
 * settings. One stream holds every group, because unique names, group ids and "no cycles
 * through subgroups" span groups. Who the users are comes from the organization's stream,
 * and which groups channels' settings use from accounts' projection of channel facts:
 * both in the context. Pure: the clock and the acting user come in with the command.
 *
 * Permissions are Zulip's: the organization's can_manage_all_groups manages every group;
 * a group's can_manage_group manages it and implies each of its other permissions; joining
 * (adding oneself) takes can_join_group or can_add_members_group, leaving takes
 * can_leave_group or can_remove_members_group. System groups follow roles and are never
 * changed here.
 */
import { ACTIVE_USERS,
  badRequest,
  isSystemGroupId,
  MAX_USER_GROUP_DESCRIPTION_LENGTH,
  MAX_USER_GROUP_NAME_LENGTH,
  SYSTEM_GROUP,
  USER_GROUP_NAME_RESERVED_PREFIXES,
  USER_GROUP_SETTING_RULES,
  USER_GROUP_SETTINGS,
  type Actor,
  type Fact,
  type FactOf,
  type GroupMember,
  type GroupSettingUpdate,
  type GroupSettingValue,
  type UserGroupSettingName,
  type UserGroupSettings,
} from '@teamchat/contracts';
import {
  codePointLength,
  directMembersOf,
  isGuest,
  isUserInGroupSetting,
  parseGroupSetting,
  sameGroupSetting,
  subgroupClosure,
  type DirectoryGroup,
  type GroupDirectory,
} from '@teamchat/policies';
import type { RegisteredUser } from './organization';

export interface GroupRecord extends UserGroupSettings {
  group_id: number;
  name: string;
  description: string;
  members: number[];
  subgroup_ids: number[];
  deactivated: boolean;
}

export interface UserGroupsState {
  groups: Map<number, GroupRecord>;
  /** Custom group ids start above the system groups'. */
  lastGroupId: number;
}

export const initialUserGroups = (): UserGroupsState => ({ groups: new Map(), lastGroupId: SYSTEM_GROUP.nobody });

const sorted = (ids: Iterable<number>) => [...new Set(ids)].sort((a, b) => a - b);
const without = (ids: number[], gone: number[]) => ids.filter((id) => !gone.includes(id));

export function evolveUserGroups(state: UserGroupsState, fact: Fact): UserGroupsState {
  const change = (id: number, update: (group: GroupRecord) => GroupRecord): UserGroupsState => {
    const group = state.groups.get(id);
    return group ? { ...state, groups: new Map(state.groups).set(id, update(group)) } : state;
  };
  switch (fact.type) {
    case 'UserGroupCreated': {
      const settings = Object.fromEntries(USER_GROUP_SETTINGS.map((name) => [name, fact[name]])) as UserGroupSettings;
      const group: GroupRecord = {
        group_id: fact.group_id,
        name: fact.name,
        description: fact.description,
        members: sorted(fact.members),
        subgroup_ids: sorted(fact.subgroup_ids),
        deactivated: false,
        ...settings,
      };
      return { groups: new Map(state.groups).set(group.group_id, group), lastGroupId: Math.max(state.lastGroupId, fact.group_id) };
    }
    case 'UserGroupUpdated':
      return change(fact.group_id, (g) => ({ ...g, ...fact.changes }));
    case 'UserGroupMembersAdded':
      return change(fact.group_id, (g) => ({ ...g, members: sorted([...g.members, ...fact.user_ids]) }));
    case 'UserGroupMembersRemoved':
      return change(fact.group_id, (g) => ({ ...g, members: without(g.members, fact.user_ids) }));
    case 'UserGroupSubgroupsAdded':
      return change(fact.group_id, (g) => ({ ...g, subgroup_ids: sorted([...g.subgroup_ids, ...fact.subgroup_ids]) }));
    case 'UserGroupSubgroupsRemoved':
      return change(fact.group_id, (g) => ({ ...g, subgroup_ids: without(g.subgroup_ids, fact.subgroup_ids) }));
    case 'UserGroupDeactivated':
      return change(fact.group_id, (g) => ({ ...g, deactivated: true }));
    default:
      return state;
  }
}

/** The decider's own groups as the group-setting rules read them. */
export function groupDirectoryOf(state: UserGroupsState): GroupDirectory {
  return {
    group(id: number): DirectoryGroup | undefined {
      const g = state.groups.get(id);
      return g && { direct_members: g.members, direct_subgroups: g.subgroup_ids, deactivated: g.deactivated };
    },
  };
}

/** What a decision reads beyond the groups' stream. */
export interface GroupContext {
  users: ReadonlyMap<number, RegisteredUser>;
  /** Groups that channels' group-settings name (they may not be deactivated). */
  channelSettingGroupIds: ReadonlySet<number>;
  /** The organization's can_create_groups and can_manage_all_groups (Zulip's defaults until organization settings exist). */
  canCreateGroups: GroupSettingValue;
  canManageAllGroups: GroupSettingValue;
  /** Seconds since the epoch. */
  now: number;
}

const memberOf = (user: RegisteredUser): GroupMember => ({ user_id: user.user_id, role: user.role, date_joined: user.date_joined });

/** Whether the actor holds a setting, under its rules: settings closed to role:everyone never reach guests (as Zulip). */
function holds(state: UserGroupsState, ctx: GroupContext, actor: Actor, name: UserGroupSettingName, value: GroupSettingValue): boolean {
  const user = ctx.users.get(actor.user_id);
  if (!user || !user.is_active) return false;
  if (!USER_GROUP_SETTING_RULES[name].allowEveryone && isGuest(user.role)) return false;
  return isUserInGroupSetting(value, memberOf(user), ctx.now, groupDirectoryOf(state));
}

function managesAllGroups(state: UserGroupsState, ctx: GroupContext, actor: Actor): boolean {
  const user = ctx.users.get(actor.user_id);
  return !!user && user.is_active && !isGuest(user.role) && isUserInGroupSetting(ctx.canManageAllGroups, memberOf(user), ctx.now, groupDirectoryOf(state));
}

/** Whether the actor has `permission` on the group: through it, or through managing the group or all groups. */
function permitted(state: UserGroupsState, ctx: GroupContext, actor: Actor, group: GroupRecord, permission: UserGroupSettingName): boolean {
  return (
    managesAllGroups(state, ctx, actor) ||
    holds(state, ctx, actor, permission, group[permission]) ||
    holds(state, ctx, actor, 'can_manage_group', group.can_manage_group)
  );
}

const insufficient = () => badRequest('Insufficient permission');

/** Whether the actor may add members to a group, as an invitation naming it asks (Zulip's can_add_members_group). */
export function mayAddMembers(state: UserGroupsState, ctx: GroupContext, actor: Actor, groupId: number): 'ok' | 'invalid' | 'insufficient' {
  const group = state.groups.get(groupId);
  if (isSystemGroupId(groupId) || !group || group.deactivated) return 'invalid';
  return permitted(state, ctx, actor, group, 'can_add_members_group') ? 'ok' : 'insufficient';
}

/** Someone who joined by invitation enters the groups it named that are still active (no actor: the inviter was checked). */
export function decideAddInvitee(state: UserGroupsState, ctx: GroupContext, cmd: { user_id: number; group_ids: number[] }): Fact[] {
    return cmd.group_ids.flatMap((id): Fact[] => {
    const group = state.groups.get(id);
    if (!group || group.deactivated || group.members.includes(cmd.user_id)) return [];
    return [{ type: 'UserGroupMembersAdded', group_id: id, user_ids: [cmd.user_id], audience: ACTIVE_USERS }];
  });
}

/** The group a command changes: a custom group that exists and is active. */
function groupToChange(state: UserGroupsState, groupId: number): GroupRecord {
  if (isSystemGroupId(groupId)) throw badRequest('System groups cannot be modified.');
  const group = state.groups.get(groupId);
  if (!group) throw badRequest('Invalid user group');
  if (group.deactivated) throw badRequest('User group is deactivated.');
  return group;
}

function checkName(state: UserGroupsState, name: string, exceptGroupId?: number): string {
  if (name.trim() === '') throw badRequest("User group name can't be empty!");
  if (codePointLength(name) > MAX_USER_GROUP_NAME_LENGTH) {
    throw badRequest(`User group name cannot exceed ${MAX_USER_GROUP_NAME_LENGTH} characters.`);
  }
  const prefix = USER_GROUP_NAME_RESERVED_PREFIXES.find((p) => name.startsWith(p));
  if (prefix !== undefined) throw badRequest(`User group name cannot start with '${prefix}'.`);
  // Mentions name a group case-insensitively, so two active groups may not differ by case only.
  const lower = name.toLowerCase();
  for (const group of state.groups.values()) {
    if (!group.deactivated && group.group_id !== exceptGroupId && group.name.toLowerCase() === lower) {
      throw badRequest(`User group '${name}' already exists.`);
    }
  }
  return name;
}

function checkDescription(description: string): string {
  if (codePointLength(description) > MAX_USER_GROUP_DESCRIPTION_LENGTH) {
    throw badRequest(`User group description cannot exceed ${MAX_USER_GROUP_DESCRIPTION_LENGTH} characters.`);
  }
  return description;
}

/** Users named as members (or in a setting) must exist and be active. */
function checkUsers(ctx: GroupContext, ids: readonly number[], setting?: string): void {
  for (const id of ids) {
    const user = ctx.users.get(id);
    if (!user || !user.is_active) throw badRequest(setting ? `Invalid user ID ${id} in '${setting}'` : `Invalid user ID: ${id}`);
  }
}

/** Groups named as subgroups must be system groups or active custom groups. */
function checkGroups(state: UserGroupsState, ids: readonly number[]): void {
  for (const id of ids) {
    if (!isSystemGroupId(id) && state.groups.get(id)?.deactivated !== false) throw badRequest(`Invalid user group ID: ${id}`);
  }
}

/** A setting's value in stored form; an unknown member or group is refused naming the setting. */
function parseSetting(state: UserGroupsState, ctx: GroupContext, name: UserGroupSettingName, value: GroupSettingValue): GroupSettingValue {
  const groups = groupDirectoryOf(state);
  const named = typeof value === 'number' ? [value] : value.direct_subgroups;
  const unknown = named.find((id) => !isSystemGroupId(id) && groups.group(id)?.deactivated !== false);
  if (unknown !== undefined) throw badRequest(`Invalid user group ID ${unknown} in '${name}'`);
  const parsed = parseGroupSetting(name, value, USER_GROUP_SETTING_RULES[name], groups);
  checkUsers(ctx, directMembersOf(parsed), name);
  return parsed;
}


export interface CreateUserGroup {
  actor: Actor;
  name: string;
  description: string;
  members: number[];
  subgroups?: number[];
  settings: Partial<UserGroupSettings>;
}

/**
 * Zulip's defaults for a new group: its creator manages it and adds members; anyone may
 * leave and mention it; nobody joins or removes others unless given the right.
 */
function defaultSettings(creatorId: number): UserGroupSettings {
  const creator = { direct_members: [creatorId], direct_subgroups: [] };
  return {
    can_add_members_group: creator,
    can_join_group: SYSTEM_GROUP.nobody,
    can_leave_group: SYSTEM_GROUP.everyone,
    can_manage_group: creator,
    can_mention_group: SYSTEM_GROUP.everyone,
    can_remove_members_group: SYSTEM_GROUP.nobody,
  };
}

export function decideCreateUserGroup(state: UserGroupsState, ctx: GroupContext, cmd: CreateUserGroup): FactOf<'UserGroupCreated'>[] {
  const actor = ctx.users.get(cmd.actor.user_id);
  const mayCreate =
    !!actor &&
    actor.is_active &&
    !isGuest(actor.role) &&
    (isUserInGroupSetting(ctx.canCreateGroups, memberOf(actor), ctx.now, groupDirectoryOf(state)) || managesAllGroups(state, ctx, cmd.actor));
  if (!mayCreate) throw insufficient();
  const name = checkName(state, cmd.name);
  const description = checkDescription(cmd.description);
  checkUsers(ctx, cmd.members);
  const subgroups = sorted(cmd.subgroups ?? []);
  checkGroups(state, subgroups);
  const settings = defaultSettings(cmd.actor.user_id);
  for (const setting of USER_GROUP_SETTINGS) {
    const value = cmd.settings[setting];
    if (value !== undefined) settings[setting] = parseSetting(state, ctx, setting, value);
  }
  return [
    {
      type: 'UserGroupCreated',
      group_id: state.lastGroupId + 1,
      name,
      description,
      members: sorted(cmd.members),
      subgroup_ids: subgroups,
      creator_id: cmd.actor.user_id,
      date_created: ctx.now,
      ...settings,
      audience: ACTIVE_USERS,
    },
  ];
}

export interface UpdateUserGroup {
  actor: Actor;
  group_id: number;
  name?: string;
  description?: string;
  settings: Partial<Record<UserGroupSettingName, GroupSettingUpdate>>;
}

export function decideUpdateUserGroup(state: UserGroupsState, ctx: GroupContext, cmd: UpdateUserGroup): FactOf<'UserGroupUpdated'>[] {
  const group = groupToChange(state, cmd.group_id);
  const settingNames = USER_GROUP_SETTINGS.filter((name) => cmd.settings[name] !== undefined);
  if (cmd.name === undefined && cmd.description === undefined && settingNames.length === 0) throw badRequest('No new data supplied');
  if (!permitted(state, ctx, cmd.actor, group, 'can_manage_group')) throw insufficient();
  const changes: FactOf<'UserGroupUpdated'>['changes'] = {};
  if (cmd.name !== undefined && cmd.name !== group.name) changes.name = checkName(state, cmd.name, group.group_id);
  if (cmd.description !== undefined && cmd.description !== group.description) changes.description = checkDescription(cmd.description);
  for (const name of settingNames) {
    const update = cmd.settings[name]!;
    // The client's view of the value must still hold, or its change would undo someone else's.
    if (update.old !== undefined && !sameAsCurrent(state, name, update.old, group[name])) {
      throw badRequest(`'old' value for ${name} does not match expected value.`);
    }
    const next = parseSetting(state, ctx, name, update.new);
    if (!sameGroupSetting(next, group[name])) changes[name] = next;
  }
  if (Object.keys(changes).length === 0) return [];
  return [{ type: 'UserGroupUpdated', group_id: group.group_id, changes, audience: ACTIVE_USERS }];
}

/** Compares an `old` value in the form the server stores (an anonymous group of one subgroup is that group). */
function sameAsCurrent(state: UserGroupsState, name: UserGroupSettingName, old: GroupSettingValue, current: GroupSettingValue): boolean {
  let canonical: GroupSettingValue;
  try {
    canonical = parseGroupSetting(name, old, { allowEveryone: true }, groupDirectoryOf(state));
  } catch {
    // A value that is not even valid cannot be the current one.
    return false;
  }
  return sameGroupSetting(canonical, current);
}

export interface UpdateMembers {
  actor: Actor;
  group_id: number;
  add: number[];
  delete: number[];
}

export function decideUpdateMembers(state: UserGroupsState, ctx: GroupContext, cmd: UpdateMembers): Fact[] {
  if (cmd.add.length === 0 && cmd.delete.length === 0) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  const group = groupToChange(state, cmd.group_id);
  const self = (ids: number[]) => ids.length === 1 && ids[0] === cmd.actor.user_id;
  const facts: Fact[] = [];
    if (cmd.add.length > 0) {
    const allowed = self(cmd.add)
      ? permitted(state, ctx, cmd.actor, group, 'can_join_group') || permitted(state, ctx, cmd.actor, group, 'can_add_members_group')
      : permitted(state, ctx, cmd.actor, group, 'can_add_members_group');
    if (!allowed) throw insufficient();
    checkUsers(ctx, cmd.add);
    const present = cmd.add.find((id) => group.members.includes(id));
    if (present !== undefined) throw badRequest(`User ${present} is already a member of this group`);
    facts.push({ type: 'UserGroupMembersAdded', group_id: group.group_id, user_ids: sorted(cmd.add), audience: ACTIVE_USERS });
  }
  if (cmd.delete.length > 0) {
    const allowed = self(cmd.delete)
      ? permitted(state, ctx, cmd.actor, group, 'can_leave_group') || permitted(state, ctx, cmd.actor, group, 'can_remove_members_group')
      : permitted(state, ctx, cmd.actor, group, 'can_remove_members_group');
    if (!allowed) throw insufficient();
    const absent = cmd.delete.find((id) => !group.members.includes(id));
    if (absent !== undefined) throw badRequest(`There is no member '${absent}' in this user group`);
    facts.push({ type: 'UserGroupMembersRemoved', group_id: group.group_id, user_ids: sorted(cmd.delete), audience: ACTIVE_USERS });
  }
  return facts;
}

export interface UpdateSubgroups {
  actor: Actor;
  group_id: number;
  add: number[];
  delete: number[];
}

export function decideUpdateSubgroups(state: UserGroupsState, ctx: GroupContext, cmd: UpdateSubgroups): Fact[] {
  if (cmd.add.length === 0 && cmd.delete.length === 0) throw badRequest('Nothing to do. Specify at least one of "add" or "delete".');
  const group = groupToChange(state, cmd.group_id);
  const facts: Fact[] = [];
    if (cmd.add.length > 0) {
    // Subgroups add their members: the same right as adding members (Zulip's).
    if (!permitted(state, ctx, cmd.actor, group, 'can_add_members_group')) throw insufficient();
    checkGroups(state, cmd.add);
    const present = cmd.add.find((id) => group.subgroup_ids.includes(id));
    if (present !== undefined) throw badRequest(`User group ${present} is already a subgroup of this group.`);
    if (subgroupClosure(cmd.add, groupDirectoryOf(state)).has(group.group_id)) {
      throw badRequest(`User group ${group.group_id} is already a subgroup of one of the passed subgroups.`);
    }
    facts.push({ type: 'UserGroupSubgroupsAdded', group_id: group.group_id, subgroup_ids: sorted(cmd.add), audience: ACTIVE_USERS });
  }
  if (cmd.delete.length > 0) {
    if (!permitted(state, ctx, cmd.actor, group, 'can_remove_members_group')) throw insufficient();
    const absent = cmd.delete.find((id) => !group.subgroup_ids.includes(id));
    if (absent !== undefined) throw badRequest(`User group ${absent} is not a subgroup of this group.`);
    facts.push({ type: 'UserGroupSubgroupsRemoved', group_id: group.group_id, subgroup_ids: sorted(cmd.delete), audience: ACTIVE_USERS });
  }
  return facts;
}

const groupIdsOf = (value: GroupSettingValue): number[] => (typeof value === 'number' ? [value] : value.direct_subgroups);

export function decideDeactivateUserGroup(state: UserGroupsState, ctx: GroupContext, cmd: { actor: Actor; group_id: number }): Fact[] {
  const group = groupToChange(state, cmd.group_id);
  if (!permitted(state, ctx, cmd.actor, group, 'can_manage_group')) throw insufficient();
  const others = [...state.groups.values()].filter((g) => !g.deactivated && g.group_id !== group.group_id);
  if (others.some((g) => g.subgroup_ids.includes(group.group_id))) {
    throw badRequest('You cannot deactivate a user group that is subgroup of any user group.');
  }
  // A setting naming a deactivated group would hold a group nobody can see or change.
  const usedBySetting = others.some((g) => USER_GROUP_SETTINGS.some((name) => groupIdsOf(g[name]).includes(group.group_id)));
  if (usedBySetting || ctx.channelSettingGroupIds.has(group.group_id)) {
    throw badRequest('You cannot deactivate a user group which is used for setting.');
  }
  return [{ type: 'UserGroupDeactivated', group_id: group.group_id, audience: ACTIVE_USERS }];
}
