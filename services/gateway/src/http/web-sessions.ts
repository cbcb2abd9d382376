/**
 * Web sessions at the edge: the login and logout routes of the browser client, its
 * session cookie, and the check of that cookie (and of the CSRF token) on `/json/…`.
 *
 * The cookie's value is 32 random bytes made here; accounts sees and stores only their
 * SHA-256, and answers with the session's CSRF token (derived from that hash and the
 * server secret). Sessions are cached like API keys (CredentialsCache, keyed by the hash)
 * with the same revocation guarantee: accounts publishes accounts.actor_changed for a
 * logout, a deactivation or a new password before it acknowledges them, and every lookup
 * first syncs with the bus (peers.sync). An expired session is refused from the cache too.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError, endpoints, isApiError, type Actor, type SessionReply } from '@teamchat/contracts';
import { callContract, type Bus } from '@teamchat/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { CredentialsCache } from './credentials-cache';
import { busRequest, type GatewayPeers } from './peers';
import type { RateLimiter } from './rate-limits';

export const SESSION_COOKIE = 'teamchat_session';
/** The client name messages sent from the browser record (Zulip's web app is "website"). */
export const WEB_CLIENT = 'website';
/** Zulip's header for the CSRF token (Django's CSRF_HEADER_NAME). */
const CSRF_HEADER = 'x-csrftoken';

export const notLoggedIn = () => new ApiError('UNAUTHORIZED', 'Not logged in: API authentication or user session required', 401);
/** Zulip's CsrfFailureError with Django's reasons. */
const csrfFailed = (reason: string) => new ApiError('CSRF_FAILED', `CSRF error: ${reason}`, 403, { reason });

/** The session id a Cookie header carries, if it has the shape this server makes (43 base64url characters). */
export function sessionIdOf(cookieHeader: string | undefined): string | undefined {
  if (!cookieHeader) return undefined;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    if (/^[A-Za-z0-9_-]{43}$/.test(value)) return value;
  }
  return undefined;
}

export const sessionHashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest('base64url');

export interface WebSessionOptions {
  bus: Bus;
  credentials: CredentialsCache;
  peers: GatewayPeers;
  limiter: RateLimiter | undefined;
  /** https: the cookie is Secure. */
  realmUri: string;
}

/** Who a `/json/…` request is, and its session's hash. */
export interface WebCaller {
  actor: Actor;
  sessionHash: string;
  csrfToken: string;
}

const LoginParams = z.object({ username: z.string().max(1000), password: z.string().max(10_000) });
const DevLoginParams = z.object({ email: z.string().max(1000) });

function parsedBody<T>(schema: z.ZodType<T>, body: unknown): T {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = issue?.path[0];
  throw new ApiError('BAD_REQUEST', name === undefined ? 'Invalid parameters' : issue?.code === 'invalid_type' && issue.input === undefined ? `Missing '${String(name)}' argument` : `Invalid ${String(name)}`, 400);
}

