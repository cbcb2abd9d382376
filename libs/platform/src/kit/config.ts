/**
 * Process configuration from the environment, shared by every service so that the
 * embedded server and the separate processes of the distributed mode agree.
 */
import { loadCatchUpSettings, type CatchUpSettings } from './catch-up-settings';
import { flag, positiveInteger, secondsInMs, type ServerMode } from './env-values';
import { loadHttpSettings, type HttpSettings } from './http-settings';
import { randomBytes } from 'node:crypto';
import { accessSync, constants, readFileSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import { preparePrivateDataDir } from './data-dir';
import { ConfigurationError } from './engines';
import { loadMailSettings, type MailSettings } from './mail';

export type { ServerMode } from './env-values';

/** Where the gateway listens (PORT, HOST): 0 asks the system for a free port (tests). */
export interface ListenSettings {
  host: string;
  port: number;
}

export interface ServerConfig {
  mode: ServerMode;
  dataDir: string;
  /** Derives API keys; shared by every accounts instance. */
  serverSecret: string;
  /** HS256 secret for POST /jwt/fetch_api_key; absent disables JWT authentication. */
  jwtSecret: string | undefined;
  /** Host (and port) of realmUri: the domain of dummy emails and of the default sender. */
  realmHost: string;
  /**
   * The organization's address (`https://chat.example.com`, no trailing slash): the only
   * source of absolute links the server makes (mailed links, realm_uri, reminders).
   */
  realmUri: string;
  /**
   * True when TEAMCHAT_REALM_URI was not set (development only): the address was derived
   * from PORT and HOST, and a server that asked for any free port (PORT=0) replaces it with
   * the one it got (see withListeningAddress).
   */
  realmUriDerived: boolean;
  /** Where the gateway listens. */
  listen: ListenSettings;
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
  /** How projectors catch up (each projector reads it from the environment: catch-up-settings.ts). */
  catchUp: CatchUpSettings;
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
  /**
   * How long a web session lasts from its login (Zulip's SESSION_COOKIE_AGE: two weeks);
   * TEAMCHAT_SESSION_AGE_SECONDS (accounts decides it, the gateway sets the cookie's Max-Age).
   */
  sessionAgeSeconds: number;
  /** The built web client (`apps/web/dist`, TEAMCHAT_WEB_DIR): its index.html and static/ files. */
  webClientDir: string;
}

export interface UploadSettings {
  /** Zulip's `max_file_upload_size_mib` (default 25). */
  maxFileUploadSizeMib: number;
  /** Zulip's `max_emoji_file_size_mib` (default 5). */
  maxEmojiFileSizeMib: number;
  /** Zulip's `max_avatar_file_size_mib` (default 5). */
  maxAvatarFileSizeMib: number;
}

export function loadUploadSettings(env: NodeJS.ProcessEnv): UploadSettings {
  return {
    maxFileUploadSizeMib: positiveInteger(env, 'TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB', 25),
    maxEmojiFileSizeMib: positiveInteger(env, 'TEAMCHAT_MAX_EMOJI_FILE_SIZE_MIB', 5),
    maxAvatarFileSizeMib: positiveInteger(env, 'TEAMCHAT_MAX_AVATAR_FILE_SIZE_MIB', 5),
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

export function loadEventQueueSettings(env: NodeJS.ProcessEnv): EventQueueSettings {
  return {
    maxEvents: positiveInteger(env, 'TEAMCHAT_QUEUE_MAX_EVENTS', 5000),
    maxPerUser: positiveInteger(env, 'TEAMCHAT_QUEUES_PER_USER', 50),
    sweepMs: secondsInMs(env, 'TEAMCHAT_QUEUE_SWEEP_SECONDS', 30),
  };
}

/**
 * Exactly `development` or `production`, unset meaning development. Anything else (`prod`,
 * `Production`, an empty value from an unset shell variable) stops the process: a typo must
 * never start a server whose development doors (keys for anyone, the published JWT
 * secret, the /emails page) are open.
 */
export function loadMode(env: NodeJS.ProcessEnv = process.env): ServerMode {
  const text = env.TEAMCHAT_MODE;
  if (text === undefined) return 'development';
  if (text === 'development' || text === 'production') return text;
  throw new ConfigurationError(`TEAMCHAT_MODE=${JSON.stringify(text)}: expected exactly development or production`);
}

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;

export function loadListenSettings(env: NodeJS.ProcessEnv = process.env): ListenSettings {
  const portText = env.PORT || '9991';
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) {
    throw new ConfigurationError(`PORT=${JSON.stringify(portText)}: expected a port number from 1 to 65535 (0: any free port)`);
  }
  const host = env.HOST || '127.0.0.1';
  if (!isIP(host) && !HOST_NAME.test(host)) {
    throw new ConfigurationError(`HOST=${JSON.stringify(host)}: expected an address or host name of this machine, e.g. 127.0.0.1, or 0.0.0.0 for every interface`);
  }
  return { host, port: Number(portText) };
}

/** The address a browser on this machine reaches a listener at (one on every interface included). */
export function listeningAddress(listen: ListenSettings): string {
  const host = listen.host === '0.0.0.0' ? '127.0.0.1' : listen.host === '::' ? '::1' : listen.host;
  return `http://${isIP(host) === 6 ? `[${host}]` : host}:${listen.port}`;
}

/** An origin (scheme, host, port): what every absolute link of the server starts with. */
export function parseRealmUri(text: string): string {
  let url: URL | undefined;
  try {
    url = new URL(text);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new ConfigurationError(`TEAMCHAT_REALM_URI=${JSON.stringify(text)}: expected an absolute http(s) address such as https://chat.example.com`);
  }
  // Not echoed: it holds a password.
  if (url.username || url.password) throw new ConfigurationError('TEAMCHAT_REALM_URI holds a user name or password: give the address alone, e.g. https://chat.example.com');
  if (url.pathname !== '/' || url.search || url.hash) {
    throw new ConfigurationError(
      `TEAMCHAT_REALM_URI=${JSON.stringify(text)}: expected the organization's origin only (scheme, host and port, e.g. https://chat.example.com): the server's pages and API are at its root`,
    );
  }
  return url.origin;
}

/**
 * Required in production: links mailed to people on other machines must reach the server
 * as they see it (behind a proxy, on a public name). In development the default is where
 * the gateway listens (PORT and HOST, which every process of a deployment reads alike).
 */
export function loadRealmUri(env: NodeJS.ProcessEnv, mode: ServerMode, listen: ListenSettings): { realmUri: string; derived: boolean } {
  const text = env.TEAMCHAT_REALM_URI?.trim();
  if (text) return { realmUri: parseRealmUri(text), derived: false };
  if (mode === 'production') {
    throw new ConfigurationError('TEAMCHAT_REALM_URI is not set: production needs the address people reach the organization at, e.g. https://chat.example.com');
  }
  return { realmUri: listeningAddress(listen), derived: true };
}

/** The development default, published in the README: it must never sign a production login. */
const DEVELOPMENT_JWT_SECRET = 'dev-jwt-secret';

function loadJwtSecret(env: NodeJS.ProcessEnv, mode: ServerMode): string | undefined {
  const text = env.ZULIP_JWT_SECRET;
  if (mode === 'development') return text === undefined ? DEVELOPMENT_JWT_SECRET : text || undefined;
  if (!text) return undefined;
  if (text === DEVELOPMENT_JWT_SECRET) {
    throw new ConfigurationError('ZULIP_JWT_SECRET is the published development secret: production needs one of its own (32 characters or more), or none to disable JWT login');
  }
  if (text.length < 32) throw new ConfigurationError('ZULIP_JWT_SECRET is shorter than 32 characters: a short HS256 secret can be guessed from one token');
  return text;
}

function loadSecret(env: NodeJS.ProcessEnv, mode: ServerMode): string | undefined {
  const text = env.TEAMCHAT_SECRET;
  if (text === undefined) return undefined;
  if (text.trim() === '') throw new ConfigurationError('TEAMCHAT_SECRET is empty: set a long random string (openssl rand -hex 32), or unset it to keep the one in the data directory');
  if (mode === 'production' && text.length < 32) {
    throw new ConfigurationError('TEAMCHAT_SECRET is shorter than 32 characters: API keys derive from it; use e.g. openssl rand -hex 32');
  }
  return text;
}

/** Every setting, validated, with nothing written yet: prepareDataDirectory makes the ServerConfig. */
export type ServerSettings = Omit<ServerConfig, 'serverSecret'> & { secret: string | undefined };

/**
 * Reads and checks every setting, writing nothing, so that a process can refuse a bad value,
 * and bind its port, before it touches the data directory. Throws one-line errors naming
 * the variable; no bad value is replaced by a default.
 */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): ServerSettings {
  const mode = loadMode(env);
  const dataText = env.TEAMCHAT_DATA_DIR ?? 'data';
  if (dataText.trim() === '') throw new ConfigurationError('TEAMCHAT_DATA_DIR is empty: name a directory (unset: ./data)');
  const dataDir = resolve(dataText);
  const listen = loadListenSettings(env);
  const { realmUri, derived } = loadRealmUri(env, mode, listen);
  const realmHost = new URL(realmUri).host;
  const heartbeatSeconds = secondsInMs(env, 'TEAMCHAT_HEARTBEAT_SECONDS', 60) / 1000;
  return {
    mode,
    dataDir,
    secret: loadSecret(env, mode),
    jwtSecret: loadJwtSecret(env, mode),
    realmHost,
    realmUri,
    realmUriDerived: derived,
    listen,
    heartbeatSeconds,
    checkReplies: flag(env, 'TEAMCHAT_CHECK_REPLIES'),
    http: loadHttpSettings(env, mode, heartbeatSeconds),
    eventQueues: loadEventQueueSettings(env),
    tools: loadToolSettings(env),
    uploads: loadUploadSettings(env),
    invitations: loadInvitationSettings(env),
    partialSubscribersMinChannelSize: positiveInteger(env, 'TEAMCHAT_PARTIAL_SUBSCRIBERS_MIN', 1000),
    sessionAgeSeconds: positiveInteger(env, 'TEAMCHAT_SESSION_AGE_SECONDS', 14 * 24 * 3600),
    // From libs/platform/{src,dist}/kit: the repository's apps/web/dist.
    webClientDir: resolve(env.TEAMCHAT_WEB_DIR?.trim() || join(__dirname, '../../../../apps/web/dist')),
    mail: loadMailSettings(env, dataDir, realmHost),
    catchUp: loadCatchUpSettings(env),
  };
}

/**
 * A server that asked for any free port (PORT=0, the tests) learns its address only once
 * bound: a derived realm address takes that port. An address the operator set stays.
 */
export function withListeningAddress<C extends ServerSettings | ServerConfig>(config: C, bound: ListenSettings): C {
  // A copy: the caller hands `bound` to the HTTP server, and fastify's listen() adds its
  // callback to the object it is given; the config must stay plain data, since it is
  // cloned into every service thread a restart starts.
  const listen: ListenSettings = { host: bound.host, port: bound.port };
  if (!config.realmUriDerived) return { ...config, listen };
  const realmUri = listeningAddress(listen);
  return { ...config, listen, realmUri, realmHost: new URL(realmUri).host };
}

/**
 * Creates (or checks) the private data directory and its server secret: the first writes of
 * a process, made once every setting is known to be good. A directory the process cannot
 * write is refused in one line naming it.
 */
export function prepareDataDirectory(settings: ServerSettings): ServerConfig {
  const { secret, ...rest } = settings;
  const dir = settings.dataDir;
  try {
    // Every process that writes the data directory prepares it first: from here on what it
    // creates is private (the umask), and a directory open to others is refused in
    // production (data-dir.ts).
    preparePrivateDataDir(dir, settings.mode);
    accessSync(dir, constants.W_OK | constants.X_OK);
    return { ...rest, serverSecret: secret ?? readOrCreateSecret(join(dir, 'server-secret')) };
  } catch (err) {
    throw dataDirectoryError(dir, err);
  }
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  return prepareDataDirectory(loadSettings(env));
}

/** What the operator can do about a data directory the system refused, in one line. */
export function dataDirectoryError(dir: string, err: unknown): Error {
  if ((err as { code?: unknown } | null)?.code === 'CONFIGURATION') return err as Error;
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const path = (err as NodeJS.ErrnoException | null)?.path ?? dir;
  const fix = 'or set TEAMCHAT_DATA_DIR to another directory';
  const elsewhere = 'set TEAMCHAT_DATA_DIR to another directory';
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return new ConfigurationError(`data directory ${dir}: permission denied on ${path}: give this user (uid ${process.getuid?.() ?? '?'}) write access ${fix}`);
    case 'EROFS':
      return new ConfigurationError(`data directory ${dir} is on a read-only file system: ${elsewhere}`);
    case 'ENOTDIR':
    case 'EEXIST':
      return new ConfigurationError(`data directory ${dir}: ${path} is not a directory: ${elsewhere}`);
    case 'ENOSPC':
      return new ConfigurationError(`data directory ${dir}: no space left on the device: free some ${fix}`);
    default:
      return new ConfigurationError(`data directory ${dir}: ${(err as Error)?.message?.split('\n')[0] ?? String(err)} (TEAMCHAT_DATA_DIR)`);
  }
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
