/**
 * Web sessions: the internal commands behind the gateway's login pages (POST /login,
 * POST /login/dev, GET /login/dev_users, POST /logout) and its check of a session cookie
 * on every `/json/…` request. None has a route of its own under /api/v1. The gateway
 * makes the cookie's value and sends only its SHA-256 (`session_hash`); the CSRF token is
 * derived from that hash and the server secret, so it is checked without being stored.
 */
import { z } from 'zod';
import { ActorSchema } from './accounts';
import { endpoint } from './contract';

const int = () => z.number().int();

/** What a new or checked session is: whose, its CSRF token, until when (ms since the epoch). */
export const SessionReply = z.object({ actor: ActorSchema, csrf_token: z.string(), expires_at: int() });
export type SessionReply = z.infer<typeof SessionReply>;

const SessionHash = z.string().min(1).max(100);

export const sessionsEndpoints = {
  /** POST /login: email and password; refused as POST /fetch_api_key refuses. */
  logIn: endpoint({
    service: 'accounts',
    subject: 'accounts.log_in',
    auth: false,
    params: z.object({ username: z.string().max(1000), password: z.string().max(10_000), session_hash: SessionHash, client: z.string().max(100) }),
    reply: SessionReply,
  }),
  /** POST /login/dev: development mode only (404 in production), as GET /login/dev_users. */
  devLogIn: endpoint({
    service: 'accounts',
    subject: 'accounts.dev_log_in',
    auth: false,
    params: z.object({ email: z.string().max(1000), session_hash: SessionHash, client: z.string().max(100) }),
    reply: SessionReply,
  }),
  /** GET /login/dev_users: the active human users a development login page offers. */
  devUsers: endpoint({
    service: 'accounts',
    subject: 'accounts.dev_users',
    auth: false,
    params: z.object({}),
    reply: z.object({ users: z.array(z.object({ email: z.string(), full_name: z.string(), role: int(), is_bot: z.literal(false) })) }),
  }),
  /** Every `/json/…` request: who a live session is (401 UNAUTHORIZED for none). */
  authenticateSession: endpoint({
    service: 'accounts',
    subject: 'accounts.authenticate_session',
    auth: false,
    params: z.object({ session_hash: SessionHash, client: z.string().max(100) }),
    reply: SessionReply,
  }),
  /** POST /logout: ends the caller's own session. */
  endSession: endpoint({
    service: 'accounts',
    subject: 'accounts.end_session',
    auth: true,
    params: z.object({ session_hash: SessionHash }),
    reply: z.object({}),
  }),
};
