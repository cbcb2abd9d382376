/**
 * Who an authentication attempt identifies: a key must match the user's stored hash, and
 * only active users authenticate or receive their key. Pure: the user and their
 * credential come from the caller, who looked them up.
 */
import { ApiError, badRequest, isSystemBotEmail, type Actor } from '@teamchat/contracts';
import { apiKeyMatches } from './credentials';

/** A user as authentication reads them from the directory. */
export interface AccountHolder {
  _id: number;
  email: string;
  full_name: string;
  role: number;
  is_bot: boolean;
  is_active: boolean;
}

const invalidApiKey = () => new ApiError('INVALID_API_KEY', 'Invalid API key', 401);
const deactivated = () => new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);

/**
 * The account an address names, for logging in: none for a system bot's address (the
 * notification and welcome bots have no account, and never will: their addresses are
 * refused before any lookup, so no row that might appear under one could be logged into).
 */
export function loginAddress(email: string): string | undefined {
  return isSystemBotEmail(email) ? undefined : email;
}

/**
 * HTTP Basic: an unknown email and a wrong key are refused alike, so that a caller cannot
 * learn which emails exist; only a right key learns that the account is deactivated.
 */
export function authenticatedActor(
  user: AccountHolder | undefined,
  credential: { api_key_hash: string } | undefined,
  apiKey: string,
  client: string,
): Actor {
  if (!user || !credential || !apiKeyMatches(apiKey, credential.api_key_hash)) throw invalidApiKey();
  if (!user.is_active) throw deactivated();
  return { user_id: user._id, email: user.email, full_name: user.full_name, role: user.role, is_bot: user.is_bot, client };
}

/** The user whose key an exchange hands out: they must exist (else `unknown`) and be active. */
export function keyHolder<U extends AccountHolder>(user: U | undefined, unknown: string): U {
  if (!user) throw badRequest(unknown);
  if (!user.is_active) throw deactivated();
  return user;
}

/** The email a verified JSON web token claims. */
export function emailClaim(email: unknown): string {
  if (typeof email !== 'string' || email.length === 0) throw badRequest('No email specified in JSON web token claims');
  return email;
}
