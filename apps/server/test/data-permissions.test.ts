/**
 * Private data on disk (issue 36, item 3): started under a permissive umask (022), the
 * server creates its data directory 0700 and every file in it without a group or other bit
 * (SQLite files with their -wal and -shm, the secret, uploads and custom emoji, outbox mail);
 * an existing directory open to others is refused in production, in one line and before
 * anything is opened (the server, the operator's tools, a distributed service), and is
 * tightened in development, with one line saying so.
 *
 * Run as root the bits are still recorded and checked by stat, so nothing here needs
 * another user.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from '@jest/globals';
import { Client } from './harness';
import { PNG, uploadFiles } from './uploads-suite';

const root = join(__dirname, '..', '..', '..');
const MAIN = join(root, 'apps/server/dist/main.js');
const CREATE_ORGANIZATION = join(root, 'apps/server/dist/create-organization.js');
const ACCOUNTS = join(root, 'services/accounts/dist/main.js');

const scratch = mkdtempSync(join(tmpdir(), 'teamchat-permissions-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
let dirs = 0;
/** A path under a private scratch directory, not yet created. */
const freshPath = () => join(scratch, `data-${++dirs}`);

/** Children inherit the umask: every process here starts under 022, as a default shell's would. */
const previousUmask = process.umask(0o022);
afterAll(() => {
  process.umask(previousUmask);
});
afterEach(() => {
  process.umask(0o022);
});

const env = (dataDir: string, extra: Record<string, string> = {}) => ({
  ...process.env,
  TEAMCHAT_DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  TEAMCHAT_CHECK_REPLIES: '1',
  ...extra,
});

interface Started {
  api: string;
  stderr(): string;
  stop(): Promise<void>;
}

const running: ChildProcess[] = [];
afterAll(() => running.forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));

