/**
 * Starting the server for HTTP tests, in either mode: embedded (one process, in-process
 * bus) or distributed (gateway and each service as its own process over a real
 * nats-server, sharing one SQLite event store file, each with its own read models).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endpoints } from '@teamchat/contracts';
import { callContract, createLogger, loadConfig, NatsBus, type Bus } from '@teamchat/platform';
import { startNatsServer } from '@teamchat/platform/testing';
import { startEmbeddedServer, type ServiceThread } from '../src/embedded';
import { checkAppFields, registerRequestOf, type RegisterRequest } from './zulip-app-fields';
import { openApiViolations } from './openapi-replies';

export interface RunningServer {
  /** Base URL of the API, ending in /api/v1. */
  api: string;
  /** The data directory every process of the server shares (its outbox among others). */
  dataDir?: string;
  /** The server's bus, for internal commands no HTTP route reaches (closed with the server). */
  bus?: () => Promise<Bus>;
  /** The embedded mode's service threads. */
  threads?: readonly ServiceThread[];
  stop(): Promise<void>;
}

const root = join(__dirname, '..', '..', '..');

/** The address a production deployment of the tests is configured with, unless the test names its own. */
export const PRODUCTION_REALM_URI = 'https://chat.acme.test';

export function tempDataDir(): string {
  return mkdtempSync(join(tmpdir(), 'teamchat-test-'));
}

export async function startEmbedded(dataDir = tempDataDir(), env: Record<string, string> = {}): Promise<RunningServer> {
  process.env.LOG_LEVEL ??= 'silent';
  const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_HEARTBEAT_SECONDS: '2', TEAMCHAT_CHECK_REPLIES: '1', ...env });
  const server = await startEmbeddedServer(config, createLogger('test'), { host: '127.0.0.1', port: 0 });
  return { api: `${server.url}/api/v1`, dataDir, bus: async () => server.bus, threads: server.threads, stop: () => server.stop() };
}

