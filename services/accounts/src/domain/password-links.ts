/**
 * Getting into an account without the old password: single-use links that set a password
 * (Zulip's password reset, and the first owner's link the operator's tool prints), and a
 * user replacing their own API key. Links live on the organization's stream beside the
 * users they name; a fact holds only the SHA-256 of a link's token. A link works until it
 * expires or until the user's password is next set, by it or otherwise, so each is
 * single-use and a new password retires every older link. Pure: the clock, the token's
 * hash, the password's hash and key material come in with the command.
 */
import { badRequest, type Actor, type Fact, type FactOf, type PasswordLinkStatus } from '@teamchat/contracts';
import type { NewCredentials, OrganizationState, RegisteredUser } from './organization';
import { botAudience } from './organization';
import { MAX_PASSWORD_LENGTH } from './passwords';

import { INITIAL_LINK_VALIDITY_MS, MIN_PASSWORD_LENGTH, RESET_BUDGET, RESET_LINK_VALIDITY_MS } from './password-link-state';

// The link state's names stay importable from here, where the deciders that use them are.
export { evolvePasswordLinks, INITIAL_LINK_VALIDITY_MS, MIN_PASSWORD_LENGTH, RESET_BUDGET, RESET_LINK_VALIDITY_MS, type PasswordLink } from './password-link-state';

/** Whose password a link may set: an active human user (bots have no password; a deactivated user may not come back this way). */
const mayHavePassword = (user: RegisteredUser | undefined): boolean => user !== undefined && user.is_active && !user.is_bot;

export function checkNewPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) throw badRequest(`The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`);
  if (password.length > MAX_PASSWORD_LENGTH) throw badRequest('Password is too long');
}

export interface RequestPasswordReset {
  email: string;
  token_hash: string;
  now: number;
}

/**
 * The reset page's form. Whatever the address, the caller answers the same: no facts for
 * an address without an active human account, nor over the address's budget (the person
 * already has recent links; Zulip, too, sends nothing more and says nothing).
 */
export function decideRequestPasswordReset(state: OrganizationState, cmd: RequestPasswordReset): FactOf<'PasswordResetRequested'>[] {
  const user = state.usersByEmail.get(cmd.email.trim().toLowerCase());
  if (!user || !mayHavePassword(user)) return [];
  const times = state.passwordResetTimes.get(user.user_id) ?? [];
  if (RESET_BUDGET.some((b) => times.filter((t) => t > cmd.now - b.window_ms).length >= b.count)) return [];
  return [{ type: 'PasswordResetRequested', user_id: user.user_id, token_hash: cmd.token_hash, purpose: 'reset', requested_at: cmd.now, expires_at: cmd.now + RESET_LINK_VALIDITY_MS }];
}

/** The operator's tool: a link for a named user, printed to the terminal; an unknown address is an error there. */
export function decideIssuePasswordLink(state: OrganizationState, cmd: RequestPasswordReset): FactOf<'PasswordResetRequested'>[] {
  const user = state.usersByEmail.get(cmd.email.trim().toLowerCase());
  if (!user) throw badRequest(`No user with the email ${cmd.email}`);
  if (!mayHavePassword(user)) throw badRequest(`${user.email} cannot have a password (deactivated, or a bot)`);
  return [{ type: 'PasswordResetRequested', user_id: user.user_id, token_hash: cmd.token_hash, purpose: 'initial', requested_at: cmd.now, expires_at: cmd.now + INITIAL_LINK_VALIDITY_MS }];
}

/** What a link is now. An expired link and one already used (or replaced by a later password) differ only in what the page says. */
export function passwordLinkStatus(state: OrganizationState, tokenHash: string, now: number): { status: PasswordLinkStatus; user?: RegisteredUser } {
  const link = state.passwordLinks.get(tokenHash);
  const user = link && state.usersById.get(link.user_id);
  if (!link || !user || !mayHavePassword(user)) return { status: 'invalid' };
  if (link.expires_at <= now) return { status: 'expired' };
  return { status: 'valid', user };
}

/** The set-password form: the link's user gets the new password; the API key stays (a new one is asked for separately). */
export function decideSetPasswordWithLink(state: OrganizationState, cmd: { token_hash: string; now: number; password_hash: string }): [FactOf<'UserPasswordSet'>] {
  const { status, user } = passwordLinkStatus(state, cmd.token_hash, cmd.now);
  if (status === 'expired') throw badRequest('This link has expired. Ask for a new one.');
  if (status !== 'valid' || !user) throw badRequest('This link is not valid (already used, or mistyped).');
  return [{ type: 'UserPasswordSet', user_id: user.user_id, password_hash: cmd.password_hash }];
}

/**
 * POST /users/me/api_key/regenerate: a new salt, so the old key stops at once. A bot asking
 * for itself gets the bot's fact, whose realm_bot events tell its owner and administrators.
 */
export function decideRegenerateApiKey(state: OrganizationState, cmd: { actor: Actor; credentials: NewCredentials }): Fact[] {
  const user = state.usersById.get(cmd.actor.user_id);
  if (!user || !user.is_active) throw badRequest('Account is deactivated');
  if (user.is_bot) return [{ type: 'BotApiKeyRegenerated', user_id: user.user_id, ...cmd.credentials, bot_audience_user_ids: botAudience(state, user.bot_owner_id) }];
  return [{ type: 'UserApiKeyRegenerated', user_id: user.user_id, ...cmd.credentials }];
}
