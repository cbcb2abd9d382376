/**
 * Process configuration from the environment, shared by every service so that the
 * embedded server and the separate processes of the distributed mode agree.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

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
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const mode = env.TEAMCHAT_MODE === 'production' ? 'production' : 'development';
  const dataDir = resolve(env.TEAMCHAT_DATA_DIR ?? 'data');
  mkdirSync(dataDir, { recursive: true });
  const port = env.PORT ?? '9991';
  const realmHost = env.TEAMCHAT_REALM_HOST ?? `127.0.0.1:${port}`;
  const jwtSecret = env.ZULIP_JWT_SECRET ?? (mode === 'development' ? 'dev-jwt-secret' : undefined);
  const heartbeat = Number(env.TEAMCHAT_HEARTBEAT_SECONDS ?? '60');
  return {
    mode,
    dataDir,
    serverSecret: env.TEAMCHAT_SECRET ?? readOrCreateSecret(join(dataDir, 'server-secret')),
    jwtSecret: jwtSecret === '' ? undefined : jwtSecret,
    realmHost,
    realmUri: env.TEAMCHAT_REALM_URI ?? `http://${realmHost}`,
    heartbeatSeconds: Number.isFinite(heartbeat) && heartbeat > 0 ? heartbeat : 60,
    checkReplies: env.TEAMCHAT_CHECK_REPLIES === '1',
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
