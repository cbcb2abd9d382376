/**
 * Queries that turn credentials into an identity: HTTP Basic on every request, and the
 * two key-exchange endpoints (development key, JWT).
 */
import { ApiError, badRequest, type Actor } from '@teamchat/contracts';
import type { Directory, UserDoc } from '@teamchat/directory';
import type { ServerConfig } from '@teamchat/platform';
import { authenticatedActor, emailClaim, keyHolder, loginAddress } from '../domain/authentication';
import { deriveApiKey } from '../domain/credentials';
import type { AccountsReadModel } from '../projections/credentials';
import { userProfile } from './profile';

export interface AuthDeps {
  directory: Directory;
  accounts: AccountsReadModel;
  config: ServerConfig;
}

export async function authenticate(deps: AuthDeps, email: string, apiKey: string, client: string): Promise<Actor> {
  const address = loginAddress(email);
  const user = address === undefined ? undefined : await deps.directory.userByEmail(address);
  const credential = user && (await deps.accounts.credentialOf(user._id));
  return authenticatedActor(user, credential, apiKey, client);
}

/** The user's current key, derived again from the secret and the stored salt. */
export async function keyFor(deps: AuthDeps, user: UserDoc): Promise<string> {
  const credential = await deps.accounts.credentialOf(user._id);
  if (!credential) throw new ApiError('INTERNAL_SERVER_ERROR', 'User has no credentials', 500);
  return deriveApiKey(deps.config.serverSecret, credential.api_key_salt);
}

export async function devFetchApiKey(deps: AuthDeps, username: string) {
  if (deps.config.mode !== 'development') throw badRequest('DevAuthBackend not enabled.');
  const address = loginAddress(username);
  const user = keyHolder(address === undefined ? undefined : await deps.directory.userByEmail(address), 'This user does not exist.');
  return { api_key: await keyFor(deps, user), email: user.email, user_id: user._id };
}

export async function jwtFetchApiKey(deps: AuthDeps, token: string, includeProfile: boolean) {
  if (!deps.config.jwtSecret) throw badRequest('JWT authentication is not enabled.');
  let email: unknown;
  // Loaded by the first JWT login, not with the service.
  const { jwtVerify } = await import('jose');
  try {
    const { payload } = await jwtVerify(token, new TextEncoder().encode(deps.config.jwtSecret), { algorithms: ['HS256'] });
    email = payload.email;
  } catch {
    throw badRequest('Bad JSON web token');
  }
  const address = loginAddress(emailClaim(email));
  const user = keyHolder(address === undefined ? undefined : await deps.directory.userByEmail(address), 'Invalid email in JSON web token');
  return {
    api_key: await keyFor(deps, user),
    email: user.email,
    ...(includeProfile ? { user: userProfile(user) } : {}),
  };
}
