/**
 * User group commands: load the groups' stream, read the organization's users and the
 * groups channels use into the decision's context, decide, append.
 */
import { streams, USER_GROUP_SETTINGS, type Actor, type CreateUserGroupParams, type Fact, type UpdateUserGroupParams } from '@teamchat/contracts';
import type { AggregateRepository, AppendResult } from '@teamchat/platform';
import { ORGANIZATION_POLICY, type OrganizationPolicy } from '@teamchat/policies';
import type { OrganizationState } from '../domain/organization';
import {
  decideCreateUserGroup,
  decideDeactivateUserGroup,
  decideUpdateMembers,
  decideUpdateSubgroups,
  decideUpdateUserGroup,
  type GroupContext,
  type UserGroupsState,
} from '../domain/user-groups';

export interface GroupCommandDeps {
  organization: AggregateRepository<OrganizationState>;
  userGroups: AggregateRepository<UserGroupsState>;
  /** Group ids named by channels' group-settings, from accounts' own projection of channel facts. */
  channelSettingGroupIds(): Promise<Set<number>>;
  /** The organization's current policy (PATCH /realm); Zulip's defaults when absent. */
  policy?(): Promise<OrganizationPolicy>;
}

export async function contextOf(deps: GroupCommandDeps): Promise<GroupContext> {
  const { state } = await deps.organization.load(streams.organization);
  const policy = (await deps.policy?.()) ?? ORGANIZATION_POLICY;
  return {
    users: state.usersById,
    channelSettingGroupIds: await deps.channelSettingGroupIds(),
    canCreateGroups: policy.canCreateGroups,
    canManageAllGroups: policy.canManageAllGroups,
    now: Math.floor(Date.now() / 1000),
  };
}

const positionOf = (append: AppendResult | undefined) => append?.positions.at(-1);

function execute<R>(deps: GroupCommandDeps, decide: (state: UserGroupsState, ctx: GroupContext) => { facts: Fact[]; result: R }) {
  return deps.userGroups.executeWith(streams.userGroups, () => contextOf(deps), decide);
}

export async function createUserGroup(deps: GroupCommandDeps, actor: Actor, params: CreateUserGroupParams) {
  const settings = Object.fromEntries(USER_GROUP_SETTINGS.flatMap((name) => (params[name] === undefined ? [] : [[name, params[name]]])));
  const { result, append } = await execute(deps, (state, ctx) => {
    const facts = decideCreateUserGroup(state, ctx, { actor, ...params, settings });
    return { facts, result: facts[0]!.group_id };
  });
  return { group_id: result, position: positionOf(append) };
}

export async function updateUserGroup(deps: GroupCommandDeps, actor: Actor, params: UpdateUserGroupParams) {
  const settings = Object.fromEntries(USER_GROUP_SETTINGS.flatMap((name) => (params[name] === undefined ? [] : [[name, params[name]]])));
  const { append } = await execute(deps, (state, ctx) => ({
    facts: decideUpdateUserGroup(state, ctx, {
      actor,
      group_id: params.group_id,
      ...(params.name !== undefined ? { name: params.name } : {}),
      ...(params.description !== undefined ? { description: params.description } : {}),
      settings,
    }),
    result: undefined,
  }));
  return positionOf(append);
}

export async function updateMembers(deps: GroupCommandDeps, actor: Actor, params: { group_id: number; add?: number[]; delete?: number[] }) {
  const cmd = { actor, group_id: params.group_id, add: params.add ?? [], delete: params.delete ?? [] };
  const { append } = await execute(deps, (state, ctx) => ({ facts: decideUpdateMembers(state, ctx, cmd), result: undefined }));
  return positionOf(append);
}

export async function updateSubgroups(deps: GroupCommandDeps, actor: Actor, params: { group_id: number; add?: number[]; delete?: number[] }) {
  const cmd = { actor, group_id: params.group_id, add: params.add ?? [], delete: params.delete ?? [] };
  const { append } = await execute(deps, (state, ctx) => ({ facts: decideUpdateSubgroups(state, ctx, cmd), result: undefined }));
  return positionOf(append);
}

export async function deactivateUserGroup(deps: GroupCommandDeps, actor: Actor, groupId: number) {
  const { append } = await execute(deps, (state, ctx) => ({
    facts: decideDeactivateUserGroup(state, ctx, { actor, group_id: groupId }),
    result: undefined,
  }));
  return positionOf(append);
}
