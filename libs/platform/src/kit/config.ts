/**
 * Process configuration from the environment, shared by every service so that the
 * embedded server and the separate processes of the distributed mode agree.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { preparePrivateDataDir } from './data-dir';
import { loadMailSettings, type MailSettings } from './mail';

export interface ServerConfig {
  mode: 'development' | 'production';
  dataDir: string;
  /** Derives API keys; shared by every accounts instance. */
  serverSecret: string;
  /** HS256 secret for POST /jwt/fetch_api_key; absent disables JWT authentication. */
  jwtSecret: string | undefined;
  /** Host name of the organization, used in dummy emails and URLs. */
  realmHost: string;
  realmUri: string;
  /** How long GET /events blocks before answering with a heartbeat. */
  heartbeatSeconds: number;
  /**
   * Whether the gateway checks every reply against its endpoint's reply schema, answering
   * 500 on a mismatch: on in the test suites, so that a reply drifting from its contract
   * fails them; off by default, since a correct server pays for it on every request.
   */
  checkReplies: boolean;
  /** The HTTP edge: rate limits, timeouts, proxies (the gateway applies them). */
  http: HttpSettings;
  /** The events service's bounds on client event queues. */
  eventQueues: EventQueueSettings;
  /**
   * Channels with at least this many subscribers list only `partial_subscribers` to clients
   * that ask for `include_subscribers: "partial"` (Zulip's MIN_PARTIAL_SUBSCRIBERS_CHANNEL_SIZE).
   */
  partialSubscribersMinChannelSize: number;
  /** Bot storage and video calls (accounts). */
  tools: ToolSettings;
  /** Outgoing email: the outbox or SMTP (see createMailer). */
  mail: MailSettings;
  /** File and custom emoji size limits (the gateway reads at most this much; the owners check it too). */
  uploads: UploadSettings;
  /** Invitations (accounts). */
  invitations: InvitationSettings;
}

export interface UploadSettings {
  /** Zulip's `max_file_upload_size_mib` (default 25). */
  maxFileUploadSizeMib: number;
  /** Zulip's `max_emoji_file_size_mib` (default 5). */
  maxEmojiFileSizeMib: number;
}

export function loadUploadSettings(env: NodeJS.ProcessEnv): UploadSettings {
  return {
    maxFileUploadSizeMib: positiveInteger(env, 'TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB', 25),
    maxEmojiFileSizeMib: positiveInteger(env, 'TEAMCHAT_MAX_EMOJI_FILE_SIZE_MIB', 5),
  };
}

export interface InvitationSettings {
  /** The validity of an invitation that names none (Zulip's INVITATION_LINK_VALIDITY_MINUTES: ten days). */
  validityMinutes: number;
  /** Invitations by email one organization may send in 24 hours (Zulip's INVITES_DEFAULT_REALM_DAILY_MAX). */
  dailyLimit: number;
}

export function loadInvitationSettings(env: NodeJS.ProcessEnv): InvitationSettings {
  return {
    validityMinutes: positiveInteger(env, 'TEAMCHAT_INVITATION_VALIDITY_MINUTES', 14_400),
    dailyLimit: positiveInteger(env, 'TEAMCHAT_INVITES_DAILY_LIMIT', 100),
  };
}

export interface ToolSettings {
  /** Characters (keys plus values) one bot may store: Zulip's default is 10,000,000. */
  botStorageLimit: number;
  /**
   * The Jitsi-style server video calls are made on (`https://meet.example.org`); absent:
   * no provider, and POST /calls/meeting/create is refused.
   */
  jitsiServerUrl: string | undefined;
}