/** `node apps/server/dist/main.js` under umask 022; resolves once it listens. */
function startServer(dataDir: string, extra: Record<string, string> = {}): Promise<Started> {
  process.umask(0o022);
  const child = spawn(process.execPath, [MAIN], { env: env(dataDir, extra), stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  let err = '';
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s; stderr: ${err}`)), 60_000);
    child.on('exit', (code) => reject(new Error(`exited (${code}) before listening; stderr: ${err}`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const url = /listening on (\S+)/.exec(out)?.[1];
      if (!url) return;
      clearTimeout(timer);
      resolve({
        api: `${url}/api/v1`,
        stderr: () => err,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}

/** Runs a process that is expected to refuse at once: its exit code and stderr. */
function runRefused(script: string, dataDir: string, extra: Record<string, string>, args: string[] = []) {
  process.umask(0o022);
  const result = spawnSync(process.execPath, [script, ...args], { env: env(dataDir, extra), encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stderr: result.stderr, stdout: result.stdout };
}

/** Every directory and file under `dir` (itself included) with its permission bits. */
function modesUnder(dir: string): Map<string, number> {
  const modes = new Map<string, number>([['.', statSync(dir).mode & 0o777]]);
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true })) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      modes.set(path, statSync(join(dir, path)).mode & 0o777);
      if (entry.isDirectory()) walk(path);
    }
  };
  walk('');
  return modes;
}

const exposed = (modes: Map<string, number>) => [...modes].filter(([, mode]) => mode & 0o077).map(([path, mode]) => `${path} ${mode.toString(8)}`);

async function until<T>(probe: () => T | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A data directory as an earlier release left it under umask 022: 0755, its files 0644. */
function loosen(dir: string): void {
  for (const [path, mode] of modesUnder(dir)) chmodSync(join(dir, path), (mode & 0o700) === 0o700 ? 0o755 : 0o644);
}

describe('a data directory the server creates', () => {
  it('is 0700 and nothing in it is open to others: SQLite files with -wal and -shm, the secret, uploads, emoji, outbox mail', async () => {
    const dataDir = freshPath();
    const server = await startServer(dataDir);
    try {
      const member = await Client.login(server.api, 'member@example.com');
      const uploaded = await uploadFiles(member, [{ name: 'secret.txt', bytes: Buffer.from('private notes') }]);
      expect(uploaded.body).toMatchObject({ result: 'success' });
      const emoji = await uploadFiles(member, [{ name: 'dot.png', bytes: PNG, type: 'image/png' }], '/realm/emoji/private_dot');
      expect(emoji.body).toMatchObject({ result: 'success' });
      const admin = await Client.login(server.api, 'admin@example.com');
      const general = (await admin.get('/get_stream_id', { stream: 'general' })).body.stream_id;
      const invited = await admin.post('/invites', { invitee_emails: 'newcomer@example.org', stream_ids: [general] });
      expect(invited.body).toMatchObject({ result: 'success' });
      const outbox = join(dataDir, 'outbox');
      await until(() => (readdirSync(outbox, { withFileTypes: true }).some((e) => e.name.endsWith('.json')) ? true : undefined), 'the invitation in the outbox');

      // While it runs, so that the WAL files are there.
      const modes = modesUnder(dataDir);
      const names = [...modes.keys()];
      for (const expected of ['events.sqlite', 'events.sqlite-wal', 'events.sqlite-shm', 'accounts.read-models.sqlite', 'accounts.read-models.sqlite-wal', 'server-secret']) {
        expect(names).toContain(expected);
      }
      // Blob keys: uploads/<2 hex>/<random> for files, emoji/<random> for custom emoji.
      const blobs = names.filter((p) => p.startsWith('uploads/') && statSync(join(dataDir, p)).isFile());
      expect(blobs).toEqual(expect.arrayContaining([expect.stringMatching(/^uploads\/uploads\/[0-9a-f]{2}\/./), expect.stringMatching(/^uploads\/emoji\/./)]));
      expect(names.some((p) => /^outbox\/.+\.json$/.test(p))).toBe(true);
      expect(modes.get('.')).toBe(0o700);
      expect(exposed(modes)).toEqual([]);
      expect(server.stderr()).toBe('');
    } finally {
      await server.stop();
    }
  }, 90_000);

  it('is private when the operator\'s tool creates it, too (create-organization on a fresh directory)', () => {
    const dataDir = freshPath();
    process.umask(0o022);
    const result = spawnSync(process.execPath, [CREATE_ORGANIZATION, '--name', 'Acme', '--email', 'boss@acme.test', '--full-name', 'Ada Boss', '--print-api-key'], {
      env: env(dataDir, { TEAMCHAT_MODE: 'production', ZULIP_JWT_SECRET: '', TEAMCHAT_REALM_URI: 'https://chat.acme.test', LOG_LEVEL: 'silent' }),
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/API key: \S+/);
    const modes = modesUnder(dataDir);
    expect([...modes.keys()]).toContain('events.sqlite');
    expect(modes.get('.')).toBe(0o700);
    expect(exposed(modes)).toEqual([]);
  }, 60_000);
});

describe('an existing data directory open to others', () => {
  /** 0755 with a few 0644 files, as a release before this check left one. */
  function looseDirectory(): string {
    const dataDir = freshPath();
    mkdirSync(dataDir, { mode: 0o755 });
    chmodSync(dataDir, 0o755);
    for (const name of ['events.sqlite', 'server-secret']) writeFileSync(join(dataDir, name), '', { mode: 0o644 });
    chmodSync(join(dataDir, 'events.sqlite'), 0o644);
    chmodSync(join(dataDir, 'server-secret'), 0o644);
    return dataDir;
  }

  const PRODUCTION = { TEAMCHAT_MODE: 'production', ZULIP_JWT_SECRET: '', TEAMCHAT_REALM_URI: 'https://chat.acme.test' };
  const refusal = (name: string, dataDir: string) =>
    `${name}: cannot start: data directory ${dataDir} is readable by other users (the directory 0755, events.sqlite 0644, server-secret 0644): ` +
    `make it private with \`chmod -R go= ${dataDir}\` and start again\n`;

  it('is refused in production in one line, by the server, the operator\'s tools and a distributed service, and left as it was', () => {
    const dataDir = looseDirectory();
    const before = modesUnder(dataDir);
    const server = runRefused(MAIN, dataDir, PRODUCTION);
    expect(server).toMatchObject({ status: 1, stderr: refusal('teamchat', dataDir) });
    const tool = runRefused(CREATE_ORGANIZATION, dataDir, { ...PRODUCTION, LOG_LEVEL: 'silent' }, ['--name', 'Acme', '--email', 'boss@acme.test', '--full-name', 'Ada Boss']);
    expect(tool).toMatchObject({ status: 1, stderr: refusal('create-organization', dataDir), stdout: '' });
    // Refused before it looks for NATS (there is none at this address).
    const service = runRefused(ACCOUNTS, dataDir, { ...PRODUCTION, NATS_URL: 'nats://127.0.0.1:1' });
    expect(service).toMatchObject({ status: 1, stderr: refusal('accounts', dataDir) });
    expect(modesUnder(dataDir)).toEqual(before);
    // Nothing was opened or created.
    expect(readdirSync(dataDir).sort()).toEqual(['events.sqlite', 'server-secret']);
  }, 60_000);

  it('starts in production once the operator ran the command the refusal names; a private directory with a loose file inside is refused as well', async () => {
    const dataDir = freshPath();
    // A real data directory of an earlier release: run once, stop, loosen as umask 022 would have.
    const first = await startServer(dataDir, PRODUCTION);
    await first.stop();
    loosen(dataDir);
    expect(runRefused(MAIN, dataDir, PRODUCTION)).toMatchObject({ status: 1, stderr: expect.stringMatching(/^teamchat: cannot start: data directory .* is readable by other users \(the directory 0755, .*\n$/) });

    chmodSync(dataDir, 0o700);
    const inside = runRefused(MAIN, dataDir, PRODUCTION);
    expect(inside.status).toBe(1);
    expect(inside.stderr).toMatch(/^teamchat: cannot start: data directory .* is readable by other users \(accounts\.read-models\.sqlite 0644, .* and \d+ more\): make it private/);
    expect(inside.stderr.split('\n')).toHaveLength(2);

    spawnSync('chmod', ['-R', 'go=', dataDir]);
    const second = await startServer(dataDir, PRODUCTION);
    try {
      expect(second.stderr()).toBe('');
      expect(exposed(modesUnder(dataDir))).toEqual([]);
    } finally {
      await second.stop();
    }
  }, 90_000);

  it('is made private in development, with one line saying what was changed, and keeps its data', async () => {
    const dataDir = freshPath();
    const first = await startServer(dataDir);
    const member = await Client.login(first.api, 'member@example.com');
    const uploaded = await uploadFiles(member, [{ name: 'kept.txt', bytes: Buffer.from('kept') }]);
    expect(uploaded.body.result).toBe('success');
    await first.stop();
    loosen(dataDir);
    expect(exposed(modesUnder(dataDir)).length).toBeGreaterThan(5);

    const second = await startServer(dataDir);
    try {
      const lines = second.stderr().split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(new RegExp(`^data directory ${dataDir} was readable by other users \\(the directory 0755, .* and \\d+ more\\): made it private to its owner$`));
      const modes = modesUnder(dataDir);
      expect(modes.get('.')).toBe(0o700);
      // The directory and its own entries are tightened; below them the 0700 directory keeps others out.
      const top = [...modes].filter(([path]) => !path.includes('/'));
      expect(top.filter(([, mode]) => mode & 0o077)).toEqual([]);
      const again = new Client(second.api, member.email, member.apiKey);
      expect((await again.get('/attachments')).body.attachments.map((a: { name: string }) => a.name)).toEqual(['kept.txt']);
    } finally {
      await second.stop();
    }
  }, 90_000);
});
