/**
 * Facts of getting into an account: a password-reset link issued (the operator's first
 * link for a new owner is one too), and a user's own API key replaced. Both live on the
 * organization's stream, beside the users they name. No fact holds a usable secret: a
 * link's token is kept as its SHA-256, a key as its salt and hash (credentials.ts).
 */
import { z } from 'zod';

const int = () => z.number().int();

/**
 * A single-use link to set `user_id`'s password was mailed (or, for `purpose: 'initial'`,
 * printed to the operator). It works until `expires_at` or until the user's password is
 * next set, whichever comes first.
 */
export const PasswordResetRequested = z.object({
  type: z.literal('PasswordResetRequested'),
  user_id: int(),
  token_hash: z.string(),
  purpose: z.enum(['reset', 'initial']),
  /** Milliseconds since the epoch. */
  requested_at: int(),
  expires_at: int(),
});

/** POST /users/me/api_key/regenerate: a new salt; the old key stops at once (accounts.actor_changed). */
export const UserApiKeyRegenerated = z.object({
  type: z.literal('UserApiKeyRegenerated'),
  user_id: int(),
  api_key_salt: z.string(),
  api_key_hash: z.string(),
});

export const PASSWORD_FACTS = [PasswordResetRequested, UserApiKeyRegenerated] as const;