export function webSessions(app: FastifyInstance, options: WebSessionOptions) {
  const { bus, credentials, peers, limiter } = options;
  const secure = options.realmUri.startsWith('https:');

  function setCookie(reply: FastifyReply, sessionId: string, expiresAt: number): void {
    const maxAge = Math.max(0, Math.floor((expiresAt - Date.now()) / 1000));
    reply.header('Set-Cookie', `${SESSION_COOKIE}=${sessionId}; Max-Age=${maxAge}; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
  }

  function clearCookie(reply: FastifyReply): void {
    reply.header('Set-Cookie', `${SESSION_COOKIE}=; Max-Age=0; Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`);
  }

  /**
   * The session a request's cookie names (401 UNAUTHORIZED for none, an ended or an expired
   * one), and, for a method that changes anything, its CSRF token in X-CSRFToken (403).
   */
  async function authenticate(request: FastifyRequest, { csrf }: { csrf: boolean }): Promise<WebCaller> {
    const synced = peers.sync();
    if (synced) await synced;
    const sessionId = sessionIdOf(request.headers.cookie);
    if (sessionId === undefined) throw notLoggedIn();
    const sessionHash = sessionHashOf(sessionId);
    const key = `session:${sessionHash}`;
    let caller: WebCaller;
    const known = credentials.getSession(key, Date.now());
    if (known) {
      caller = { actor: { ...known.identity, client: WEB_CLIENT }, sessionHash, csrfToken: known.csrf_token };
    } else {
      const after = credentials.newestChange;
      const { value, position } = await callContract(bus, endpoints.accounts.authenticateSession, {
        ...(after !== undefined ? { after } : {}),
        params: { session_hash: sessionHash, client: WEB_CLIENT },
      });
      credentials.rememberSession(key, value.actor, position, { csrf_token: value.csrf_token, expires_at: value.expires_at });
      caller = { actor: value.actor, sessionHash, csrfToken: value.csrf_token };
    }
    if (csrf) {
      const given = request.headers[CSRF_HEADER];
      if (typeof given !== 'string' || given === '') throw csrfFailed('CSRF token missing.');
      const a = Buffer.from(given);
      const b = Buffer.from(caller.csrfToken);
      if (a.length !== b.length || !timingSafeEqual(a, b)) throw csrfFailed('CSRF token incorrect.');
    }
    return caller;
  }

  /** Starts a session with one of accounts' login commands; the reply sets the cookie. */
  async function start(
    request: FastifyRequest,
    reply: FastifyReply,
    login: (sessionHash: string) => Promise<{ value: SessionReply; position?: number | undefined }>,
    account: string | undefined,
  ) {
    if (limiter && account !== undefined) await limiter.checkAccount(request, reply, account);
    const sessionId = randomBytes(32).toString('base64url');
    const sessionHash = sessionHashOf(sessionId);
    const { value, position } = await login(sessionHash).catch(async (err: unknown) => {
      // A refused attempt spends the named account's budget; an outage is not the client's.
      if (limiter && account !== undefined && isApiError(err) && err.status < 500) await limiter.accountFailed(request, reply, account);
      throw err;
    });
    credentials.rememberSession(`session:${sessionHash}`, value.actor, position, { csrf_token: value.csrf_token, expires_at: value.expires_at });
    if (position !== undefined) await peers.wrote(value.actor.user_id, position);
    setCookie(reply, sessionId, value.expires_at);
    return reply.header('Cache-Control', 'no-store').send({ result: 'success', msg: '', user_id: value.actor.user_id, csrf_token: value.csrf_token });
  }

  const anonymous = (login: boolean) => async (request: FastifyRequest, reply: FastifyReply) => {
    await limiter?.anonymous(request, reply, { login });
  };

  app.post('/login', { onRequest: anonymous(true) }, async (request, reply) => {
    const { username, password } = parsedBody(LoginParams, request.body);
    return start(
      request,
      reply,
      (session_hash) => callContract(bus, endpoints.accounts.logIn, busRequest(undefined, {}, { username, password, session_hash, client: WEB_CLIENT })),
      username.trim().toLowerCase(),
    );
  });

  app.post('/login/dev', { onRequest: anonymous(true) }, async (request, reply) => {
    const { email } = parsedBody(DevLoginParams, request.body);
    return start(
      request,
      reply,
      (session_hash) => callContract(bus, endpoints.accounts.devLogIn, busRequest(undefined, {}, { email, session_hash, client: WEB_CLIENT })),
      undefined,
    );
  });

  app.get('/login/dev_users', { onRequest: anonymous(false) }, async (_request, reply) => {
    const { value } = await callContract(bus, endpoints.accounts.devUsers, busRequest(undefined, {}, {}));
    return reply.send({ result: 'success', msg: '', users: value.users });
  });

  /** Spends the caller's API budget once the session is known, or the address's budget when it is not. */
  const withSession = async (request: FastifyRequest, reply: FastifyReply, csrf: boolean) => {
    let caller: WebCaller;
    try {
      caller = await authenticate(request, { csrf });
    } catch (err) {
      await limiter?.anonymous(request, reply, { login: false });
      throw err;
    }
    await limiter?.authenticated(request, reply, caller.actor.user_id);
    return caller;
  };

  app.get('/json/session', async (request, reply) => {
    const { actor, csrfToken } = await withSession(request, reply, false);
    return reply.header('Cache-Control', 'no-store').send({ result: 'success', msg: '', user_id: actor.user_id, email: actor.email, full_name: actor.full_name, csrf_token: csrfToken });
  });

  app.post('/logout', async (request, reply) => {
    let caller: WebCaller;
    try {
      caller = await withSession(request, reply, true);
    } catch (err) {
      // A cookie that names no live session is cleared anyway; a CSRF failure changes nothing.
      if (isApiError(err) && err.code === 'UNAUTHORIZED') clearCookie(reply);
      throw err;
    }
    const { position } = await callContract(
      bus,
      endpoints.accounts.endSession,
      busRequest(caller.actor, peers.consistency(caller.actor.user_id), { session_hash: caller.sessionHash }, caller.sessionHash),
    );
    credentials.drop(`session:${caller.sessionHash}`);
    if (position !== undefined) await peers.wrote(caller.actor.user_id, position);
    clearCookie(reply);
    return reply.send({ result: 'success', msg: '' });
  });

  return { authenticate, withSession };
}
