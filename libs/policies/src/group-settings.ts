/**
 * Group-setting rules: who is in the group a setting names (the one membership rule every
 * permission check goes through), and which values a setting accepts, in the form Zulip
 * stores and reports them.
 */
import { badRequest, ROLE, SYSTEM_GROUP, SYSTEM_GROUP_NAMES, type GroupMember, type GroupSettingRules, type GroupSettingValue } from '@teamchat/contracts';
import { hasRole, isAdministrator, isModerator, isOwner } from './roles';

const isSystemGroup = (id: number) => Object.hasOwn(SYSTEM_GROUP_NAMES, id);

/** A custom user group as membership sees it: its direct members and direct subgroups. */
export interface DirectoryGroup {
  readonly direct_members: readonly number[];
  readonly direct_subgroups: readonly number[];
  readonly deactivated: boolean;
}

/**
 * The custom user groups, as each service projects them from the accounts' group facts
 * (libs/directory's UserGroups). Pure lookups: the caller loads the groups first.
 */
export interface GroupDirectory {
  /** The custom group with this id, deactivated or not; undefined for system groups and unknown ids. */
  group(id: number): DirectoryGroup | undefined;
  /**
   * The organization's waiting_period_threshold (days before a member is a full member),
   * as the projection that made this directory saw it; absent: Zulip's default.
   */
  readonly waitingPeriodDays?: number;
}

/** No custom groups: what a caller without a projection of them sees. */
export const NO_CUSTOM_GROUPS: GroupDirectory = { group: () => undefined };

/**
 * Members become full members after this many days (Zulip's `waiting_period_threshold`),
 * unless the organization's settings say otherwise (GroupDirectory.waitingPeriodDays).
 * Zulip's default is 0: every member is a full member.
 */
export const FULL_MEMBER_WAITING_PERIOD_DAYS = 0;

function inSystemGroup(groupId: number, user: GroupMember, nowSeconds: number, waitingPeriodDays: number): boolean {
  switch (groupId) {
    case SYSTEM_GROUP.internet:
    case SYSTEM_GROUP.everyone:
      return true;
    case SYSTEM_GROUP.members:
      return hasRole(user.role, ROLE.member);
    case SYSTEM_GROUP.fullmembers:
      // Moderators and above are full members whatever their age, as in Zulip (the group
      // has role:moderators as a subgroup).
      return (
        user.role < ROLE.member ||
        (user.role === ROLE.member && nowSeconds - user.date_joined >= waitingPeriodDays * 24 * 3600)
      );
    case SYSTEM_GROUP.moderators:
      return isModerator(user.role);
    case SYSTEM_GROUP.administrators:
      return isAdministrator(user.role);
    case SYSTEM_GROUP.owners:
      return isOwner(user.role);
    default:
      return false;
  }
}

/**
 * Whether the user is in the group a setting names (the one membership rule). System
 * groups follow roles; custom groups are resolved through `groups`, recursively through
 * their subgroups (each group visited once, so a cycle cannot loop).
 */
export function isUserInGroupSetting(
  setting: GroupSettingValue,
  user: GroupMember,
  nowSeconds: number,
  groups: GroupDirectory = NO_CUSTOM_GROUPS,
): boolean {
  const visited = new Set<number>();
  const inGroup = (id: number): boolean => {
    if (isSystemGroup(id)) return inSystemGroup(id, user, nowSeconds, groups.waitingPeriodDays ?? FULL_MEMBER_WAITING_PERIOD_DAYS);
    if (visited.has(id)) return false;
    visited.add(id);
    const group = groups.group(id);
    return group !== undefined && (group.direct_members.includes(user.user_id) || group.direct_subgroups.some(inGroup));
  };
  if (typeof setting === 'number') return inGroup(setting);
  return setting.direct_members.includes(user.user_id) || setting.direct_subgroups.some(inGroup);
}

