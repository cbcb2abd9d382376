/**
 * Starting the server for HTTP tests, in either mode: embedded (one process, in-process
 * bus) or distributed (gateway and each service as its own process over a real
 * nats-server, sharing one SQLite event store file, each with its own read models).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@teamchat/platform';
import { startNatsServer } from '@teamchat/platform/testing';
import { startEmbeddedServer, type ServiceThread } from '../src/embedded';

export interface RunningServer {
  /** Base URL of the API, ending in /api/v1. */
  api: string;
  /** The embedded mode's service threads. */
  threads?: readonly ServiceThread[];
  stop(): Promise<void>;
}

const root = join(__dirname, '..', '..', '..');

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'teamchat-test-'));
}

export async function startEmbedded(dataDir = tempDataDir(), env: Record<string, string> = {}): Promise<RunningServer> {
  process.env.LOG_LEVEL ??= 'silent';
  const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_HEARTBEAT_SECONDS: '2', TEAMCHAT_CHECK_REPLIES: '1', ...env });
  const server = await startEmbeddedServer(config, createLogger('test'), { host: '127.0.0.1', port: 0 });
  return { api: `${server.url}/api/v1`, threads: server.threads, stop: () => server.stop() };
}

function waitForLine(child: ChildProcess, prefix: string, timeoutMs = 20_000): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = '';
    let errors = '';
    const timer = setTimeout(() => reject(new Error(`timed out waiting for "${prefix}"; stderr: ${errors}`)), timeoutMs);
    child.stderr?.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString();
      const line = buffer.split('\n').find((l) => l.startsWith(prefix));
      if (line) {
        clearTimeout(timer);
        resolve(line);
      }
    });
    child.on('exit', (code) => reject(new Error(`process exited (${code}) before "${prefix}"; stderr: ${errors}`)));
  });
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

export async function startDistributed(): Promise<RunningServer> {
  const nats = await startNatsServer();
  const dataDir = tempDataDir();
  const env = {
    ...process.env,
    NATS_URL: nats.url,
    TEAMCHAT_DATA_DIR: dataDir,
    TEAMCHAT_HEARTBEAT_SECONDS: '2',
    // Every reply is checked against its endpoint's contract: a drift fails the suites.
    TEAMCHAT_CHECK_REPLIES: '1',
    LOG_LEVEL: 'warn',
  };
  const children: ChildProcess[] = [];
  const run = (script: string, extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, [join(root, script)], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    return child;
  };
  try {
    const services = ['accounts', 'channels', 'messaging', 'events'];
    await Promise.all(services.map((name) => waitForLine(run(`services/${name}/dist/main.js`), `READY ${name}`)));
    const seed = run('apps/server/dist/seed-main.js');
    await new Promise<void>((resolve, reject) => {
      seed.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`seeding exited with ${code}`))));
    });
    const line = await waitForLine(run('services/gateway/dist/main.js', { PORT: '0' }), 'READY gateway');
    const url = line.split(' ')[2]!;
    return {
      api: `${url}/api/v1`,
      async stop() {
        await Promise.all(children.map(stopChild));
        await nats.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await Promise.all(children.map(stopChild));
    await nats.stop();
    throw err;
  }
}

/** A small HTTP client for the tests: form-encoded bodies, Basic auth, JSON replies. */
export class Client {
  constructor(
    readonly api: string,
    readonly email?: string,
    readonly apiKey?: string,
  ) {}

  static async login(api: string, email: string): Promise<Client> {
    const res = await fetch(`${api}/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: email }) });
    const body = (await res.json()) as { api_key: string };
    return new Client(api, email, body.api_key);
  }

  async request(
    method: string,
    path: string,
    params: Record<string, unknown> = {},
    options: { query?: boolean; headers?: Record<string, string>; rawBody?: string | FormData } = {},
  ): Promise<{ status: number; body: Record<string, any>; headers: Headers }> {
    const encoded = new URLSearchParams();
    for (const [key, value] of Object.entries(params)) {
      encoded.set(key, typeof value === 'string' ? value : JSON.stringify(value));
    }
    const inQuery = options.query ?? (method === 'GET' || method === 'DELETE');
    const url = `${this.api}${path}${inQuery && encoded.size ? `?${encoded}` : ''}`;
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    if (this.email && this.apiKey && !('authorization' in headers)) {
      headers.authorization = `Basic ${Buffer.from(`${this.email}:${this.apiKey}`).toString('base64')}`;
    }
    const res = await fetch(url, {
      method,
      headers,
      body: options.rawBody ?? (inQuery || method === 'GET' ? undefined : encoded),
    });
    const text = await res.text();
    let body: Record<string, any>;
    try {
      body = JSON.parse(text);
    } catch {
      throw new Error(`non-JSON reply (${res.status}) to ${method} ${path}: ${text.slice(0, 200)}`);
    }
    return { status: res.status, body, headers: res.headers };
  }

  get(path: string, params?: Record<string, unknown>) {
    return this.request('GET', path, params);
  }

  post(path: string, params?: Record<string, unknown>) {
    return this.request('POST', path, params);
  }
}
