/**
 * Facts of accounts' user groups stream: custom groups created, changed, their members and
 * subgroups, and deactivated.
 */
import { z } from 'zod';
import { OrganizationAudience } from './audiences';
import { GroupSettingValue, USER_GROUP_SETTINGS } from './groups';

const int = () => z.number().int();

type UserGroupSettingsShape = Record<(typeof USER_GROUP_SETTINGS)[number], typeof GroupSettingValue>;
const userGroupSettingsShape = Object.fromEntries(USER_GROUP_SETTINGS.map((name) => [name, GroupSettingValue])) as UserGroupSettingsShape;

/**
 * User group facts carry their audience: every active user of the organization (named,
 * audiences.ts; Zulip sends `user_group` events to the whole realm).
 */
const GroupAudience = OrganizationAudience;

export const UserGroupCreated = z.object({
  type: z.literal('UserGroupCreated'),
  group_id: int(),
  name: z.string(),
  description: z.string(),
  /** Direct members and direct subgroups. */
  members: z.array(int()),
  subgroup_ids: z.array(int()),
  creator_id: int().nullable(),
  /** Seconds since the epoch. */
  date_created: int(),
  ...userGroupSettingsShape,
  ...GroupAudience,
});

export const UserGroupUpdated = z.object({
  type: z.literal('UserGroupUpdated'),
  group_id: int(),
  /** Only what changed. */
  changes: z.object({ name: z.string(), description: z.string(), ...userGroupSettingsShape }).partial(),
  ...GroupAudience,
});

export const UserGroupMembersAdded = z.object({ type: z.literal('UserGroupMembersAdded'), group_id: int(), user_ids: z.array(int()), ...GroupAudience });
export const UserGroupMembersRemoved = z.object({ type: z.literal('UserGroupMembersRemoved'), group_id: int(), user_ids: z.array(int()), ...GroupAudience });
export const UserGroupSubgroupsAdded = z.object({ type: z.literal('UserGroupSubgroupsAdded'), group_id: int(), subgroup_ids: z.array(int()), ...GroupAudience });
export const UserGroupSubgroupsRemoved = z.object({ type: z.literal('UserGroupSubgroupsRemoved'), group_id: int(), subgroup_ids: z.array(int()), ...GroupAudience });
export const UserGroupDeactivated = z.object({ type: z.literal('UserGroupDeactivated'), group_id: int(), ...GroupAudience });

export const USER_GROUP_FACTS = [
  UserGroupCreated,
  UserGroupUpdated,
  UserGroupMembersAdded,
  UserGroupMembersRemoved,
  UserGroupSubgroupsAdded,
  UserGroupSubgroupsRemoved,
  UserGroupDeactivated,
] as const;
