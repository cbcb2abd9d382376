/**
 * The README's quick start, run exactly as written: the shell blocks under its
 * "Quick start" heading are extracted and run in order, so the commands a newcomer types
 * cannot rot. They run in a copy of the repository (its tracked files, the compiled
 * output `tsc -b` left, so the build is incremental, and a hard-linked node_modules), so
 * that `npm start`'s rebuild of the web client never pulls files from under another
 * suite's server. `npm start` is the server: it runs until the test stops it, on a free
 * port given as `PORT`; the commands after it name the README's address
 * (127.0.0.1:9991), which is rewritten to that port and is the only change made.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from '@jest/globals';
import { ROOT, shellBlocksUnder } from './docs-kit';
import { freePort } from './harness';

const README_ADDRESS = '127.0.0.1:9991';
let server: ChildProcess | undefined;
let copy: string | undefined;

afterAll(() => {
  if (server?.pid !== undefined && server.exitCode === null) process.kill(-server.pid, 'SIGTERM');
  if (copy) rmSync(copy, { recursive: true, force: true });
});

/** The tracked files (mtimes kept), each package's dist and build info, node_modules hard-linked. */
function copyOfRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'teamchat-quick-start-'));
  const tracked = spawnSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' });
  if (tracked.status !== 0) throw new Error(`git ls-files: ${tracked.stderr}`);
  for (const file of tracked.stdout.split('\0').filter(Boolean)) {
    if (existsSync(join(ROOT, file))) cpSync(join(ROOT, file), join(dir, file), { preserveTimestamps: true });
  }
  for (const top of ['libs', 'services', 'apps']) {
    for (const name of readdirSync(join(ROOT, top))) {
      for (const built of ['dist', 'tsconfig.tsbuildinfo']) {
        const from = join(ROOT, top, name, built);
        if (existsSync(from)) cpSync(from, join(dir, top, name, built), { recursive: true, preserveTimestamps: true });
      }
    }
  }
  const linked = spawnSync('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]);
  if (linked.status !== 0) throw new Error(`cp -al node_modules: ${linked.stderr}`);
  // npm rewrites its record of the tree; a copy of its own keeps the original's untouched.
  const record = join(dir, 'node_modules', '.package-lock.json');
  if (existsSync(record)) {
    rmSync(record);
    cpSync(join(ROOT, 'node_modules', '.package-lock.json'), record);
  }
  return dir;
}

function run(command: string, cwd: string, env: NodeJS.ProcessEnv): string {
  const result = spawnSync('bash', ['-euo', 'pipefail', '-c', command], { cwd, env, encoding: 'utf8', timeout: 240_000 });
  if (result.status !== 0) throw new Error(`${command}\nexited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

/** Starts `npm start` and resolves with its output once the server says it listens. */
function startServer(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    server = child;
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${command}: no "listening on" within 240 s:\n${output}`)), 240_000);
    const take = (chunk: Buffer) => {
      output += chunk.toString();
      if (/listening on http/.test(output)) {
        clearTimeout(timer);
        resolve(output);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited ${code} before listening:\n${output}`));
    });
  });
}

it('runs the README quick start as written: install, start, and a first message', async () => {
  const blocks = shellBlocksUnder('README.md', 'Quick start');
  const commands = blocks.join('\n');
  // What the test relies on being there: if the README stops saying it, this fails rather than passing on less.
  expect(blocks.length).toBeGreaterThanOrEqual(2);
  expect(commands).toMatch(/^npm install$/m);
  expect(commands).toMatch(/^npm start$/m);
  expect(commands).toContain(`http://${README_ADDRESS}/api/v1/messages`);

  copy = copyOfRepository();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), npm_config_audit: 'false', npm_config_fund: 'false', npm_config_update_notifier: 'false' };
  for (const name of Object.keys(env)) if (name.startsWith('TEAMCHAT_') || name === 'NATS_URL') delete env[name];

  let replies = '';
  let started = false;
  for (const block of blocks) {
    // A block runs line by line until `npm start`, which stays up; what follows it runs against it.
    const lines = block.split('\n');
    const at = lines.findIndex((l) => l.trim() === 'npm start');
    if (at >= 0) {
      for (const line of lines.slice(0, at)) if (line.trim() !== '' && !line.trim().startsWith('#')) run(line, copy, env);
      const banner = await startServer('npm start', copy, env);
      expect(banner).toContain(`http://127.0.0.1:${port}`);
      started = true;
      const rest = lines.slice(at + 1).join('\n').trim();
      if (rest) replies += run(rest.replaceAll(README_ADDRESS, `127.0.0.1:${port}`), copy, env);
    } else {
      expect(started).toBe(true);
      replies += run(block.replaceAll(README_ADDRESS, `127.0.0.1:${port}`), copy, env);
    }
  }

  // The first message's reply, as the README says it answers, and the message itself read back.
  const sent = JSON.parse(replies.trim().split('\n').pop()!) as { result: string; id: number };
  expect(sent.result).toBe('success');
  expect(sent.id).toBeGreaterThan(0);
  const base = `http://127.0.0.1:${port}/api/v1`;
  const key = ((await (await fetch(`${base}/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'member@example.com' }) })).json()) as { api_key: string }).api_key;
  const auth = `Basic ${Buffer.from(`member@example.com:${key}`).toString('base64')}`;
  const read = (await (await fetch(`${base}/messages/${sent.id}`, { headers: { authorization: auth } })).json()) as { message: { content: string; subject: string; display_recipient: string } };
  expect(read.message.subject).toBe('hello');
  expect(read.message.display_recipient).toBe('general');
  expect(read.message.content).toContain('<strong>world</strong>');
}, 600_000);
