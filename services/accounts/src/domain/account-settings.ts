/**
 * PATCH /settings' account changes, decided on the organization's stream: the user's own
 * name (the organization may forbid name changes), password (the old one must be given
 * and match), and email (a confirmation link, then the change). Pure: the password check
 * and hash, the link's key hash, the organization's settings and the clock come in with
 * the command.
 */
import { badRequest, isSystemBotEmail, type Actor, type Fact, type FactOf } from '@teamchat/contracts';
import { isAdministrator } from '@teamchat/policies';
import { audiencesOf, checkFullName, personAudience, EMAIL, type OrganizationState, type RegisteredUser } from './organization';

/** How long an email-change link works (Zulip's confirmation links: a day). */
export const EMAIL_CHANGE_LINK_VALIDITY_MS = 24 * 3600 * 1000;

export interface AccountChanges {
  actor: Actor;
  full_name?: string;
  /** The organization's name_changes_disabled and email_changes_disabled. */
  nameChangesDisabled: boolean;
  emailChangesDisabled: boolean;
  password?: {
    /** Whether old_password was sent, and whether it matched the stored hash. */
    old_given: boolean;
    old_matches: boolean;
    /** The new password's hash (never the password). */
    new_hash: string;
    /** The web session the change came from (its hash): it stays logged in, every other one ends. */
    kept_session_hash?: string | undefined;
  };
  email?: { new_email: string; key_hash: string; now: number };
}

function activeUser(state: OrganizationState, userId: number): RegisteredUser {
  const user = state.usersById.get(userId);
  if (!user || !user.is_active) throw badRequest('Account is deactivated');
  return user;
}

/** Checks a password change's companions before the handler spends a hash on it. */
export function checkPasswordChange(params: { old_password?: string | undefined; new_password?: string | undefined }): void {
  if (params.new_password !== undefined && params.old_password === undefined) throw badRequest("Missing 'old_password' argument");
  if (params.new_password !== undefined && params.new_password.length === 0) throw badRequest('New password is too weak!');
}

/**
 * The new address, checked: well formed, and not another user's. Unchanged: undefined.
 * The system bots' addresses count as taken in every organization (system-bots.ts): a user
 * holding one could not log in with it, since logins refuse those addresses outright.
 */
export function checkNewEmail(state: OrganizationState, user: RegisteredUser, raw: string): string | undefined {
  const email = raw.trim();
  if (!EMAIL.test(email)) throw badRequest(`Invalid email '${raw}'`);
  if (email.toLowerCase() === user.email.toLowerCase()) return undefined;
  if (state.usersByEmail.has(email.toLowerCase()) || isSystemBotEmail(email)) throw badRequest(`Email '${email}' already in use`);
  return email;
}

/**
 * The whole request is checked before anything is decided: a refused part refuses it all.
 * Administrators may change their name and email when the organization forbids it, as in Zulip.
 */
export function decideAccountChanges(state: OrganizationState, cmd: AccountChanges): Fact[] {
  const user = activeUser(state, cmd.actor.user_id);
  const admin = isAdministrator(user.role);
  const facts: Fact[] = [];
  if (cmd.full_name !== undefined) {
    const fullName = checkFullName(cmd.full_name);
    if (fullName !== user.full_name) {
      if (cmd.nameChangesDisabled && !admin) throw badRequest('Name changes are disabled in this organization. Contact an administrator to change your name.');
      facts.push({ type: 'UserFullNameChanged', user_id: user.user_id, full_name: fullName, ...audiencesOf(state, user) });
    }
  }
  if (cmd.email !== undefined) {
    const email = checkNewEmail(state, user, cmd.email.new_email);
    if (email !== undefined) {
      if (cmd.emailChangesDisabled && !admin) throw badRequest('Email address changes are disabled in this organization.');
      const requested: FactOf<'EmailChangeRequested'> = {
        type: 'EmailChangeRequested',
        user_id: user.user_id,
        new_email: email,
        key_hash: cmd.email.key_hash,
        requested_at: cmd.email.now,
      };
      facts.push(requested);
    }
  }
  if (cmd.password !== undefined) {
    if (!cmd.password.old_given) throw badRequest("Missing 'old_password' argument");
    if (!cmd.password.old_matches) throw badRequest('Wrong password!');
    const kept = cmd.password.kept_session_hash;
    facts.push({ type: 'UserPasswordSet', user_id: user.user_id, password_hash: cmd.password.new_hash, ...(kept !== undefined ? { kept_session_hash: kept } : {}) });
  }
  return facts;
}

/** The link was opened: the change applies if the link is the latest, fresh, and the address still free. */
export function decideConfirmEmailChange(
  state: OrganizationState,
  cmd: { key_hash: string; now: number; maySeeRealEmail: (viewer: RegisteredUser, subject: RegisteredUser) => boolean },
): FactOf<'UserEmailChanged'>[] {
  const pending = state.pendingEmailChanges.get(cmd.key_hash);
  if (!pending || cmd.now - pending.requested_at > EMAIL_CHANGE_LINK_VALIDITY_MS) throw badRequest('Invalid or expired confirmation link');
  const user = activeUser(state, pending.user_id);
  const email = checkNewEmail(state, user, pending.new_email);
  if (email === undefined) return [];
  const { audience: _everyone, ...bots } = audiencesOf(state, user);
  const viewers = personAudience(state, [user.user_id]).filter((id) => cmd.maySeeRealEmail(state.usersById.get(id)!, user));
  return [{ type: 'UserEmailChanged', user_id: user.user_id, old_email: user.email, new_email: email, audience_user_ids: viewers, ...bots }];
}
