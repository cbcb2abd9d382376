/**
 * The password links an organization holds, as its state folds them: what the
 * organization's evolve needs of password-links.ts, kept apart so that the organization
 * does not import the deciders, which import it.
 */
import type { FactOf } from '@teamchat/contracts';

export interface PasswordLink {
  user_id: number;
  expires_at: number;
}

/** How long a mailed reset link works (Zulip's: a day). */
export const RESET_LINK_VALIDITY_MS = 24 * 60 * 60 * 1000;
/** How long the operator's first link for an owner works: long enough to reach them, short enough to be worth little if copied. */
export const INITIAL_LINK_VALIDITY_MS = 24 * 60 * 60 * 1000;
/** Reset mails one address may get (Zulip's password_reset_form_by_email budget): 2 an hour, 5 a day. */
export const RESET_BUDGET: readonly { window_ms: number; count: number }[] = [
  { window_ms: 60 * 60 * 1000, count: 2 },
  { window_ms: 24 * 60 * 60 * 1000, count: 5 },
];
/** As the registration page: at least 6 characters (Zulip's default minimum). */
export const MIN_PASSWORD_LENGTH = 6;

/** The part of the organization's state that password links live in. */
export interface PasswordLinkState {
  passwordLinks: ReadonlyMap<string, PasswordLink>;
  passwordResetTimes: ReadonlyMap<number, readonly number[]>;
}

export function evolvePasswordLinks<S extends PasswordLinkState>(state: S, fact: FactOf<'PasswordResetRequested'> | FactOf<'UserPasswordSet'>): S {
  if (fact.type === 'UserPasswordSet') {
    const links = new Map([...state.passwordLinks].filter(([, link]) => link.user_id !== fact.user_id));
    return links.size === state.passwordLinks.size ? state : { ...state, passwordLinks: links };
  }
  const passwordLinks = new Map(state.passwordLinks).set(fact.token_hash, { user_id: fact.user_id, expires_at: fact.expires_at });
  if (fact.purpose !== 'reset') return { ...state, passwordLinks };
  // Only the widest window matters for the budget: older times are dropped.
  const widest = Math.max(...RESET_BUDGET.map((b) => b.window_ms));
  const times = [...(state.passwordResetTimes.get(fact.user_id) ?? []).filter((t) => t > fact.requested_at - widest), fact.requested_at];
  return { ...state, passwordLinks, passwordResetTimes: new Map(state.passwordResetTimes).set(fact.user_id, times) };
}
