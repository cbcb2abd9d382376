/**
 * PATCH /settings (and its deprecated aliases): checks the whole request first, then the
 * account changes on the organization's stream and the personal settings on each target's
 * own data stream. An email change sends its confirmation link through the Mailer; the
 * link's key is never stored, only its hash.
 */
import { createHash, randomBytes } from 'node:crypto';
import { badRequest, streams, type Actor, type RealmSettings, type UpdateSettingsParams, type UserSettingName } from '@teamchat/contracts';
import type { Directory, UserDoc } from '@teamchat/directory';
import type { AggregateRepository, AppendResult, Mailer, ServerConfig } from '@teamchat/platform';
import { dummyEmail, emailDomainOf, isAdministrator, maySeeRealEmail, type GroupDirectory } from '@teamchat/policies';
import { checkPasswordChange, decideAccountChanges, decideConfirmEmailChange } from '../domain/account-settings';
import { personAudience, type OrganizationState } from '../domain/organization';
import { hashPassword, MAX_PASSWORD_LENGTH, passwordMatches } from '../domain/passwords';
import type { UserDataState } from '../domain/user-data';
import { checkSettings, decideUpdateSettings, settingOf, type SettingChanges } from '../domain/user-settings';
import type { AccountsReadModel } from '../projections/credentials';
import { groupMembers } from '../queries/user-groups';

export interface SettingsDeps {
  organization: AggregateRepository<OrganizationState>;
  userData: AggregateRepository<UserDataState>;
  directory: Pick<Directory, 'allUsers' | 'userById'>;
  accounts: Pick<AccountsReadModel, 'passwords'>;
  userGroups: { snapshot(): Promise<Parameters<typeof groupMembers>[1] & GroupDirectory> };
  realmSettings: { current(): Promise<RealmSettings> };
  mailer: Mailer;
  config: Pick<ServerConfig, 'realmUri' | 'realmHost'>;
}

const ACCOUNT_PARAMS = ['full_name', 'email', 'old_password', 'new_password'] as const;
const positionOf = (append: AppendResult | undefined) => append?.positions.at(-1);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The personal settings of a request (everything but the account parameters and target_users). */
function settingChangesOf(params: UpdateSettingsParams): SettingChanges {
  const { target_users: _t, full_name: _f, email: _e, old_password: _o, new_password: _n, ...settings } = params;
  return settings as SettingChanges;
}

/** target_users: the named users and every active member of the named groups, each once. */
async function targetsOf(deps: SettingsDeps, actor: Actor, target: NonNullable<UpdateSettingsParams['target_users']>): Promise<number[]> {
  if (!isAdministrator(actor.role)) throw badRequest('Insufficient permission');
  const users = await deps.directory.allUsers();
  const active = new Set(users.filter((u) => u.is_active).map((u) => u._id));
  const ids = new Set<number>();
  for (const id of target.user_ids ?? []) {
    if (!active.has(id)) throw badRequest(`Invalid user ID: ${id}`);
    ids.add(id);
  }
  if (target.group_ids?.length) {
    const groups = await deps.userGroups.snapshot();
    for (const groupId of target.group_ids) for (const id of groupMembers(users, groups, groupId, false)) ids.add(id);
  }
  return [...ids].sort((a, b) => a - b);
}

/** The address a time zone's realm_user event shows: the real one only where everyone may see it. */
function shownEmail(user: UserDoc, data: UserDataState, realm: RealmSettings, host: string): string {
  const everyone = settingOf(data, 'email_address_visibility') === 1 && realm.email_address_visibility === 1;
  return user.is_bot || everyone ? user.email : dummyEmail(user._id, host);
}

async function applySettings(deps: SettingsDeps, actor: Actor, userId: number, changes: SettingChanges, skip: boolean): Promise<number | undefined> {
  const user = await deps.directory.userById(userId);
  if (!user) return undefined;
  const realm = await deps.realmSettings.current();
  const profileChange = changes.timezone !== undefined || changes.email_address_visibility !== undefined;
  const orgState = profileChange ? (await deps.organization.load(streams.organization)).state : undefined;
  const audience = orgState ? personAudience(orgState, [userId]) : [];
  const host = emailDomainOf(deps.config.realmHost);
  const emailViewers = orgState && changes.email_address_visibility !== undefined
    ? {
        viewer_ids: audience.filter((id) => id !== userId),
        email: user.email,
        dummy: dummyEmail(userId, host),
        maySee: (viewerId: number, own: number) => {
          const viewer = orgState.usersById.get(viewerId);
          const subject = { user_id: userId, is_bot: user.is_bot };
          return viewer !== undefined && maySeeRealEmail(viewer, subject, realm.email_address_visibility) && maySeeRealEmail(viewer, subject, own);
        },
      }
    : undefined;
  const { append } = await deps.userData.execute(streams.userData(userId), (state) => ({
    facts: decideUpdateSettings(state, {
      user_id: userId,
      changes,
      ...(actor.user_id !== userId ? { acting_user_id: actor.user_id, skip_if_already_edited: skip } : {}),
      ...(changes.timezone !== undefined
        ? { profile: { audience_user_ids: audience, email: shownEmail(user, state, realm, host) } }
        : {}),
      ...(emailViewers ? { emailViewers } : {}),
    }),
    result: undefined,
  }));
  return positionOf(append);
}

