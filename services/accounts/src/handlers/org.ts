/**
 * Organization settings, user status and custom profile field commands: load the
 * command's stream, read the users (and for PATCH /realm the groups and the name) into the
 * context, decide, append.
 */
import {
  orgStreams,
  REALM_SETTINGS,
  REALM_SETTING_NAMES,
  streams,
  type Actor,
  type CreateProfileFieldParams,
  type Fact,
  type ProfileDataItem,
  type UpdateProfileFieldParams,
  type UpdateRealmParams,
  type UpdateStatusParams,
} from '@teamchat/contracts';
import type { StoredRealmEmoji } from '@teamchat/contracts';
import type { AggregateRepository, AppendResult } from '@teamchat/platform';
import type { GroupDirectory } from '@teamchat/policies';
import type { OrganizationState } from '../domain/organization';
import {
  decideCreateField,
  decideDeleteField,
  decideRemoveProfileData,
  decideReorderFields,
  decideUpdateField,
  decideUpdateProfileData,
  type ProfileContext,
  type ProfileFieldsState,
} from '../domain/profile-fields';
import { decideUpdateRealm, type RealmSettingsState } from '../domain/realm-settings';
import { decideUpdateStatus, type UserStatusState } from '../domain/user-status';

export interface OrgCommandDeps {
  organization: AggregateRepository<OrganizationState>;
  realmSettings: AggregateRepository<RealmSettingsState>;
  userStatus: AggregateRepository<UserStatusState>;
  profileFields: AggregateRepository<ProfileFieldsState>;
  /** The custom groups as accounts' projection holds them (for group-settings). */
  groups(): Promise<GroupDirectory>;
  /** The organization's name as created. */
  organizationName(): Promise<string>;
  /** A channel as accounts' directory knows it (for channel-valued organization settings). */
  channel?(id: number): Promise<{ invite_only: boolean; is_archived: boolean } | undefined>;
  /** The organization's custom emoji (for statuses of reaction type realm_emoji). */
  realmEmoji?(): Promise<readonly StoredRealmEmoji[]>;
}

const positionOf = (append: AppendResult | undefined) => append?.positions.at(-1);

async function usersOf(deps: OrgCommandDeps): Promise<ProfileContext> {
  const { state } = await deps.organization.load(streams.organization);
  return { users: state.usersById };
}

/** The channels a request's channel-valued settings name, looked up for the decider. */
async function channelsNamed(deps: OrgCommandDeps, params: UpdateRealmParams) {
  const channels = new Map<number, { invite_only: boolean; is_archived: boolean }>();
  for (const name of REALM_SETTING_NAMES) {
    const id = params[name];
    if (REALM_SETTINGS[name].type.kind !== 'channel' || typeof id !== 'number' || id < 0) continue;
    const channel = await deps.channel?.(id);
    if (channel) channels.set(id, channel);
  }
  return channels;
}

export async function updateRealm(deps: OrgCommandDeps, actor: Actor, params: UpdateRealmParams) {
  const { append } = await deps.realmSettings.executeWith(
    orgStreams.realmSettings,
    async () => ({
      ...(await usersOf(deps)),
      groups: await deps.groups(),
      organizationName: await deps.organizationName(),
      channels: await channelsNamed(deps, params),
    }),
    (state, ctx) => ({ facts: decideUpdateRealm(state, ctx, { actor, params }), result: undefined }),
  );
  return positionOf(append);
}

export async function updateStatus(deps: OrgCommandDeps, actor: Actor, userId: number, params: UpdateStatusParams) {
  const { append } = await deps.userStatus.executeWith(
    orgStreams.userStatus(userId),
    async () => ({ ...(await usersOf(deps)), custom_emoji: deps.realmEmoji ? await deps.realmEmoji() : [] }),
    (state, ctx) => ({ facts: decideUpdateStatus(state, ctx, { actor, user_id: userId, params }), result: undefined }),
  );
  return positionOf(append);
}

function executeOnFields<R>(deps: OrgCommandDeps, decide: (state: ProfileFieldsState, ctx: ProfileContext) => { facts: Fact[]; result: R }) {
  return deps.profileFields.executeWith(orgStreams.customProfileFields, () => usersOf(deps), decide);
}

export async function createProfileField(deps: OrgCommandDeps, actor: Actor, params: CreateProfileFieldParams) {
  const { result, append } = await executeOnFields(deps, (state, ctx) => {
    const facts = decideCreateField(state, ctx, { actor, params });
    return { facts, result: facts[0]!.fields.at(-1)!.id };
  });
  return { id: result, position: positionOf(append) };
}

export async function updateProfileField(deps: OrgCommandDeps, actor: Actor, params: UpdateProfileFieldParams) {
  const { append } = await executeOnFields(deps, (state, ctx) => ({ facts: decideUpdateField(state, ctx, { actor, params }), result: undefined }));
  return positionOf(append);
}

export async function deleteProfileField(deps: OrgCommandDeps, actor: Actor, fieldId: number) {
  const { append } = await executeOnFields(deps, (state, ctx) => ({ facts: decideDeleteField(state, ctx, { actor, field_id: fieldId }), result: undefined }));
  return positionOf(append);
}

export async function reorderProfileFields(deps: OrgCommandDeps, actor: Actor, order: number[]) {
  const { append } = await executeOnFields(deps, (state, ctx) => ({ facts: decideReorderFields(state, ctx, { actor, order }), result: undefined }));
  return positionOf(append);
}

/**
 * Sets values of a user's fields: the actor's own, or (administrators, e.g. through
 * PATCH /users/{id}'s profile_data) another user's.
 */
export async function updateProfileData(deps: OrgCommandDeps, actor: Actor, userId: number, items: ProfileDataItem[]) {
  const { append } = await executeOnFields(deps, (state, ctx) => ({
    facts: decideUpdateProfileData(state, ctx, { actor, user_id: userId, items }),
    result: undefined,
  }));
  return positionOf(append);
}

export async function removeProfileData(deps: OrgCommandDeps, actor: Actor, fieldIds: number[]) {
  const { append } = await executeOnFields(deps, (state, ctx) => ({ facts: decideRemoveProfileData(state, ctx, { actor, field_ids: fieldIds }), result: undefined }));
  return positionOf(append);
}
