/**
 * Rate limits at the edge, as a Zulip server applies them: a budget per user for the API,
 * a budget per client address for requests without valid credentials, and stricter ones
 * for the key endpoints (per address for every attempt, per named account for failed
 * ones) against guessing. @fastify/rate-limit counts (one in-memory store per budget);
 * this module decides which budgets a request spends, reports the strictest in the
 * X-RateLimit-* headers and answers RATE_LIMIT_HIT over a budget.
 *
 * The counts live in each gateway's memory: with several gateway instances a client's
 * budget is per instance it reaches (see the README).
 */
import rateLimit from '@fastify/rate-limit';
import { ApiError } from '@teamchat/contracts';
import type { RateLimitRule, RateLimits } from '@teamchat/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** What one budget says of a request, as @fastify/rate-limit's createRateLimit answers. */
interface Count {
  max: number;
  remaining: number;
  /** Milliseconds until the window ends. */
  ttl: number;
  isExceeded: boolean;
}

type Counter = (request: FastifyRequest, options?: { increment?: boolean }) => Promise<Count | { isAllowed: true }>;

/** Keys per budget: enough for every user of a large organization, and for an address sweep. */
const KEYS_KEPT = 100_000;

export interface RateLimiter {
  /** An authenticated request spends its user's API budget. */
  authenticated(request: FastifyRequest, reply: FastifyReply, userId: number): Promise<void>;
  /** A request without valid credentials spends its address's budget; a key endpoint also the login one. */
  anonymous(request: FastifyRequest, reply: FastifyReply, options: { login: boolean }): Promise<void>;
  /** Refuses an attempt at a key endpoint for an account with no failed attempts left. */
  checkAccount(request: FastifyRequest, reply: FastifyReply, account: string): Promise<void>;
  /** Counts a failed attempt at a key endpoint against the account it named (and reports what is left). */
  accountFailed(request: FastifyRequest, reply: FastifyReply, account: string): Promise<void>;
  /**
   * The user's API budget for a request answered outside Fastify (the GET /events fast
   * path): the X-RateLimit-* headers to send, and the refusal when the budget is spent.
   */
  spendOutsideFastify(userId: number): Promise<{ headers: Record<string, number>; refusal?: ApiError }>;
}

export async function registerRateLimits(app: FastifyInstance, limits: RateLimits): Promise<RateLimiter> {
  // Registered only for createRateLimit: no route is limited by the plugin's own hook.
  await app.register(rateLimit, { global: false });
  /** The key each keyed budget counts a request under (a user id, an account). */
  const userOf = new WeakMap<FastifyRequest, string>();
  const accountOf = new WeakMap<FastifyRequest, string>();
  const counter = (rule: RateLimitRule, keyOf?: WeakMap<FastifyRequest, string>): Counter =>
    app.createRateLimit({
      max: rule.max,
      timeWindow: rule.windowMs,
      // Without a key map the budget is per client address (the plugin's default key).
      ...(keyOf ? { keyGenerator: (request: FastifyRequest) => keyOf.get(request)! } : {}),
      // The in-memory store takes its size from these options too, though they are not typed so.
      ...{ cache: KEYS_KEPT },
    });
  const api = counter(limits.api, userOf);
  const anonymous = counter(limits.anonymous);
  const loginByAddress = counter(limits.loginByAddress);
  const loginByAccount = counter(limits.loginByAccount, accountOf);

  /** The strictest count reported so far for each request (Zulip reports the strictest limit). */
  const reported = new WeakMap<FastifyRequest, Count>();

  function report(request: FastifyRequest, reply: FastifyReply, count: Count): void {
    const before = reported.get(request);
    if (before && (before.remaining < count.remaining || (before.remaining === count.remaining && before.max <= count.max))) return;
    reported.set(request, count);
    for (const [name, value] of Object.entries(headersOf(count))) reply.header(name, value);
  }

  function spend(request: FastifyRequest, reply: FastifyReply, count: Count | { isAllowed: true }): void {
    if (!('max' in count)) return;
    report(request, reply, count);
    if (count.isExceeded) {
      for (const [name, value] of Object.entries(refusalHeadersOf(count))) reply.header(name, value);
      throw refusalOf(count);
    }
  }

  return {
    async authenticated(request, reply, userId) {
      userOf.set(request, String(userId));
      spend(request, reply, await api(request));
    },
    async anonymous(request, reply, { login }) {
      spend(request, reply, await anonymous(request));
      if (login) spend(request, reply, await loginByAddress(request));
    },
    async checkAccount(request, reply, account) {
      accountOf.set(request, account);
      const count = await loginByAccount(request, { increment: false });
      // Read without counting: the budget is spent once `max` attempts have failed.
      spend(request, reply, 'max' in count ? { ...count, isExceeded: count.remaining === 0 } : count);
    },
    async accountFailed(request, reply, account) {
      accountOf.set(request, account);
      const count = await loginByAccount(request);
      if ('max' in count) report(request, reply, count);
    },
    async spendOutsideFastify(userId) {
      // The counter reads only the key (from userOf) and the route's config off a request.
      const carrier = { routeOptions: { config: {} } } as unknown as FastifyRequest;
      userOf.set(carrier, String(userId));
      const count = await api(carrier);
      if (!('max' in count)) return { headers: {} };
      if (!count.isExceeded) return { headers: headersOf(count) };
      return { headers: { ...headersOf(count), ...refusalHeadersOf(count) }, refusal: refusalOf(count) };
    },
  };
}

function headersOf(count: Count): Record<string, number> {
  // Zulip's reset is a moment (Unix seconds), not a duration.
  return { 'X-RateLimit-Limit': count.max, 'X-RateLimit-Remaining': count.remaining, 'X-RateLimit-Reset': Math.ceil((Date.now() + count.ttl) / 1000) };
}

function refusalHeadersOf(count: Count): Record<string, number> {
  return { 'X-RateLimit-Remaining': 0, 'Retry-After': Math.max(1, Math.ceil(count.ttl / 1000)) };
}

function refusalOf(count: Count): ApiError {
  return new ApiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429, { 'retry-after': count.ttl / 1000 });
}

/**
 * The account an attempt at a key endpoint names, for its per-account budget: the
 * `username` (development key, password login), or the email claim of a JWT. The token is
 * not verified here (accounts does that): a forged claim only spends the budget of the
 * account it names. jose is loaded by the first JWT login, not with the gateway.
 */
export async function loginAccount(params: Record<string, unknown>): Promise<string | undefined> {
  if (typeof params.username === 'string') return params.username.trim().toLowerCase();
  if (typeof params.token === 'string') {
    const { decodeJwt } = await import('jose');
    try {
      const email = decodeJwt(params.token).email;
      return typeof email === 'string' ? email.trim().toLowerCase() : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}
