/**
 * Group-setting rules: who is in the group a setting names (the one membership rule every
 * permission check goes through), and which values a setting accepts, in the form Zulip
 * stores and reports them.
 */
import { badRequest, ROLE, SYSTEM_GROUP, SYSTEM_GROUP_NAMES, type GroupMember, type GroupSettingRules, type GroupSettingValue } from '@teamchat/contracts';
import { hasRole, isAdministrator, isModerator, isOwner } from './roles';

const isSystemGroup = (id: number) => Object.hasOwn(SYSTEM_GROUP_NAMES, id);

/**
 * Members become full members after this many days (Zulip's `waiting_period_threshold`).
 * Zulip's default is 0 and there are no organization settings yet, so every member is a
 * full member.
 */
export const FULL_MEMBER_WAITING_PERIOD_DAYS = 0;

function inSystemGroup(groupId: number, user: GroupMember, nowSeconds: number): boolean {
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
        (user.role === ROLE.member && nowSeconds - user.date_joined >= FULL_MEMBER_WAITING_PERIOD_DAYS * 24 * 3600)
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

/** Whether the user is in the group a setting names (the one membership rule). */
export function isUserInGroupSetting(setting: GroupSettingValue, user: GroupMember, nowSeconds: number): boolean {
  if (typeof setting === 'number') return inSystemGroup(setting, user, nowSeconds);
  return setting.direct_members.includes(user.user_id) || setting.direct_subgroups.some((g) => inSystemGroup(g, user, nowSeconds));
}

const sortedUnique = (ids: number[]) => [...new Set(ids)].sort((a, b) => a - b);

/**
 * Checks a requested value and brings it to the form Zulip stores and reports: an
 * anonymous group of exactly one subgroup is that group, an empty one is role:nobody.
 * Direct members must be checked by the caller, who knows the users.
 */
export function parseGroupSetting(name: string, value: GroupSettingValue, rules: GroupSettingRules): GroupSettingValue {
  let id: number;
  if (typeof value === 'number') {
    id = value;
  } else {
    const unknown = value.direct_subgroups.find((g) => !isSystemGroup(g));
    if (unknown !== undefined) throw badRequest(`Invalid user group ID: ${unknown}`);
    const direct_members = sortedUnique(value.direct_members);
    const direct_subgroups = sortedUnique(value.direct_subgroups);
    if (direct_members.length > 0 || direct_subgroups.length > 1) return { direct_members, direct_subgroups };
    id = direct_subgroups[0] ?? SYSTEM_GROUP.nobody;
  }
  if (!isSystemGroup(id)) throw badRequest(`Invalid user group ID: ${id}`);
  // As Zulip: a permission is never granted to the whole internet, and some settings
  // never to guests.
  if (id === SYSTEM_GROUP.internet || (id === SYSTEM_GROUP.everyone && !rules.allowEveryone)) {
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
