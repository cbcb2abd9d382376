/**
 * Web sessions: logging in (password, or the development page's one click), checking a
 * session on each `/json/…` request, logging out. The gateway makes the cookie and sends
 * its hash; this service decides, stores the facts (domain/sessions.ts) and derives the
 * CSRF token.
 */
import { ApiError, streams, type Actor, type SessionReply } from '@teamchat/contracts';
import type { Directory, UserDoc } from '@teamchat/directory';
import type { AggregateRepository, ServerConfig } from '@teamchat/platform';
import type { Logger } from 'pino';
import { loginAddress } from '../domain/authentication';
import { MAX_PASSWORD_LENGTH, passwordMatches } from '../domain/passwords';
import { csrfTokenOf, decideEndSession, decideExpireSessions, decideStartSession, sessionActor, type SessionsState } from '../domain/sessions';
import type { AccountsReadModel } from '../projections/credentials';
import type { SessionsReadModel } from '../projections/sessions';

export interface SessionDeps {
  directory: Directory;
  accounts: Pick<AccountsReadModel, 'passwords'>;
  sessions: AggregateRepository<SessionsState>;
  model: SessionsReadModel;
  config: Pick<ServerConfig, 'mode' | 'serverSecret' | 'sessionAgeSeconds'>;
}

interface Started {
  value: SessionReply;
  position: number | undefined;
}

const authenticationFailed = () => new ApiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401);
/** The development login is not there at all in production (as Zulip's dev backend). */
const noDevLogin = () => new ApiError('NOT_FOUND', 'Not found', 404);

async function start(deps: SessionDeps, user: UserDoc, cmd: { session_hash: string; method: 'password' | 'dev'; client: string }): Promise<Started> {
  const now = Date.now();
  const { result, append } = await deps.sessions.execute(streams.sessions(user._id), (state) => {
    const facts = decideStartSession(state, { user, ...cmd, now, age_ms: deps.config.sessionAgeSeconds * 1000 });
    return { facts, result: facts[0] };
  });
  const actor: Actor = { user_id: user._id, email: user.email, full_name: user.full_name, role: user.role, is_bot: user.is_bot, client: cmd.client };
  return { value: { actor, csrf_token: csrfTokenOf(deps.config.serverSecret, cmd.session_hash), expires_at: result.expires_at }, position: append?.positions.at(-1) };
}

export async function logIn(deps: SessionDeps, params: { username: string; password: string; session_hash: string; client: string }): Promise<Started> {
  const address = loginAddress(params.username.trim());
  // As POST /fetch_api_key: the password is hashed whatever the address, so a refusal takes as long as any.
  const user = params.password.length <= MAX_PASSWORD_LENGTH && address !== undefined ? await deps.directory.userByEmail(address) : undefined;
  const stored = user && (await deps.accounts.passwords.get(user._id));
  const matches = await passwordMatches(params.password, stored?.password_hash);
  if (!user || !matches) throw authenticationFailed();
  return start(deps, user, { session_hash: params.session_hash, method: 'password', client: params.client });
}

export async function devLogIn(deps: SessionDeps, params: { email: string; session_hash: string; client: string }): Promise<Started> {
  if (deps.config.mode !== 'development') throw noDevLogin();
  const address = loginAddress(params.email.trim());
  const user = address === undefined ? undefined : await deps.directory.userByEmail(address);
  if (!user) throw new ApiError('BAD_REQUEST', 'This user does not exist.', 400);
  return start(deps, user, { session_hash: params.session_hash, method: 'dev', client: params.client });
}

export async function devUsers(deps: SessionDeps) {
  if (deps.config.mode !== 'development') throw noDevLogin();
  const users = (await deps.directory.allUsers()).filter((user) => user.is_active && !user.is_bot && loginAddress(user.email) !== undefined);
  return { users: users.map((user) => ({ email: user.email, full_name: user.full_name, role: user.role, is_bot: false as const })) };
}

export async function authenticateSession(deps: SessionDeps, params: { session_hash: string; client: string }): Promise<SessionReply> {
  const session = await deps.model.get(params.session_hash);
  const user = session && (await deps.directory.userById(session.user_id));
  const actor = sessionActor(session, user, Date.now(), params.client);
  return { actor, csrf_token: csrfTokenOf(deps.config.serverSecret, params.session_hash), expires_at: session!.expires_at };
}

/** A logout ends the caller's own session only: a hash that is not theirs ends nothing. */
export async function endSession(deps: SessionDeps, actor: Actor, sessionHash: string): Promise<number | undefined> {
  const { append } = await deps.sessions.execute(streams.sessions(actor.user_id), (state) => ({
    facts: decideEndSession(state, { user_id: actor.user_id, session_hash: sessionHash }),
    result: undefined,
  }));
  return append?.positions.at(-1);
}

/** How many expired sessions one sweep ends at most: a backlog is worked off over several sweeps. */
const SWEEP_BATCH = 500;

/**
 * Ends the sessions past their expiry at `now`, each user's in one append to their stream
 * (the decider re-checks against the stream, so two instances sweeping at once end each
 * session once). Returns how many ended.
 */
export async function sweepExpiredSessions(deps: Pick<SessionDeps, 'sessions' | 'model'>, now: number): Promise<number> {
  const expired = await deps.model.expiredBy(now, SWEEP_BATCH);
  let ended = 0;
  for (const userId of new Set(expired.map((session) => session.user_id))) {
    const { result } = await deps.sessions.execute(streams.sessions(userId), (state) => {
      const facts = decideExpireSessions(state, { user_id: userId, now });
      return { facts, result: facts.length };
    });
    ended += result;
  }
  return ended;
}

/** How often expired web sessions are ended (they are refused as soon as they expire regardless). */
const SESSION_SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Runs the sweep every hour, so that neither the read model nor a user's session stream
 * keeps expired sessions for ever. Returns the function that stops it.
 */
export function sweepPeriodically(deps: Pick<SessionDeps, 'sessions' | 'model'>, log: Pick<Logger, 'warn'>): () => void {
  const timer = setInterval(() => {
    sweepExpiredSessions(deps, Date.now()).catch((err: unknown) => log.warn({ err }, 'expired sessions not swept'));
  }, SESSION_SWEEP_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}