export async function updateSettings(deps: SettingsDeps, actor: Actor, params: UpdateSettingsParams): Promise<{ value: Record<string, never>; position: number | undefined }> {
  const changes = checkSettings(settingChangesOf(params));
  if (params.target_users !== undefined) {
    const account = ACCOUNT_PARAMS.find((name) => params[name] !== undefined);
    if (account !== undefined) throw badRequest(`${account} cannot be changed for other users`);
    const targets = await targetsOf(deps, actor, params.target_users);
    let position: number | undefined;
    for (const userId of targets) position = (await applySettings(deps, actor, userId, changes, params.target_users.skip_if_already_edited === true)) ?? position;
    return { value: {}, position };
  }

  // The account changes first: they are checked whole, and a refusal leaves the settings too.
  checkPasswordChange(params);
  if ((params.new_password?.length ?? 0) > MAX_PASSWORD_LENGTH || (params.old_password?.length ?? 0) > MAX_PASSWORD_LENGTH) throw badRequest('Password is too long');
  const realm = await deps.realmSettings.current();
  const password =
    params.new_password !== undefined
      ? {
          old_given: params.old_password !== undefined,
          old_matches: await passwordMatches(params.old_password ?? '', (await deps.accounts.passwords.get(actor.user_id))?.password_hash),
          new_hash: await hashPassword(params.new_password),
        }
      : undefined;
  const key = params.email !== undefined ? randomBytes(24).toString('base64url') : undefined;
  const { result: facts, append } = await deps.organization.execute(streams.organization, (state) => {
    const decided = decideAccountChanges(state, {
      actor,
      nameChangesDisabled: realm.name_changes_disabled,
      emailChangesDisabled: realm.email_changes_disabled,
      ...(params.full_name !== undefined ? { full_name: params.full_name } : {}),
      ...(password ? { password } : {}),
      ...(params.email !== undefined && key ? { email: { new_email: params.email, key_hash: sha256(key), now: Date.now() } } : {}),
    });
    // Settings are checked against the user's data before the account facts are stored.
    return { facts: decided, result: decided };
  });
  let position = positionOf(append);
  const requested = facts.find((f) => f.type === 'EmailChangeRequested');
  if (requested && key) await sendConfirmation(deps, requested.new_email, key);
  if (Object.keys(changes).length) position = (await applySettings(deps, actor, actor.user_id, changes, false)) ?? position;
  return { value: {}, position };
}

/** The link goes only to the new address: whoever opens it proves they receive mail there. */
async function sendConfirmation(deps: SettingsDeps, to: string, key: string): Promise<void> {
  const link = `${deps.config.realmUri.replace(/\/$/, '')}/api/v1/settings/email/confirm/${key}`;
  await deps.mailer.send({
    to,
    subject: 'Verify your new email address',
    text: `Open this link to use ${to} as the email address of your account:\n\n${link}\n\nThe link works for one day. If you did not ask for this change, ignore this mail.\n`,
  });
}

export async function confirmEmailChange(deps: SettingsDeps, key: string) {
  const realm = await deps.realmSettings.current();
  const pendingUser = (await deps.organization.load(streams.organization)).state.pendingEmailChanges.get(sha256(key))?.user_id;
  const own = pendingUser === undefined ? undefined : settingOf((await deps.userData.load(streams.userData(pendingUser))).state, 'email_address_visibility');
  const mayEmail = (viewer: { user_id: number; role: number }, subject: { user_id: number; is_bot: boolean }) =>
    maySeeRealEmail(viewer, subject, realm.email_address_visibility) && maySeeRealEmail(viewer, subject, Number(own ?? 1));
  const { result, append } = await deps.organization.execute(streams.organization, (state) => {
    const facts = decideConfirmEmailChange(state, { key_hash: sha256(key), now: Date.now(), maySeeRealEmail: mayEmail });
    return { facts, result: facts[0]?.new_email ?? state.usersById.get(state.pendingEmailChanges.get(sha256(key))?.user_id ?? -1)?.email ?? '' };
  });
  return { value: { email: result }, position: positionOf(append) };
}

export type { UserSettingName };
