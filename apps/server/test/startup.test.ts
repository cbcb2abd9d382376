/**
 * Starting for real (issue 38): modes that cannot be confused, the organization's address,
 * one server per data directory and one process per instance name, one-line refusals, the
 * operator tools naming their store, and outages logged once. The server and the services
 * run as the operator runs them: their compiled entry points in child processes.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describeWithNats, startNatsServer } from '@teamchat/platform/testing';
import { Client, PRODUCTION_REALM_URI, startDistributed, startEmbedded, startEmbeddedProcess, tempDataDir, type DistributedServer } from './harness';
import { invitationLink } from './suite-kit';

const root = join(__dirname, '..', '..', '..');
const MAIN = join(root, 'apps/server/dist/main.js');
const SEED = join(root, 'apps/server/dist/seed-main.js');
const TOOL = join(root, 'apps/server/dist/change-user-permission.js');
const ACCOUNTS = join(root, 'services/accounts/dist/main.js');
const PRODUCTION = { TEAMCHAT_MODE: 'production', TEAMCHAT_REALM_URI: PRODUCTION_REALM_URI, ZULIP_JWT_SECRET: '' };

const dirs: string[] = [];
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const newDir = () => {
  const dir = tempDataDir();
  dirs.push(dir);
  return dir;
};

/** The environment of a child, without what the test runner's own environment would add. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOST: '127.0.0.1', PORT: '0', LOG_LEVEL: 'warn', ...extra };
  for (const name of ['TEAMCHAT_MODE', 'TEAMCHAT_REALM_URI', 'NATS_URL'] as const) if (!(name in extra)) delete env[name];
  return env;
}

/** Runs an entry point that must refuse to start: its whole stderr, its exit code. */
function refused(script: string, extra: Record<string, string>, args: string[] = []) {
  const result = spawnSync(process.execPath, [script, ...args], { env: childEnv(extra), encoding: 'utf8', timeout: 60_000 });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

/** One line, no stack trace. */
const oneLine = (name: string, message: string | RegExp) =>
  expect.objectContaining({ status: 1, stderr: expect.stringMatching(new RegExp(`^${name}: cannot start: ${typeof message === 'string' ? escape(message) : message.source}\\n$`)) });
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the embedded server refuses a bad start in one line, before writing anything', () => {
  it('refuses a mode that is not exactly development or production', () => {
    for (const typo of ['prod', 'Production', '']) {
      const dir = join(newDir(), 'data');
      expect(refused(MAIN, { TEAMCHAT_DATA_DIR: dir, TEAMCHAT_MODE: typo })).toEqual(
        oneLine('teamchat', `TEAMCHAT_MODE=${JSON.stringify(typo)}: expected exactly development or production`),
      );
      expect(existsSync(dir)).toBe(false);
    }
  });

  it('requires TEAMCHAT_REALM_URI in production, as an absolute http(s) address', () => {
    const dir = join(newDir(), 'data');
    expect(refused(MAIN, { TEAMCHAT_DATA_DIR: dir, TEAMCHAT_MODE: 'production' })).toEqual(oneLine('teamchat', /TEAMCHAT_REALM_URI is not set: [^\n]*/));
    expect(refused(MAIN, { TEAMCHAT_DATA_DIR: dir, TEAMCHAT_MODE: 'production', TEAMCHAT_REALM_URI: 'chat.acme.test' })).toEqual(
      oneLine('teamchat', /TEAMCHAT_REALM_URI="chat.acme.test": expected an absolute http\(s\) address[^\n]*/),
    );
    expect(existsSync(dir)).toBe(false);
  });

  it('names PORT, HOST, the heartbeat and an unusable data directory', () => {
    const dir = join(newDir(), 'data');
    expect(refused(MAIN, { TEAMCHAT_DATA_DIR: dir, PORT: 'abc' })).toEqual(oneLine('teamchat', /PORT="abc": expected a port number[^\n]*/));
    expect(refused(MAIN, { TEAMCHAT_DATA_DIR: dir, HOST: 'localhost:80' })).toEqual(oneLine('teamchat', /HOST="localhost:80": [^\n]*/));
    expect(refused(MAIN, { TEAMCHAT_DATA_DIR: dir, TEAMCHAT_HEARTBEAT_SECONDS: '-1' })).toEqual(
      oneLine('teamchat', 'TEAMCHAT_HEARTBEAT_SECONDS="-1": expected a number of seconds above 0'),
    );
    expect(existsSync(dir)).toBe(false);
    const file = join(newDir(), 'file');
    writeFileSync(file, '');
    expect(refused(MAIN, { TEAMCHAT_DATA_DIR: join(file, 'data') })).toEqual(oneLine('teamchat', /data directory [^\n]* is not a directory: set TEAMCHAT_DATA_DIR to another directory/));
  });

  it('refuses a port in use before it creates the data directory', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const dir = join(newDir(), 'data');
      expect(refused(MAIN, { TEAMCHAT_DATA_DIR: dir, PORT: String(port) })).toEqual(
        oneLine('teamchat', `port ${port} on 127.0.0.1 is in use by another process: stop it, or set PORT to a free port`),
      );
      expect(existsSync(dir)).toBe(false);
    } finally {
      blocker.close();
    }
  });
});

