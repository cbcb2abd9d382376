/**
 * Which engines a service process runs on, from the environment, validated at start:
 *
 *   NATS_URL                      the bus (default nats://127.0.0.1:4222)
 *   TEAMCHAT_EVENTSTOREDB_URL     EventStoreDB (esdb://host:2113?tls=false); absent: the
 *                                 shared SQLite file TEAMCHAT_EVENT_STORE (default <data>/events.sqlite)
 *   TEAMCHAT_MONGODB_URL          MongoDB (mongodb://host:27017/?replicaSet=rs0); absent: this
 *                                 instance's SQLite file TEAMCHAT_READ_MODELS
 *   TEAMCHAT_MONGODB_DATABASE     the database of this instance's read models (default
 *                                 teamchat_<service>_<instance>: each instance projects for itself)
 *   TEAMCHAT_INSTANCE             this instance's name (default the host name, which is the
 *                                 container's id under Docker); letters, digits, _ and -
 *   TEAMCHAT_MONGODB_TRANSACTIONS auto (default: where the server offers them) or off
 *
 * A bad value stops the process with a message naming the variable; an engine that does
 * not answer at start stops it with a message naming the engine and its URL (passwords
 * masked), never a stack trace.
 */
import { hostname } from 'node:os';
import { z } from 'zod';

const url = (variable: string, schemes: string[]) =>
  z.string().refine(
    (text) => {
      try {
        return schemes.includes(new URL(text).protocol.slice(0, -1));
      } catch {
        return false;
      }
    },
    { message: `${variable} must be a URL starting with ${schemes.map((s) => `${s}://`).join(' or ')}` },
  );

const blankAsAbsent = (value: unknown) => (value === '' ? undefined : value);

export const EngineEnvironment = z.object({
  NATS_URL: z.preprocess(blankAsAbsent, url('NATS_URL', ['nats', 'tls', 'ws', 'wss']).default('nats://127.0.0.1:4222')),
  TEAMCHAT_EVENTSTOREDB_URL: z.preprocess(blankAsAbsent, url('TEAMCHAT_EVENTSTOREDB_URL', ['esdb', 'esdb+discover']).optional()),
  TEAMCHAT_MONGODB_URL: z.preprocess(blankAsAbsent, url('TEAMCHAT_MONGODB_URL', ['mongodb', 'mongodb+srv']).optional()),
  TEAMCHAT_MONGODB_DATABASE: z.preprocess(
    blankAsAbsent,
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,63}$/, 'TEAMCHAT_MONGODB_DATABASE must be 1-63 letters, digits, _ or -')
      .optional(),
  ),
  TEAMCHAT_MONGODB_TRANSACTIONS: z.preprocess(
    blankAsAbsent,
    z.enum(['auto', 'off'], { message: 'TEAMCHAT_MONGODB_TRANSACTIONS must be auto or off' }).default('auto'),
  ),
  TEAMCHAT_INSTANCE: z.preprocess(
    blankAsAbsent,
    z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, 'TEAMCHAT_INSTANCE must be 1-40 letters, digits, _ or -')
      .optional(),
  ),
  TEAMCHAT_EVENT_STORE: z.preprocess(blankAsAbsent, z.string().optional()),
  TEAMCHAT_READ_MODELS: z.preprocess(blankAsAbsent, z.string().optional()),
});

export interface EngineSettings {
  natsUrl: string;
  instance: string;
  eventStore: { kind: 'eventstoredb'; url: string } | { kind: 'sqlite'; file: string | undefined };
  readModels:
    | { kind: 'mongodb'; url: string; database: string; transactions: 'auto' | 'off' }
    | { kind: 'sqlite'; file: string | undefined };
}

/** A configuration the process cannot start with; its message is meant for the operator as is. */
export class ConfigurationError extends Error {
  readonly code = 'CONFIGURATION';
}

export function loadEngineSettings(service: string, env: NodeJS.ProcessEnv = process.env): EngineSettings {
  const parsed = EngineEnvironment.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    const shown = env[variable] === undefined ? '' : ` (got ${JSON.stringify(maskUrl(String(env[variable])))})`;
    throw new ConfigurationError(`${issue.message.startsWith(variable) ? issue.message : `${variable}: ${issue.message}`}${shown}`);
  }
  const e = parsed.data;
  const instance = e.TEAMCHAT_INSTANCE ?? (hostname().replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 40) || 'local');
  return {
    natsUrl: e.NATS_URL,
    instance,
    eventStore: e.TEAMCHAT_EVENTSTOREDB_URL
      ? { kind: 'eventstoredb', url: e.TEAMCHAT_EVENTSTOREDB_URL }
      : { kind: 'sqlite', file: e.TEAMCHAT_EVENT_STORE },
    readModels: e.TEAMCHAT_MONGODB_URL
      ? {
          kind: 'mongodb',
          url: e.TEAMCHAT_MONGODB_URL,
          database: e.TEAMCHAT_MONGODB_DATABASE ?? `teamchat_${service}_${instance}`.slice(0, 63),
          transactions: e.TEAMCHAT_MONGODB_TRANSACTIONS,
        }
      : { kind: 'sqlite', file: e.TEAMCHAT_READ_MODELS },
  };
}

/** The URL with any password replaced, for messages and logs. */
export function maskUrl(text: string): string {
  try {
    const parsed = new URL(text);
    if (!parsed.password) return text;
    parsed.password = '***';
    return parsed.toString();
  } catch {
    return text.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  }
}

/** An engine that did not answer at start. */
export class EngineUnavailableError extends Error {
  readonly code = 'ENGINE_UNAVAILABLE';
  constructor(
    readonly engine: string,
    readonly url: string,
    cause: unknown,
  ) {
    super(`cannot reach ${engine} at ${maskUrl(url)}: ${reasonOf(cause)}`);
  }
}

function reasonOf(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  // Drivers put the URL (with its password) into some messages; keep the first line only, masked.
  return maskUrl(message.split('\n')[0] ?? message).replace(/\/\/([^:/@\s]+):[^@/\s]*@/g, '//$1:***@');
}

/** Runs `connect`, turning any failure (or no answer within `timeoutMs`) into an EngineUnavailableError. */
export async function reach<T>(engine: string, url: string, connect: () => Promise<T>, timeoutMs = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    return await Promise.race([connect(), timeout]);
  } catch (err) {
    throw new EngineUnavailableError(engine, url, err);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Whether an error means an engine is out of reach (EventStoreDB's client, MongoDB's
 * driver): the request answers 503 and may be retried, rather than 500.
 */
export function isEngineUnavailable(err: unknown): boolean {
  const e = err as { type?: unknown; name?: unknown; code?: unknown } | null;
  if (e === null || typeof e !== 'object') return false;
  if (e.type === 'unavailable' || e.type === 'deadline-exceeded' || e.type === 'not-leader') return true;
  return (
    typeof e.name === 'string' &&
    ['MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoNotConnectedError', 'MongoTopologyClosedError'].includes(e.name)
  );
}
