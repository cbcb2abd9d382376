/**
 * What clients see of custom user groups: `user_group` events to the active users each fact
 * names (Zulip tells the whole organization).
 */
import type { FactOf, UserGroup } from '@teamchat/contracts';
import { same, toOrganization, type AudienceContext, type Delivery } from './delivery';

export const userGroupFanOut = {
  UserGroupCreated: (fact: FactOf<'UserGroupCreated'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, same({ type: 'user_group', op: 'add', group: userGroupOf(fact) })),
  UserGroupUpdated: (fact: FactOf<'UserGroupUpdated'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, same({ type: 'user_group', op: 'update', group_id: fact.group_id, data: fact.changes })),
  UserGroupMembersAdded: (fact: FactOf<'UserGroupMembersAdded'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, same({ type: 'user_group', op: 'add_members', group_id: fact.group_id, user_ids: fact.user_ids })),
  UserGroupMembersRemoved: (fact: FactOf<'UserGroupMembersRemoved'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, same({ type: 'user_group', op: 'remove_members', group_id: fact.group_id, user_ids: fact.user_ids })),
  UserGroupSubgroupsAdded: (fact: FactOf<'UserGroupSubgroupsAdded'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, same({ type: 'user_group', op: 'add_subgroups', group_id: fact.group_id, direct_subgroup_ids: fact.subgroup_ids })),
  UserGroupSubgroupsRemoved: (fact: FactOf<'UserGroupSubgroupsRemoved'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, same({ type: 'user_group', op: 'remove_subgroups', group_id: fact.group_id, direct_subgroup_ids: fact.subgroup_ids })),
  // Clients that list deactivated groups mark it; the others drop it, as Zulip tells each.
  UserGroupDeactivated: (fact: FactOf<'UserGroupDeactivated'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, (queue) =>
      queue.options.include_deactivated_groups
        ? { type: 'user_group', op: 'update', group_id: fact.group_id, data: { deactivated: true } }
        : { type: 'user_group', op: 'remove', group_id: fact.group_id }),
};

function userGroupOf(fact: FactOf<'UserGroupCreated'>): UserGroup {
  return {
    id: fact.group_id,
    name: fact.name,
    description: fact.description,
    members: fact.members,
    direct_subgroup_ids: fact.subgroup_ids,
    is_system_group: false,
    date_created: fact.date_created,
    creator_id: fact.creator_id,
    deactivated: false,
    can_add_members_group: fact.can_add_members_group,
    can_join_group: fact.can_join_group,
    can_leave_group: fact.can_leave_group,
    can_manage_group: fact.can_manage_group,
    can_mention_group: fact.can_mention_group,
    can_remove_members_group: fact.can_remove_members_group,
  };
}