export function loadToolSettings(env: NodeJS.ProcessEnv): ToolSettings {
  const jitsi = env.TEAMCHAT_JITSI_SERVER_URL?.trim();
  if (jitsi) {
    let url: URL;
    try {
      url = new URL(jitsi);
    } catch {
      throw new Error(`TEAMCHAT_JITSI_SERVER_URL=${JSON.stringify(jitsi)}: expected an http(s) URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`TEAMCHAT_JITSI_SERVER_URL=${JSON.stringify(jitsi)}: expected an http(s) URL`);
  }
  return {
    botStorageLimit: positiveInteger(env, 'TEAMCHAT_BOT_STORAGE_LIMIT', 10_000_000),
    jitsiServerUrl: jitsi || undefined,
  };
}

/**
 * How much a client that never polls can make the events service hold: a queue with more
 * unacknowledged events than `maxEvents` is dropped (its client gets BAD_EVENT_QUEUE_ID
 * and registers again), and a user's queue beyond `maxPerUser` drops their least recently
 * polled one.
 */
export interface EventQueueSettings {
  maxEvents: number;
  maxPerUser: number;
  /** How often idle queues are looked for (a poll of an expired queue is refused anyway). */
  sweepMs: number;
}

function positiveInteger(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const text = env[variable];
  if (text === undefined || text === '') return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${variable}=${JSON.stringify(text)}: expected a whole number above 0`);
  return value;
}

export function loadEventQueueSettings(env: NodeJS.ProcessEnv): EventQueueSettings {
  return {
    maxEvents: positiveInteger(env, 'TEAMCHAT_QUEUE_MAX_EVENTS', 5000),
    maxPerUser: positiveInteger(env, 'TEAMCHAT_QUEUES_PER_USER', 50),
    sweepMs: seconds(env, 'TEAMCHAT_QUEUE_SWEEP_SECONDS', 30),
  };
}

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

function seconds(env: NodeJS.ProcessEnv, variable: string, fallback: number): number {
  const text = env[variable];
  if (text === undefined || text === '') return fallback * 1000;
  const value = Number(text);
  if (!(value > 0)) throw new Error(`${variable}=${JSON.stringify(text)}: expected a number of seconds above 0`);
  return Math.round(value * 1000);
}

export function loadHttpSettings(env: NodeJS.ProcessEnv, mode: ServerConfig['mode'], heartbeatSeconds: number): HttpSettings {
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
  const headersTimeoutMs = seconds(env, 'TEAMCHAT_HEADERS_TIMEOUT_SECONDS', 10);
  return {
    rateLimits,
    headersTimeoutMs,
    // Node requires the whole request's limit to be at least the headers'.
    requestTimeoutMs: Math.max(headersTimeoutMs, seconds(env, 'TEAMCHAT_REQUEST_TIMEOUT_SECONDS', 30)),
    keepAliveTimeoutMs: seconds(env, 'TEAMCHAT_KEEP_ALIVE_TIMEOUT_SECONDS', 65),
    idleTimeoutMs: seconds(env, 'TEAMCHAT_IDLE_TIMEOUT_SECONDS', heartbeatSeconds + 30),
    trustProxy: env.TEAMCHAT_TRUST_PROXY === '1',
  };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const mode = env.TEAMCHAT_MODE === 'production' ? 'production' : 'development';
  const dataDir = resolve(env.TEAMCHAT_DATA_DIR ?? 'data');
  // Every process that writes the data directory loads its configuration first: from here
  // on what it creates is private (the umask), and a directory open to others is refused
  // in production (data-dir.ts).
  preparePrivateDataDir(dataDir, mode);
  const port = env.PORT ?? '9991';
  const realmHost = env.TEAMCHAT_REALM_HOST ?? `127.0.0.1:${port}`;
  const jwtSecret = env.ZULIP_JWT_SECRET ?? (mode === 'development' ? 'dev-jwt-secret' : undefined);
  const heartbeat = Number(env.TEAMCHAT_HEARTBEAT_SECONDS ?? '60');
  const heartbeatSeconds = Number.isFinite(heartbeat) && heartbeat > 0 ? heartbeat : 60;
  return {
    mode,
    dataDir,
    serverSecret: env.TEAMCHAT_SECRET ?? readOrCreateSecret(join(dataDir, 'server-secret')),
    jwtSecret: jwtSecret === '' ? undefined : jwtSecret,
    realmHost,
    realmUri: env.TEAMCHAT_REALM_URI ?? `http://${realmHost}`,
    heartbeatSeconds,
    checkReplies: env.TEAMCHAT_CHECK_REPLIES === '1',
    http: loadHttpSettings(env, mode, heartbeatSeconds),
    eventQueues: loadEventQueueSettings(env),
    tools: loadToolSettings(env),
    uploads: loadUploadSettings(env),
    invitations: loadInvitationSettings(env),
    partialSubscribersMinChannelSize: positiveInteger(env, 'TEAMCHAT_PARTIAL_SUBSCRIBERS_MIN', 1000),
    mail: loadMailSettings(env, dataDir, realmHost),
  };
}

/** Several processes may start at once on one data directory: the first writer wins. */
function readOrCreateSecret(path: string): string {
  try {
    writeFileSync(path, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  // The winner may still be writing; its secret is never empty once written.
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let attempt = 0; attempt < 500; attempt++) {
    const secret = readFileSync(path, 'utf8').trim();
    if (secret) return secret;
    Atomics.wait(pause, 0, 0, 10);
  }
  throw new Error(`${path} is empty: remove it (API keys derived from it change) or set TEAMCHAT_SECRET`);
}