/** Every group reachable from `ids` through subgroups, `ids` included (custom and system groups). */
export function subgroupClosure(ids: readonly number[], groups: GroupDirectory): Set<number> {
  const seen = new Set<number>();
  const stack = [...ids];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const subgroups = isSystemGroup(id) ? SYSTEM_SUBGROUPS[id] ?? [] : groups.group(id)?.direct_subgroups ?? [];
    stack.push(...subgroups);
  }
  return seen;
}

/** How the system groups nest, as Zulip nests them: each holds the next higher role's group. */
const SYSTEM_SUBGROUPS: Readonly<Record<number, readonly number[]>> = {
  [SYSTEM_GROUP.internet]: [SYSTEM_GROUP.everyone],
  [SYSTEM_GROUP.everyone]: [SYSTEM_GROUP.members],
  [SYSTEM_GROUP.members]: [SYSTEM_GROUP.fullmembers],
  [SYSTEM_GROUP.fullmembers]: [SYSTEM_GROUP.moderators],
  [SYSTEM_GROUP.moderators]: [SYSTEM_GROUP.administrators],
  [SYSTEM_GROUP.administrators]: [SYSTEM_GROUP.owners],
};

/** The users of `users` in the group or setting (recursive): a group's members as GET /user_groups/{id}/members gives them. */
export function membersOfGroupSetting(setting: GroupSettingValue, users: readonly GroupMember[], nowSeconds: number, groups: GroupDirectory): number[] {
  return users
    .filter((user) => isUserInGroupSetting(setting, user, nowSeconds, groups))
    .map((user) => user.user_id)
    .sort((a, b) => a - b);
}

const sortedUnique = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);

/**
 * Checks a requested value and brings it to the form Zulip stores and reports: an
 * anonymous group of exactly one subgroup is that group, an empty one is role:nobody.
 * Groups are system groups or the active custom groups of `groups`. Direct members must
 * be checked by the caller, who knows the users.
 */
export function parseGroupSetting(
  name: string,
  value: GroupSettingValue,
  rules: GroupSettingRules,
  groups: GroupDirectory = NO_CUSTOM_GROUPS,
): GroupSettingValue {
  const known = (id: number) => isSystemGroup(id) || groups.group(id)?.deactivated === false;
  let id: number;
  if (typeof value === 'number') {
    id = value;
  } else {
    const unknown = value.direct_subgroups.find((g) => !known(g));
    if (unknown !== undefined) throw badRequest(`Invalid user group ID: ${unknown}`);
    const direct_members = sortedUnique(value.direct_members);
    const direct_subgroups = sortedUnique(value.direct_subgroups);
    if (direct_members.length > 0 || direct_subgroups.length > 1) return { direct_members, direct_subgroups };
    id = direct_subgroups[0] ?? SYSTEM_GROUP.nobody;
  }
  if (!known(id)) throw badRequest(`Invalid user group ID: ${id}`);
  // As Zulip: a permission is never granted to the whole internet, and some settings
  // never to guests (or, for mentions, to the owners).
  if (
    id === SYSTEM_GROUP.internet ||
    (id === SYSTEM_GROUP.everyone && !rules.allowEveryone) ||
    (id === SYSTEM_GROUP.owners && rules.allowOwners === false)
  ) {
    throw badRequest(`'${name}' setting cannot be set to '${SYSTEM_GROUP_NAMES[id]}' group.`);
  }
  return id;
}

/** Equality of two values in stored form: the same group, or the same members and subgroups. */
export function sameGroupSetting(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const same = (x: number[], y: number[]) => {
    const xs = new Set(x);
    const ys = new Set(y);
    return xs.size === ys.size && [...xs].every((id) => ys.has(id));
  };
  return same(a.direct_members, b.direct_members) && same(a.direct_subgroups, b.direct_subgroups);
}

/** The users an anonymous group names directly (to check that they exist). */
export const directMembersOf = (value: GroupSettingValue): number[] => (typeof value === 'number' ? [] : value.direct_members);