describe('one embedded server per data directory, one mode per store', () => {
  it('refuses a second server on the same directory, naming the holder; a killed holder leaves it free', async () => {
    const dir = newDir();
    const first = await startEmbeddedProcess(dir);
    try {
      const second = refused(MAIN, { TEAMCHAT_DATA_DIR: dir });
      expect(second).toEqual(oneLine('teamchat', /data directory [^\n]* is in use by another server \(pid \d+ on [^\n]*\): stop that server first, or set TEAMCHAT_DATA_DIR to another directory/));
    } finally {
      await first.kill();
    }
    // kill -9 leaves no lock behind: the OS released it with the process.
    const again = await startEmbeddedProcess(dir);
    await again.stop();
  }, 120_000);

  it('refuses a store of the other mode, both ways, and the tools do too', async () => {
    const development = newDir();
    await (await startEmbeddedProcess(development)).stop();
    expect(refused(MAIN, { TEAMCHAT_DATA_DIR: development, ...PRODUCTION })).toEqual(
      oneLine('teamchat', `the data directory ${development} belongs to a development server, and this process runs in production mode: set TEAMCHAT_MODE=development, or use another store for production`),
    );
    expect(refused(TOOL, { TEAMCHAT_DATA_DIR: development, ...PRODUCTION }, ['owner@example.com', 'can_create_users'])).toEqual(
      oneLine('change-user-permission', /the data directory [^\n]* belongs to a development server[^\n]*/),
    );

    const production = newDir();
    const server = await startEmbeddedProcess(production, PRODUCTION);
    await server.stop();
    expect(refused(MAIN, { TEAMCHAT_DATA_DIR: production })).toEqual(
      oneLine('teamchat', `the data directory ${production} belongs to a production server, and this process runs in development mode: set TEAMCHAT_MODE=production, or use another store for development`),
    );
  }, 120_000);

  it('tools say which data directory they act on, and that ./data is a default', () => {
    const dir = newDir();
    const named = spawnSync(process.execPath, [TOOL, 'nobody@example.com', 'can_create_users'], { env: childEnv({ TEAMCHAT_DATA_DIR: dir }), encoding: 'utf8' });
    expect(named.stdout).toBe(`change-user-permission: acting on the data directory ${dir} (development mode)\n`);
    const cwd = newDir();
    const env = childEnv({});
    delete env.TEAMCHAT_DATA_DIR;
    const defaulted = spawnSync(process.execPath, [TOOL, 'nobody@example.com', 'can_create_users'], { env, cwd, encoding: 'utf8' });
    expect(defaulted.stdout).toBe(`change-user-permission: acting on the data directory ${join(cwd, 'data')} (TEAMCHAT_DATA_DIR is not set: ./data of the current directory) (development mode)\n`);
  }, 60_000);
});

describe('the organization address is the only source of absolute links', () => {
  it('mails invitation links and answers realm_uri on TEAMCHAT_REALM_URI', async () => {
    const server = await startEmbedded(newDir(), { TEAMCHAT_REALM_URI: 'https://chat.acme.test' });
    try {
      const owner = await Client.login(server.api, 'owner@example.com');
      expect((await owner.post('/invites', { invitee_emails: 'ann@example.org', stream_ids: [] })).body.result).toBe('success');
      expect(new URL(await invitationLink(server.dataDir!, 'ann@example.org')).origin).toBe('https://chat.acme.test');
      const registered = await owner.post('/register', {});
      expect(registered.body).toMatchObject({ realm_uri: 'https://chat.acme.test', realm_url: 'https://chat.acme.test' });
    } finally {
      await server.stop();
    }
  }, 60_000);

  it("defaults in development to the address the server listens on (the port it got with PORT=0)", async () => {
    const server = await startEmbedded(newDir());
    try {
      const owner = await Client.login(server.api, 'owner@example.com');
      const origin = new URL(server.api).origin;
      expect((await owner.post('/register', {})).body.realm_uri).toBe(origin);
      expect((await owner.post('/invites', { invitee_emails: 'bob@example.org', stream_ids: [] })).body.result).toBe('success');
      expect(new URL(await invitationLink(server.dataDir!, 'bob@example.org')).origin).toBe(origin);
    } finally {
      await server.stop();
    }
  }, 60_000);
});