function waitForLine(child: ChildProcess, prefix: string, timeoutMs = 60_000): Promise<string> {
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
  // A child killed by a signal has no exit code, and its 'exit' has already fired.
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** Sends SIGKILL (no clean shutdown: nothing is flushed or closed) and waits for the exit. */
function killChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** The embedded server as a child process (`node [nodeArgs] apps/server/dist/main.js`), so that it can be killed. */
export interface ServerProcess extends RunningServer {
  /** kill -9 the whole server. */
  kill(): Promise<void>;
}

export async function startEmbeddedProcess(dataDir: string, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<ServerProcess> {
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'apps/server/dist/main.js')], {
    env: {
      ...process.env,
      TEAMCHAT_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      TEAMCHAT_HEARTBEAT_SECONDS: '2',
      TEAMCHAT_CHECK_REPLIES: '1',
      LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const line = await waitForLine(child, 'Team chat server');
    const url = /listening on (\S+)/.exec(line)![1]!;
    return { api: `${url}/api/v1`, kill: () => killChild(child), stop: () => stopChild(child) };
  } catch (err) {
    await killChild(child);
    throw err;
  }
}

export type ServiceName = 'accounts' | 'channels' | 'messaging' | 'events';

export interface DistributedServer extends RunningServer {
  /** kill -9 every instance of one service. */
  kill(service: ServiceName): Promise<void>;
  /** Starts every instance of that service again with the same environment (instance names, read models, bus); resolves once they are ready. */
  restart(service: ServiceName): Promise<void>;
  /** kill -9 one instance (0-based) of a service. */
  killInstance(service: ServiceName, index: number): Promise<void>;
  /** Stops the nats-server (the services stay up and reconnect when it returns). */
  stopNats(): Promise<void>;
  /** Starts the nats-server again on the same port. */
  startNats(): Promise<void>;
  /** The gateways' own API URLs (`api` alternates between them when there are several). */
  gateways: string[];
  /** The environment every process got (NATS_URL among it), for tools run beside them. */
  env: Record<string, string | undefined>;
}

export interface DistributedOptions {
  /** Environment for every process (e.g. the gateway's rate limits and timeouts). */
  env?: Record<string, string>;
  /** Instances of each service (1 by default; with more, queue groups share the load). */
  instances?: number;
  /** Gateways (1 by default); with more than one, `api` is a local proxy handing each request to the next gateway in turn. */
  gateways?: number;
  /** Seed the development organization before the gateways start (true by default). */
  seed?: boolean;
}

/**
 * Every service as `instances` processes (each with its instance name and read-model
 * file) and `gateways` gateways over one real nats-server, sharing one SQLite event store
 * file. `extraEnv` reaches every process.
 */
export async function startDistributed(extraEnv: Record<string, string> = {}, options: Omit<DistributedOptions, 'env'> = {}): Promise<DistributedServer> {
  const instances = options.instances ?? 1;
  const gatewayCount = options.gateways ?? 1;
  let nats = await startNatsServer();
  const dataDir = tempDataDir();
  const env = {
    ...process.env,
    // Production requires the organization's address (every mailed link and realm_uri starts with it).
    ...(extraEnv.TEAMCHAT_MODE === 'production' ? { TEAMCHAT_REALM_URI: PRODUCTION_REALM_URI } : {}),
    NATS_URL: nats.url,
    TEAMCHAT_DATA_DIR: dataDir,
    TEAMCHAT_HEARTBEAT_SECONDS: '2',
    // Every reply is checked against its endpoint's contract: a drift fails the suites.
    TEAMCHAT_CHECK_REPLIES: '1',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const children: ChildProcess[] = [];
  const run = (script: string, extra: Record<string, string> = {}) => {
    const child = spawn(process.execPath, [join(root, script)], { env: { ...env, ...extra }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    return child;
  };
  const services = new Map<ServiceName, ChildProcess[]>();
  const startInstance = async (name: ServiceName, index: number) => {
    const child = run(`services/${name}/dist/main.js`, {
      TEAMCHAT_INSTANCE: `${name}-${index}`,
      TEAMCHAT_READ_MODELS: join(dataDir, `${name}-${index}.read-models.sqlite`),
    });
    const list = services.get(name) ?? [];
    list[index] = child;
    services.set(name, list);
    await waitForLine(child, `READY ${name}`);
  };
  const startService = (name: ServiceName) => Promise.all(Array.from({ length: instances }, (_, i) => startInstance(name, i)));
  let proxy: Proxy | undefined;
  try {
    // The gateways boot beside the services and the seed (each waits on the bus for a
    // service to confirm the deployment's mode, and builds no state from the services, as
    // the embedded mode's gateway listens before its services start): about a second less
    // per start than one after the other. The seed waits for every service to be READY: it
    // calls all of them, and the first one up would let it past its mode check.
    const starting = Array.from({ length: gatewayCount }, async (_, i) => {
      const line = await waitForLine(run('services/gateway/dist/main.js', { PORT: '0', TEAMCHAT_INSTANCE: `gateway-${i}` }), 'READY gateway');
      return line.split(' ')[2]!;
    });
    const seeded = (async () => {
      await Promise.all((['accounts', 'channels', 'messaging', 'events'] as const).map(startService));
      if (options.seed ?? true) {
        const seed = run('apps/server/dist/seed-main.js');
        await new Promise<void>((resolve, reject) => {
          seed.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`seeding exited with ${code}`))));
        });
      }
    })();
    const [gateways] = await Promise.all([Promise.all(starting), seeded]);
    proxy = gateways.length > 1 ? await alternatingProxy(gateways) : undefined;
    const url = proxy?.url ?? gateways[0]!;
    let testBus: Promise<NatsBus> | undefined;
    return {
      api: `${url}/api/v1`,
      dataDir,
      bus: () => (testBus ??= NatsBus.connect(nats.url, 'test')),
      gateways: gateways.map((gateway) => `${gateway}/api/v1`),
      get env() {
        return { ...env, NATS_URL: nats.url };
      },
      kill: async (name) => {
        await Promise.all((services.get(name) ?? []).map(killChild));
      },
      killInstance: (name, index) => killChild(services.get(name)![index]!),
      async restart(name) {
        const running = (services.get(name) ?? []).filter((old) => old.exitCode === null && old.signalCode === null);
        if (running.length > 0) throw new Error(`${name} is still running`);
        await startService(name);
      },
      async stopNats() {
        await nats.stop();
      },
      async startNats() {
        nats = await startNatsServer(nats.port);
      },
      async stop() {
        await (await testBus)?.close();
        await proxy?.close();
        await Promise.all(children.map(stopChild));
        await nats.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    await proxy?.close();
    await Promise.all(children.map(stopChild));
    await nats.stop();
    throw err;
  }
}

interface Proxy {
  url: string;
  close(): Promise<void>;
}

/**
 * One test client in front of several gateways: each request goes to the next gateway in
 * turn, so that consecutive requests of one client (a write, then a read) cross gateways.
 */
async function alternatingProxy(targets: string[]): Promise<Proxy> {
  let next = 0;
  const agent = new http.Agent({ keepAlive: true });
  // As large as the gateway's own header limit (256 KiB), so that the proxy refuses nothing first.
  const server = http.createServer({ maxHeaderSize: 512 * 1024 }, (req, res) => {
    const target = new URL(targets[next++ % targets.length]!);
    const upstream = http.request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers, agent, maxHeaderSize: 512 * 1024 },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ result: 'error', msg: 'test proxy: gateway unreachable', code: 'BAD_GATEWAY' }));
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What each queue a test client registered asked for (its events are checked by it). */
const registeredQueues = new Map<string, RegisterRequest>();

/**
 * A successful reply the official Zulip apps would fail to decode (zulip-app-fields.ts)
 * fails the test that got it, so a member the apps require cannot go missing unnoticed.
 */
export class AppFieldsError extends Error {}

/** A reply the server's own OpenAPI description does not admit (openapi-replies.ts) fails the test that got it. */
export class OpenApiReplyError extends Error {}

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
    if (res.status === 200 && options.rawBody === undefined) {
      const route = path.split('?')[0];
      if (typeof body.queue_id === 'string' && (route === '/register' || (route === '/events' && params.queue_id === undefined))) {
        registeredQueues.set(body.queue_id, registerRequestOf(params));
      }
      const violations = checkAppFields({ method, path, params }, body, registeredQueues);
      if (violations.length > 0) {
        throw new AppFieldsError(`${method} ${path}: the Zulip apps could not decode this reply:\n  ${violations.slice(0, 20).join('\n  ')}`);
      }
    }
    const undescribed = openApiViolations(method, url, res.status, body);
    if (undescribed.length > 0) {
      throw new OpenApiReplyError(`${method} ${path} (${res.status}): the reply does not match the OpenAPI description:\n  ${undescribed.slice(0, 20).join('\n  ')}`);
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

/** A TCP port free at the moment of asking, for a server that must come back on the same address. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = http.createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * What the operator's change-user-role tool does, over the server's bus: gives (or takes)
 * a user the server-level permission to change other users' addresses.
 */
export async function setEmailChangePermission(server: RunningServer, email: string, granted: boolean): Promise<void> {
  if (!server.bus) throw new Error('this server offers no bus to the tests');
  await callContract(await server.bus(), endpoints.accounts.changeServerPermission, { params: { email, permission: 'can_change_user_emails', granted } });
}
