/**
 * PATCH /settings (and its deprecated aliases): decided as one. Every check runs before the
 * first append (the parameters, the password, the account changes against the
 * organization, the personal settings against each target's data), so a refusal changes
 * nothing; then the account changes go on the organization's stream and the personal
 * settings on each target's own data stream. An email change queues its confirmation link
 * in the mail outbox after those appends: a mail server that is down, slow or refusing
 * leaves the request applied, and the reply's `email_delivery` says where the mail is.
 * The link's key is never stored in a fact, only its hash.
 */
import { createHash, randomBytes } from 'node:crypto';
import { badRequest, streams, type Actor, type RealmSettings, type UpdateSettingsParams, type UserSettingName } from '@teamchat/contracts';
import type { Directory, UserDoc } from '@teamchat/directory';
import type { AggregateRepository, AppendResult, MailQueue, MailState, ServerConfig } from '@teamchat/platform';
import type { Logger } from 'pino';
import { dummyEmail, emailDomainOf, isAdministrator, maySeeRealEmail, type GroupDirectory } from '@teamchat/policies';
import { checkPasswordChange, decideAccountChanges, decideConfirmEmailChange } from '../domain/account-settings';
import { personAudience, type OrganizationState } from '../domain/organization';
import { hashPassword, MAX_PASSWORD_LENGTH, passwordMatches } from '../domain/passwords';
import type { UserDataState } from '../domain/user-data';
import { checkSettings, decideUpdateSettings, settingOf, type SettingChanges } from '../domain/user-settings';
import type { AccountsReadModel } from '../projections/credentials';
import { groupMembers } from '../queries/user-groups';
import { queueMail } from './mail';

