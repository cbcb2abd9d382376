/**
 * User groups as clients read them: GET /user_groups, the members endpoints and POST
 * /register's `realm_user_groups`. System groups are derived from roles; custom groups come
 * from accounts' projection of the group facts (libs/directory's UserGroups).
 */
import { badRequest, isSystemGroupId, ROLE, SYSTEM_GROUP, SYSTEM_GROUP_NAMES, USER_GROUP_SETTINGS, type UserGroup } from '@teamchat/contracts';
import type { GroupSnapshot, UserDoc, UserGroupDoc } from '@teamchat/directory';
import { isUserInGroupSetting, subgroupClosure } from '@teamchat/policies';

/**
 * Zulip's system groups, each role's users as direct members and the higher roles as
 * nested subgroups (owners within administrators within moderators, and so on).
 */
export function systemGroups(users: UserDoc[]): UserGroup[] {
  const roleMembers = (role: number) => users.filter((u) => u.role === role).map((u) => u._id);
  const spec: [number, number[], number[]][] = [
    [SYSTEM_GROUP.owners, roleMembers(ROLE.owner), []],
    [SYSTEM_GROUP.administrators, roleMembers(ROLE.administrator), [SYSTEM_GROUP.owners]],
    [SYSTEM_GROUP.moderators, roleMembers(ROLE.moderator), [SYSTEM_GROUP.administrators]],
    // No waiting period: every member is a full member.
    [SYSTEM_GROUP.fullmembers, roleMembers(ROLE.member), [SYSTEM_GROUP.moderators]],
    [SYSTEM_GROUP.members, [], [SYSTEM_GROUP.fullmembers]],
    [SYSTEM_GROUP.everyone, roleMembers(ROLE.guest), [SYSTEM_GROUP.members]],
    [SYSTEM_GROUP.internet, [], [SYSTEM_GROUP.everyone]],
    [SYSTEM_GROUP.nobody, [], []],
  ];
  return spec
    .sort(([a], [b]) => a - b)
    .map(([id, members, subgroups]) => ({
      id,
      name: SYSTEM_GROUP_NAMES[id] ?? `role:${id}`,
      description: '',
      members,
      direct_subgroup_ids: subgroups,
      is_system_group: true,
      date_created: null,
      creator_id: null,
      deactivated: false,
      can_add_members_group: SYSTEM_GROUP.nobody,
      can_join_group: SYSTEM_GROUP.nobody,
      can_leave_group: SYSTEM_GROUP.nobody,
      can_manage_group: SYSTEM_GROUP.nobody,
      can_mention_group: SYSTEM_GROUP.everyone,
      can_remove_members_group: SYSTEM_GROUP.nobody,
    }));
}

/**
 * A custom group as clients see it. Deactivated users stay direct members (a reactivated
 * user is back in their groups) but are not listed, as in Zulip: clients drop a user
 * from every group when told of the deactivation.
 */
export function customGroupObject(doc: UserGroupDoc, active: ReadonlySet<number>): UserGroup {
  const settings = Object.fromEntries(USER_GROUP_SETTINGS.map((name) => [name, doc[name]])) as Pick<UserGroup, (typeof USER_GROUP_SETTINGS)[number]>;
  return {
    id: doc._id,
    name: doc.name,
    description: doc.description,
    members: doc.members.filter((id) => active.has(id)),
    direct_subgroup_ids: doc.subgroup_ids,
    is_system_group: false,
    date_created: doc.date_created,
    creator_id: doc.creator_id,
    deactivated: doc.deactivated,
    ...settings,
  };
}

/** Every group, system groups first; deactivated custom groups only when asked for. */
export function userGroupObjects(users: UserDoc[], groups: GroupSnapshot, includeDeactivated: boolean): UserGroup[] {
  const activeUsers = users.filter((u) => u.is_active);
  const active = new Set(activeUsers.map((u) => u._id));
  const custom = groups
    .all()
    .filter((doc) => includeDeactivated || !doc.deactivated)
    .map((doc) => customGroupObject(doc, active));
  return [...systemGroups(activeUsers), ...custom];
}

/** A group's members (recursive, or direct only), active users only: GET /user_groups/{id}/members. */
export function groupMembers(users: UserDoc[], groups: GroupSnapshot, groupId: number, directOnly: boolean): number[] {
  const active = users.filter((u) => u.is_active).sort((a, b) => a._id - b._id);
  if (isSystemGroupId(groupId)) {
    if (directOnly) return systemGroups(active).find((g) => g.id === groupId)?.members ?? [];
  } else {
    const doc = groups.doc(groupId);
    if (!doc) throw badRequest('Invalid user group');
    if (directOnly) return doc.members.filter((id) => active.some((u) => u._id === id));
  }
  const now = Math.floor(Date.now() / 1000);
  return active
    .filter((u) => isUserInGroupSetting(groupId, { user_id: u._id, role: u.role, date_joined: u.date_joined }, now, groups))
    .map((u) => u._id);
}

/** A group's subgroups (recursive, or direct only): GET /user_groups/{id}/subgroups. */
export function groupSubgroups(groups: GroupSnapshot, groupId: number, directOnly: boolean): number[] {
  const direct = isSystemGroupId(groupId) ? systemGroups([]).find((g) => g.id === groupId)!.direct_subgroup_ids : groups.doc(groupId)?.subgroup_ids;
  if (!direct) throw badRequest('Invalid user group');
  const ids = directOnly ? direct : [...subgroupClosure(direct, groups)];
  return [...ids].sort((a, b) => a - b);
}
