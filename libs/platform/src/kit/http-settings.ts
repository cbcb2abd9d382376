/**
 * The gateway's HTTP settings from the environment: rate limits, timeouts and whether a
 * reverse proxy's X-Forwarded-For is trusted (loadSettings in config.ts reads them).
 */
import { flag, secondsInMs, type ServerMode } from './env-values';

/** At most `max` requests in any window of `windowMs` (a fixed window, per key). */
export interface RateLimitRule {
  max: number;
  windowMs: number;
}

/**
 * The rate limits, as a Zulip server has them (its defaults: 200 API requests a minute per
 * user, much less for logging in). A budget of requests per key and window:
 */
export interface RateLimits {
  /** Every request that authenticated, per user. */
  api: RateLimitRule;
  /** Every request that did not (no or wrong credentials, unauthenticated endpoints, unknown routes), per client address. */
  anonymous: RateLimitRule;
  /** The key endpoints (development key, JWT, password login), per client address: the guessing surface. */
  loginByAddress: RateLimitRule;
  /** Failed attempts at the key endpoints, per account they name. */
  loginByAccount: RateLimitRule;
}

export interface HttpSettings {
  /** Absent: no limits (the development default, so benchmarks never meet them). */
  rateLimits: RateLimits | undefined;
  /** How long a client may take to send a request's headers, and the whole request. */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /**
   * How long the gateway waits for a service's answer (504 past it); the service stops
   * its work a little before (RequestBudget).
   */
  serviceTimeoutMs: number;
  /** How long an idle keep-alive connection is kept between requests. */
  keepAliveTimeoutMs: number;
  /**
   * How long a connection may stay silent in either direction mid-request: longer than a
   * long-poll of GET /events (the heartbeat), so only a stalled client is cut off.
   */
  idleTimeoutMs: number;
  /** Take the client address from X-Forwarded-For (behind a reverse proxy), for per-address limits. */
  trustProxy: boolean;
}

export const DEFAULT_RATE_LIMITS: RateLimits = {
  api: { max: 200, windowMs: 60_000 },
  anonymous: { max: 100, windowMs: 60_000 },
  loginByAddress: { max: 20, windowMs: 60_000 },
  loginByAccount: { max: 5, windowMs: 30 * 60_000 },
};

const RATE_LIMIT_VARIABLES: Record<keyof RateLimits, string> = {
  api: 'TEAMCHAT_RATE_LIMIT_API',
  anonymous: 'TEAMCHAT_RATE_LIMIT_ANONYMOUS',
  loginByAddress: 'TEAMCHAT_RATE_LIMIT_LOGIN',
  loginByAccount: 'TEAMCHAT_RATE_LIMIT_LOGIN_ACCOUNT',
};

/** `200/60`: 200 requests per 60 seconds. */
function parseRule(variable: string, text: string): RateLimitRule {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  const max = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (!match || !(max > 0) || !(seconds > 0)) {
    throw new Error(`${variable}=${JSON.stringify(text)}: expected <requests>/<seconds>, e.g. 200/60`);
  }
  return { max, windowMs: Math.round(seconds * 1000) };
}

export function loadHttpSettings(env: NodeJS.ProcessEnv, mode: ServerMode, heartbeatSeconds: number): HttpSettings {
  const switched = env.TEAMCHAT_RATE_LIMITS;
  if (switched !== undefined && !['on', 'off', ''].includes(switched)) {
    throw new Error(`TEAMCHAT_RATE_LIMITS=${JSON.stringify(switched)}: expected on or off`);
  }
  const limited = switched === 'on' || (mode === 'production' && switched !== 'off');
  const rateLimits = limited
    ? (Object.fromEntries(
        (Object.keys(DEFAULT_RATE_LIMITS) as (keyof RateLimits)[]).map((name) => {
          const variable = RATE_LIMIT_VARIABLES[name];
          const text = env[variable];
          return [name, text ? parseRule(variable, text) : DEFAULT_RATE_LIMITS[name]];
        }),
      ) as unknown as RateLimits)
    : undefined;
  const headersTimeoutMs = secondsInMs(env, 'TEAMCHAT_HEADERS_TIMEOUT_SECONDS', 10);
  const requestTimeoutMs = secondsInMs(env, 'TEAMCHAT_REQUEST_TIMEOUT_SECONDS', 30);
  // Node requires the whole request's limit to be at least the headers': say so rather than raise it.
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new Error(
      `TEAMCHAT_REQUEST_TIMEOUT_SECONDS=${JSON.stringify(env.TEAMCHAT_REQUEST_TIMEOUT_SECONDS ?? '30')}: must be at least TEAMCHAT_HEADERS_TIMEOUT_SECONDS (${headersTimeoutMs / 1000})`,
    );
  }
  return {
    rateLimits,
    headersTimeoutMs,
    requestTimeoutMs,
    serviceTimeoutMs: secondsInMs(env, 'TEAMCHAT_SERVICE_TIMEOUT_SECONDS', 10),
    keepAliveTimeoutMs: secondsInMs(env, 'TEAMCHAT_KEEP_ALIVE_TIMEOUT_SECONDS', 65),
    idleTimeoutMs: secondsInMs(env, 'TEAMCHAT_IDLE_TIMEOUT_SECONDS', heartbeatSeconds + 30),
    trustProxy: flag(env, 'TEAMCHAT_TRUST_PROXY'),
  };
}