export interface SettingsDeps {
  organization: AggregateRepository<OrganizationState>;
  userData: AggregateRepository<UserDataState>;
  directory: Pick<Directory, 'allUsers' | 'userById'>;
  accounts: Pick<AccountsReadModel, 'passwords'>;
  userGroups: { snapshot(): Promise<Parameters<typeof groupMembers>[1] & GroupDirectory> };
  realmSettings: { current(): Promise<RealmSettings> };
  /** The service's mail outbox: mail is queued after the facts, never sent inside the request. */
  mail: MailQueue;
  log: Logger;
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

/** A target's settings change, with everything it needs loaded and checked: running it only appends. */
type PreparedSettings = () => Promise<number | undefined>;

/**
 * Loads what a target's settings change needs and decides it once on the current state,
 * so that a refusal comes before any append of the request; the returned step decides
 * again on the state it appends to (execute's optimistic retry).
 */
async function prepareSettings(deps: SettingsDeps, actor: Actor, userId: number, changes: SettingChanges, skip: boolean): Promise<PreparedSettings | undefined> {
  const user = await deps.directory.userById(userId);
  if (!user) return undefined;
  const realm = await deps.realmSettings.current();
  // A time zone is told to everyone, named; only the viewers of an address are listed.
  const orgState = changes.email_address_visibility !== undefined ? (await deps.organization.load(streams.organization)).state : undefined;
  const host = emailDomainOf(deps.config.realmHost);
  const emailViewers = orgState
    ? {
        viewer_ids: personAudience(orgState, [userId]).filter((id) => id !== userId),
        email: user.email,
        dummy: dummyEmail(userId, host),
        maySee: (viewerId: number, own: number) => {
          const viewer = orgState.usersById.get(viewerId);
          const subject = { user_id: userId, is_bot: user.is_bot };
          return viewer !== undefined && maySeeRealEmail(viewer, subject, realm.email_address_visibility) && maySeeRealEmail(viewer, subject, own);
        },
      }
    : undefined;
  const decide = (state: UserDataState) =>
    decideUpdateSettings(state, {
      user_id: userId,
      changes,
      ...(actor.user_id !== userId ? { acting_user_id: actor.user_id, skip_if_already_edited: skip } : {}),
      ...(changes.timezone !== undefined
        ? { profile: { email: shownEmail(user, state, realm, host) } }
        : {}),
      ...(emailViewers ? { emailViewers } : {}),
    });
  decide((await deps.userData.load(streams.userData(userId))).state);
  return async () => {
    const { append } = await deps.userData.execute(streams.userData(userId), (state) => ({ facts: decide(state), result: undefined }));
    return positionOf(append);
  };
}

type SettingsReply = { value: { email_delivery?: MailState }; position: number | undefined };

/** `session`: the web session the request came with (its hash), which a new password keeps logged in. */
export async function updateSettings(deps: SettingsDeps, actor: Actor, params: UpdateSettingsParams, session?: string): Promise<SettingsReply> {
  const changes = checkSettings(settingChangesOf(params));
  const hasSettings = Object.keys(changes).length > 0;
  if (params.target_users !== undefined) {
    const account = ACCOUNT_PARAMS.find((name) => params[name] !== undefined);
    if (account !== undefined) throw badRequest(`${account} cannot be changed for other users`);
    const targets = await targetsOf(deps, actor, params.target_users);
    // Every target decided before the first append.
    const prepared: PreparedSettings[] = [];
    for (const userId of targets) {
      const step = await prepareSettings(deps, actor, userId, changes, params.target_users.skip_if_already_edited === true);
      if (step) prepared.push(step);
    }
    let position: number | undefined;
    for (const step of prepared) position = (await step()) ?? position;
    return { value: {}, position };
  }

  checkPasswordChange(params);
  if ((params.new_password?.length ?? 0) > MAX_PASSWORD_LENGTH || (params.old_password?.length ?? 0) > MAX_PASSWORD_LENGTH) throw badRequest('Password is too long');
  const realm = await deps.realmSettings.current();
  const password =
    params.new_password !== undefined
      ? {
          old_given: params.old_password !== undefined,
          old_matches: await passwordMatches(params.old_password ?? '', (await deps.accounts.passwords.get(actor.user_id))?.password_hash),
          new_hash: await hashPassword(params.new_password),
          kept_session_hash: session,
        }
      : undefined;
  const key = params.email !== undefined ? randomBytes(24).toString('base64url') : undefined;
  const accountChanges = params.full_name !== undefined || password !== undefined || key !== undefined;
  const decideAccount = (state: OrganizationState) =>
    decideAccountChanges(state, {
      actor,
      nameChangesDisabled: realm.name_changes_disabled,
      emailChangesDisabled: realm.email_changes_disabled,
      ...(params.full_name !== undefined ? { full_name: params.full_name } : {}),
      ...(password ? { password } : {}),
      ...(params.email !== undefined && key ? { email: { new_email: params.email, key_hash: sha256(key), now: Date.now() } } : {}),
    });
  // Decided as one: the account changes and the personal settings are both checked on the
  // current state before either is appended, so a refusal of one leaves the other undone.
  if (accountChanges) decideAccount((await deps.organization.load(streams.organization)).state);
  const settingsStep = hasSettings ? await prepareSettings(deps, actor, actor.user_id, changes, false) : undefined;

  let position: number | undefined;
  let requested: string | undefined;
  if (accountChanges) {
    const { result: facts, append } = await deps.organization.execute(streams.organization, (state) => {
      const decided = decideAccount(state);
      return { facts: decided, result: decided };
    });
    position = positionOf(append);
    requested = facts.find((f) => f.type === 'EmailChangeRequested')?.new_email;
  }
  if (settingsStep) position = (await settingsStep()) ?? position;
  // Only now, with every fact stored, the mail: queued, never awaited on a mail server.
  const email_delivery = requested !== undefined && key ? await sendConfirmation(deps, requested, key) : undefined;
  return { value: email_delivery === undefined ? {} : { email_delivery }, position };
}

/** The link goes only to the new address: whoever opens it proves they receive mail there. */
async function sendConfirmation(deps: SettingsDeps, to: string, key: string): Promise<MailState> {
  // The gateway's HTML page (pages/account-pages.ts); GET /api/v1/settings/email/confirm/{key} stays for API clients.
  const link = `${deps.config.realmUri.replace(/\/$/, '')}/accounts/confirm_new_email/${key}/`;
  return queueMail(
    deps.mail,
    deps.log,
    {
      to,
      subject: 'Verify your new email address',
      text: `Open this link to use ${to} as the email address of your account:\n\n${link}\n\nThe link works for one day. If you did not ask for this change, ignore this mail.\n`,
    },
    'email_change',
  );
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
