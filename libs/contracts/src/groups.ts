/**
 * Group-setting values, Zulip's permission model: who may do something is a user group,
 * named by its id, or an anonymous group of users and named groups
 * (`{direct_members, direct_subgroups}`). Only the role-based system groups exist so far;
 * this module names them and gives the shape of setting values; who is in a group and
 * which values a setting accepts are rules of @teamchat/policies.
 */
import { z } from 'zod';

/**
 * The system groups, with ids fixed here so that a stored setting keeps its meaning.
 * Custom user groups, when they come, are allocated ids above these.
 */
export const SYSTEM_GROUP = {
  internet: 1,
  everyone: 2,
  members: 3,
  fullmembers: 4,
  moderators: 5,
  administrators: 6,
  owners: 7,
  nobody: 8,
} as const;

export const SYSTEM_GROUP_NAMES: Readonly<Record<number, string>> = {
  [SYSTEM_GROUP.internet]: 'role:internet',
  [SYSTEM_GROUP.everyone]: 'role:everyone',
  [SYSTEM_GROUP.members]: 'role:members',
  [SYSTEM_GROUP.fullmembers]: 'role:fullmembers',
  [SYSTEM_GROUP.moderators]: 'role:moderators',
  [SYSTEM_GROUP.administrators]: 'role:administrators',
  [SYSTEM_GROUP.owners]: 'role:owners',
  [SYSTEM_GROUP.nobody]: 'role:nobody',
};

export const AnonymousGroup = z.object({
  direct_members: z.array(z.number().int()),
  direct_subgroups: z.array(z.number().int()),
});
export const GroupSettingValue = z.union([z.number().int(), AnonymousGroup]);
export type GroupSettingValue = z.infer<typeof GroupSettingValue>;

/** A user group as clients see it (POST /register's `realm_user_groups`, `user_group` events). */
export const UserGroup = z.object({
  id: z.number().int(),
  name: z.string(),
  description: z.string(),
  members: z.array(z.number().int()),
  direct_subgroup_ids: z.array(z.number().int()),
  is_system_group: z.boolean(),
  date_created: z.number().int().nullable(),
  creator_id: z.number().int().nullable(),
  deactivated: z.boolean(),
  can_add_members_group: GroupSettingValue,
  can_join_group: GroupSettingValue,
  can_leave_group: GroupSettingValue,
  can_manage_group: GroupSettingValue,
  can_mention_group: GroupSettingValue,
  can_remove_members_group: GroupSettingValue,
});
export type UserGroup = z.infer<typeof UserGroup>;

/** A change to a group-setting: the new value and, optionally, the value the client saw. */
export const GroupSettingUpdate = z.object({ new: GroupSettingValue, old: GroupSettingValue.optional() });
export type GroupSettingUpdate = z.infer<typeof GroupSettingUpdate>;

/** A user as group membership sees them. */
export interface GroupMember {
  user_id: number;
  role: number;
  /** Seconds since the epoch. */
  date_joined: number;
}

export interface GroupSettingRules {
  /** Whether role:everyone (guests included) may hold the permission. */
  allowEveryone: boolean;
  /** Whether role:owners may be the value (not for can_mention_group, as the spec says). Default true. */
  allowOwners?: boolean;
}

/** A user group's own permission settings, in the order Zulip lists them. */
export const USER_GROUP_SETTINGS = [
  'can_add_members_group',
  'can_join_group',
  'can_leave_group',
  'can_manage_group',
  'can_mention_group',
  'can_remove_members_group',
] as const;
export type UserGroupSettingName = (typeof USER_GROUP_SETTINGS)[number];
export type UserGroupSettings = Record<UserGroupSettingName, GroupSettingValue>;

/**
 * Which values each group setting accepts (Zulip's `NamedUserGroup.GROUP_PERMISSION_SETTINGS`):
 * can_manage_group never role:everyone, can_mention_group never role:owners (the spec's two
 * rules), and the membership settings only where guests may hold them in Zulip.
 */
export const USER_GROUP_SETTING_RULES: Readonly<Record<UserGroupSettingName, GroupSettingRules>> = {
  can_add_members_group: { allowEveryone: false },
  can_join_group: { allowEveryone: false },
  can_leave_group: { allowEveryone: true },
  can_manage_group: { allowEveryone: false },
  can_mention_group: { allowEveryone: true, allowOwners: false },
  can_remove_members_group: { allowEveryone: false },
};

/** Zulip's limits on a named group (`NamedUserGroup.MAX_NAME_LENGTH`, `MAX_DESCRIPTION_LENGTH`), in code points. */
export const MAX_USER_GROUP_NAME_LENGTH = 100;
export const MAX_USER_GROUP_DESCRIPTION_LENGTH = 1024;
/** Names a group may not start with: they would read as a system group or another mention syntax, as in Zulip. */
export const USER_GROUP_NAME_RESERVED_PREFIXES = ['@', 'role:', 'user:', 'stream:', 'channel:'] as const;

/** Whether an id names one of the system groups. */
export const isSystemGroupId = (id: number): boolean => Object.hasOwn(SYSTEM_GROUP_NAMES, id);
