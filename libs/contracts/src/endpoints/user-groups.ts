/** The user group endpoints (endpoint 10 and those clients use around it), answered by accounts. */
import { z } from 'zod';
import { GroupSettingUpdate, GroupSettingValue, USER_GROUP_SETTINGS, UserGroup, type UserGroupSettingName } from '../groups';
import { EmptyReply, endpoint } from './contract';

const int = () => z.number().int();

/** Every group-setting of a user group as an optional parameter of the given form. */
function groupSettingParams<T extends z.ZodType>(form: T) {
  return Object.fromEntries(USER_GROUP_SETTINGS.map((name) => [name, form.optional()])) as Record<UserGroupSettingName, z.ZodOptional<T>>;
}

/** Zulip's path parameter is `user_group_id`; services call it `group_id`. */
const wireNames = { user_group_id: 'group_id' } as const;
const GroupIdParams = z.object({ group_id: int() });

export const CreateUserGroupParams = z.object({
  name: z.string(),
  description: z.string(),
  members: z.array(int()),
  subgroups: z.array(int()).optional(),
  ...groupSettingParams(GroupSettingValue),
});
export type CreateUserGroupParams = z.infer<typeof CreateUserGroupParams>;

export const UpdateUserGroupParams = GroupIdParams.extend({
  name: z.string().optional(),
  description: z.string().optional(),
  ...groupSettingParams(GroupSettingUpdate),
});
export type UpdateUserGroupParams = z.infer<typeof UpdateUserGroupParams>;

const AddDelete = GroupIdParams.extend({ add: z.array(int()).optional(), delete: z.array(int()).optional() });

export const userGroupsEndpoints = {
  createUserGroup: endpoint({
    service: 'accounts',
    subject: 'accounts.create_user_group',
    http: { method: 'POST', path: '/user_groups/create' },
    auth: true,
    params: CreateUserGroupParams,
    reply: z.object({ group_id: int() }),
  }),
  listUserGroups: endpoint({
    service: 'accounts',
    subject: 'accounts.list_user_groups',
    http: { method: 'GET', path: '/user_groups' },
    auth: true,
    params: z.object({ include_deactivated_groups: z.boolean().optional() }),
    reply: z.object({ user_groups: z.array(UserGroup) }),
  }),
  updateUserGroup: endpoint({
    service: 'accounts',
    subject: 'accounts.update_user_group',
    http: { method: 'PATCH', path: '/user_groups/{user_group_id}', wireNames },
    auth: true,
    params: UpdateUserGroupParams,
    reply: EmptyReply,
  }),
  updateUserGroupMembers: endpoint({
    service: 'accounts',
    subject: 'accounts.update_user_group_members',
    http: { method: 'POST', path: '/user_groups/{user_group_id}/members', wireNames },
    auth: true,
    params: AddDelete,
    reply: EmptyReply,
  }),
  updateUserGroupSubgroups: endpoint({
    service: 'accounts',
    subject: 'accounts.update_user_group_subgroups',
    http: { method: 'POST', path: '/user_groups/{user_group_id}/subgroups', wireNames },
    auth: true,
    params: AddDelete,
    reply: EmptyReply,
  }),
  getUserGroupMembers: endpoint({
    service: 'accounts',
    subject: 'accounts.get_user_group_members',
    http: { method: 'GET', path: '/user_groups/{user_group_id}/members', wireNames },
    auth: true,
    params: GroupIdParams.extend({ direct_member_only: z.boolean().optional() }),
    reply: z.object({ members: z.array(int()) }),
  }),
  getIsUserGroupMember: endpoint({
    service: 'accounts',
    subject: 'accounts.get_is_user_group_member',
    http: { method: 'GET', path: '/user_groups/{user_group_id}/members/{user_id}', wireNames },
    auth: true,
    params: GroupIdParams.extend({ user_id: int(), direct_member_only: z.boolean().optional() }),
    reply: z.object({ is_user_group_member: z.boolean() }),
  }),
  getUserGroupSubgroups: endpoint({
    service: 'accounts',
    subject: 'accounts.get_user_group_subgroups',
    http: { method: 'GET', path: '/user_groups/{user_group_id}/subgroups', wireNames },
    auth: true,
    params: GroupIdParams.extend({ direct_subgroup_only: z.boolean().optional() }),
    reply: z.object({ subgroups: z.array(int()) }),
  }),
  deactivateUserGroup: endpoint({
    service: 'accounts',
    subject: 'accounts.deactivate_user_group',
    http: { method: 'POST', path: '/user_groups/{user_group_id}/deactivate', wireNames },
    auth: true,
    params: GroupIdParams,
    reply: EmptyReply,
  }),
};
