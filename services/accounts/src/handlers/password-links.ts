/**
 * Password links and a user's own key: POST /users/me/api_key/regenerate, and the internal
 * commands behind the gateway's password pages and the create-organization tool. A link's
 * token is random, travels only in the mail (or the operator's terminal) and is stored as
 * its SHA-256, so neither the store nor a log line holds a usable link. Mail is queued after
 * the fact, never sent inside the request.
 */
import { createHash, randomBytes } from 'node:crypto';
import { badRequest, passwordsEndpoints as api, streams, type Actor } from '@teamchat/contracts';
import type { AggregateRepository, AppendResult, BusSubscription, contractServer, MailQueue, ServerConfig } from '@teamchat/platform';
import type { Logger } from 'pino';
import { deriveApiKey, newCredentials } from '../domain/credentials';
import type { OrganizationState } from '../domain/organization';
import {
  checkNewPassword,
  decideIssuePasswordLink,
  decideRegenerateApiKey,
  decideRequestPasswordReset,
  decideSetPasswordWithLink,
  passwordLinkStatus,
  RESET_LINK_VALIDITY_MS,
} from '../domain/password-links';
import { hashPassword } from '../domain/passwords';
import { queueMail } from './mail';

export interface PasswordLinkDeps {
  organization: AggregateRepository<OrganizationState>;
  realmName(): Promise<string>;
  mail: MailQueue;
  config: Pick<ServerConfig, 'realmUri' | 'serverSecret'>;
  log: Logger;
}

const positionOf = (append: AppendResult | undefined) => append?.positions.at(-1);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
/** 24 random bytes, base64url: 32 characters. Anything else is no token of ours and is not looked up. */
const newToken = () => randomBytes(24).toString('base64url');
const TOKEN = /^[A-Za-z0-9_-]{32}$/;

/** Where a link opens: the gateway's set-password page (services/gateway/src/routes/account-pages.ts). */
export const passwordLink = (config: Pick<ServerConfig, 'realmUri'>, token: string) => `${config.realmUri.replace(/\/$/, '')}/accounts/password/reset/${token}/`;

export async function regenerateApiKey(deps: Pick<PasswordLinkDeps, 'organization' | 'config'>, actor: Actor) {
  const credentials = newCredentials(deps.config.serverSecret);
  const { append } = await deps.organization.execute(streams.organization, (state) => ({ facts: decideRegenerateApiKey(state, { actor, credentials }), result: undefined }));
  // accounts.actor_changed goes out with the append (ACTOR_CHANGES): the old key is refused from the reply on.
  return { value: { api_key: deriveApiKey(deps.config.serverSecret, credentials.api_key_salt) }, position: positionOf(append) };
}

/**
 * The reset page's form. The same empty answer whatever happened (no account, over the
 * address's budget, mailed), so that nobody learns from it whether an address has an account.
 */
export async function requestPasswordReset(deps: PasswordLinkDeps, email: string) {
  const token = newToken();
  const { result: issued, append } = await deps.organization.execute(streams.organization, (state) => {
    const facts = decideRequestPasswordReset(state, { email, token_hash: sha256(token), now: Date.now() });
    return { facts, result: facts[0] && { user: state.usersById.get(facts[0].user_id)! } };
  });
  if (issued) {
    const realm = (await deps.realmName()) || 'your organization';
    await queueMail(
      deps.mail,
      deps.log,
      {
        to: issued.user.email,
        subject: `Reset your password for ${realm}`,
        text:
          `Someone (hopefully you) asked to reset the password of the account ${issued.user.email} on ${realm} (${deps.config.realmUri}).\n\n` +
          `Choose a new password here:\n${passwordLink(deps.config, token)}\n\n` +
          `The link works once, for ${RESET_LINK_VALIDITY_MS / 3_600_000} hours. If you did not ask for this, ignore this mail: your password stays as it is.\n`,
      },
      'password_reset',
    );
  }
  return { value: {}, position: positionOf(append) };
}

export async function linkStatus(deps: PasswordLinkDeps, token: string) {
  const realm_name = await deps.realmName();
  if (!TOKEN.test(token)) return { status: 'invalid' as const, email: null, realm_name };
  const { state } = await deps.organization.load(streams.organization);
  const { status, user } = passwordLinkStatus(state, sha256(token), Date.now());
  return { status, email: status === 'valid' ? (user?.email ?? null) : null, realm_name };
}

/** Sets the password; the API key stays (POST /users/me/api_key/regenerate replaces it when wanted). */
export async function setPasswordWithLink(deps: PasswordLinkDeps, params: { token: string; new_password: string }) {
  if (!TOKEN.test(params.token)) throw badRequest('This link is not valid (already used, or mistyped).');
  // Refuse before hashing: a refused request costs no scrypt.
  const { state } = await deps.organization.load(streams.organization);
  decideSetPasswordWithLink(state, { token_hash: sha256(params.token), now: Date.now(), password_hash: '' });
  checkNewPassword(params.new_password);
  const password_hash = await hashPassword(params.new_password);
  const { result, append } = await deps.organization.execute(streams.organization, (current) => {
    const facts = decideSetPasswordWithLink(current, { token_hash: sha256(params.token), now: Date.now(), password_hash });
    return { facts, result: current.usersById.get(facts[0].user_id)! };
  });
  return { value: { email: result.email, user_id: result.user_id }, position: positionOf(append) };
}

/** The operator's tool: a first link for a user, printed (the tool's terminal is the only place it appears). */
export async function issuePasswordLink(deps: PasswordLinkDeps, email: string) {
  const token = newToken();
  const { result, append } = await deps.organization.execute(streams.organization, (state) => {
    const facts = decideIssuePasswordLink(state, { email, token_hash: sha256(token), now: Date.now() });
    return { facts, result: facts[0]!.expires_at };
  });
  return { value: { link: passwordLink(deps.config, token), expires_at: Math.floor(result / 1000) }, position: positionOf(append) };
}

type Serve = ReturnType<typeof contractServer>;

/** The wiring: one line in service.ts. */
export function passwordLinkEndpoints(serve: Serve, deps: PasswordLinkDeps): Promise<BusSubscription>[] {
  return [
    serve(api.regenerateApiKey, (_params, { actor }) => regenerateApiKey(deps, actor)),
    serve(api.requestPasswordReset, (params) => requestPasswordReset(deps, params.email)),
    serve(api.passwordLinkStatus, async (params) => ({ value: await linkStatus(deps, params.token) })),
    serve(api.setPasswordWithLink, (params) => setPasswordWithLink(deps, params)),
    serve(api.accountPagesInfo, async () => ({ value: { realm_name: await deps.realmName(), realm_uri: deps.config.realmUri.replace(/\/$/, '') } })),
    serve(api.issuePasswordLink, (params, { actor }) => {
      if (actor) throw badRequest('Password links are issued with the command-line tool');
      return issuePasswordLink(deps, params.email);
    }),
  ];
}