/** A service process of the test's own, whose output the test reads. */
function runService(script: string, env: Record<string, string>): { child: ChildProcess; output: () => string; ready: Promise<void> } {
  const child = spawn(process.execPath, [script], { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('READY ')) {
        clearInterval(timer);
        resolve();
      }
    }, 50);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`exited ${code}: ${output}`));
    });
  });
  return { child, output: () => output, ready };
}

const exited = (child: ChildProcess) =>
  child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise<void>((resolve) => child.once('exit', () => resolve()));

describeWithNats('the distributed mode', () => {
  let server: DistributedServer;
  beforeAll(async () => {
    server = await startDistributed({ TEAMCHAT_MODE: 'production', ZULIP_JWT_SECRET: '' }, { seed: false });
  }, 120_000);
  afterAll(() => server?.stop());

  const deploymentEnv = () => {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(server.env)) if (value !== undefined && (key.startsWith('TEAMCHAT_') || key === 'NATS_URL')) env[key] = value;
    return env;
  };

  it('refuses the development seed against a production deployment, and in production mode', () => {
    expect(refused(SEED, { ...deploymentEnv(), TEAMCHAT_MODE: 'development' })).toEqual(
      oneLine('seed', /the deployment on nats:[^\n]* belongs to a production server, and this process runs in development mode[^\n]*/),
    );
    expect(refused(SEED, deploymentEnv())).toEqual(oneLine('seed', /the development seed never runs in production[^\n]*/));
  }, 60_000);

  it('refuses a second process under an instance name that already answers on the bus', () => {
    const result = refused(ACCOUNTS, { ...deploymentEnv(), TEAMCHAT_INSTANCE: 'accounts-0', TEAMCHAT_READ_MODELS: join(server.dataDir!, 'accounts-dup.sqlite') });
    expect(result).toEqual(oneLine('accounts', /another accounts process is already running as instance accounts-0 \(pid \d+ on [^\n]*\): give each process its own TEAMCHAT_INSTANCE/));
  }, 60_000);
});

describeWithNats('logs an operator can read', () => {
  it('logs the loss and return of NATS once each, warns of production mail going nowhere, and repeats no key', async () => {
    let nats = await startNatsServer();
    const dataDir = newDir();
    const service = runService(ACCOUNTS, {
      ...PRODUCTION,
      NATS_URL: nats.url,
      TEAMCHAT_DATA_DIR: dataDir,
      TEAMCHAT_INSTANCE: 'accounts-logs',
      LOG_LEVEL: 'info',
    });
    try {
      await service.ready;
      await nats.stop();
      await new Promise((resolve) => setTimeout(resolve, 3000));
      nats = await startNatsServer(nats.port);
      const deadline = Date.now() + 20_000;
      while (!service.output().includes('is back after') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const lines = service
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'));
      const messages = lines.map((line) => JSON.parse(line) as { level: number; msg: string; outage_ms?: number });
      expect(messages.filter((m) => m.msg.includes('TEAMCHAT_SMTP_HOST is not set'))).toEqual([expect.objectContaining({ level: 40 })]);
      expect(messages.filter((m) => /lost the connection to NATS/.test(m.msg))).toEqual([expect.objectContaining({ level: 40 })]);
      const back = messages.filter((m) => /NATS at .* is back after/.test(m.msg));
      expect(back).toEqual([expect.objectContaining({ level: 30 })]);
      expect(back[0]!.outage_ms).toBeGreaterThanOrEqual(2500);
      for (const line of lines) {
        const keys = [...line.matchAll(/[{,]"([^"]+)":/g)].map((match) => match[1]);
        expect({ line, repeated: keys.filter((key, i) => keys.indexOf(key) !== i) }).toEqual({ line, repeated: [] });
      }
    } finally {
      service.child.kill('SIGTERM');
      await exited(service.child);
      await nats.stop();
    }
  }, 90_000);
});

