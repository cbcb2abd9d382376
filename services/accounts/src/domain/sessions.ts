/**
 * Web sessions, one stream per user (streams.sessions): a login starts one, a logout ends
 * it. Pure: the clock, the session's hash (the gateway made the cookie) and its age come
 * in with the command. Deactivation and a new password end sessions too, through their
 * own facts (the read model, projections/sessions.ts); expiry is `expires_at`, checked
 * when a session is used, and a periodic sweep ends expired sessions with a fact.
 */
import { ApiError, badRequest, type Fact, type FactOf } from '@teamchat/contracts';
import { createHash, createHmac } from 'node:crypto';
import type { AccountHolder } from './authentication';

export interface SessionsState {
  /** The user's sessions started and not logged out, by hash. */
  live: ReadonlyMap<string, { expires_at: number }>;
}

export const initialSessions = (): SessionsState => ({ live: new Map() });

export function evolveSessions(state: SessionsState, fact: Fact): SessionsState {
  if (fact.type !== 'SessionStarted' && fact.type !== 'SessionEnded') return state;
  const live = new Map(state.live);
  if (fact.type === 'SessionStarted') live.set(fact.session_hash, { expires_at: fact.expires_at });
  else live.delete(fact.session_hash);
  return { live };
}

export interface StartSession {
  user: AccountHolder;
  session_hash: string;
  method: 'password' | 'dev';
  client: string;
  now: number;
  age_ms: number;
}

export function decideStartSession(state: SessionsState, cmd: StartSession): [FactOf<'SessionStarted'>] {
  if (!cmd.user.is_active) throw new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
  // Web sessions are for people: a bot has only its API key (as in Zulip).
  if (cmd.user.is_bot) throw badRequest('Bots cannot log in to the web client');
  // 32 random bytes never repeat; a repeated hash is a caller's bug, not a second login.
  if (state.live.has(cmd.session_hash)) throw badRequest('This session already exists');
  return [
    {
      type: 'SessionStarted',
      user_id: cmd.user._id,
      session_hash: cmd.session_hash,
      method: cmd.method,
      client: cmd.client,
      started_at: cmd.now,
      expires_at: cmd.now + cmd.age_ms,
    },
  ];
}

/** A logout: ends the session if it is still the user's (a second logout appends nothing). */
export function decideEndSession(state: SessionsState, cmd: { user_id: number; session_hash: string }): FactOf<'SessionEnded'>[] {
  if (!state.live.has(cmd.session_hash)) return [];
  return [{ type: 'SessionEnded', user_id: cmd.user_id, session_hash: cmd.session_hash, reason: 'logout' }];
}

/**
 * The sweep: every one of the user's sessions past its expiry at `now` ends. An expired
 * session is refused when used whatever the sweep does; the fact lets the read model and
 * the stream stop carrying it.
 */
export function decideExpireSessions(state: SessionsState, cmd: { user_id: number; now: number }): FactOf<'SessionEnded'>[] {
  return [...state.live]
    .filter(([, session]) => session.expires_at <= cmd.now)
    .map(([session_hash]) => ({ type: 'SessionEnded', user_id: cmd.user_id, session_hash, reason: 'expired' }));
}

/** A session as the read model holds it, and whether it may be used at `now`. */
export interface SessionRecord {
  user_id: number;
  expires_at: number;
}

export function sessionActor(session: SessionRecord | undefined, user: AccountHolder | undefined, now: number, client: string) {
  // One refusal for an unknown, ended or expired session: the cookie names no live session.
  if (!session || !user || session.expires_at <= now || user._id !== session.user_id) throw notLoggedIn();
  if (!user.is_active) throw new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
  return { user_id: user._id, email: user.email, full_name: user.full_name, role: user.role, is_bot: user.is_bot, client };
}

/** Zulip's answer to a `/json` request without a session. */
export const notLoggedIn = () => new ApiError('UNAUTHORIZED', 'Not logged in: API authentication or user session required', 401);

/**
 * The session's CSRF token: an HMAC of its hash under a key derived from the server
 * secret, so that any accounts instance checks it without storing it, and knowing a
 * session's hash (the facts hold it) does not give its token.
 */
export function csrfTokenOf(serverSecret: string, sessionHash: string): string {
  const key = createHash('sha256').update('teamchat web session csrf\0').update(serverSecret).digest();
  return createHmac('sha256', key).update(sessionHash).digest('base64url');
}
