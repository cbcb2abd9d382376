/**
 * Issue 43 item 3: a rebuild commits in bounded batches, each with its checkpoint, so
 * one killed midway (SIGKILL of the server process) resumes where it stopped at the next
 * start; and while the services catch up the server already answers: GET /health says
 * it is starting, GET /health/ready and the API answer 503 in the error envelope with a
 * Retry-After. On a generated store (a few thousand messages), with small batches and
 * frequent progress lines (the catch-up settings) so that the catch-up is slow enough to
 * be caught in the middle.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, startEmbedded } from './harness';
import { dropReadModels, scratchDataDirs } from './suite-kit';

const MAIN = join(__dirname, '..', '..', '..', 'apps/server/dist/main.js');
const MESSAGES = 3000;
const TOPIC = 'resume';
/** The projector that writes for every message: the longest catch-up. */
const MESSAGING = 'messaging-6';

const newDataDir = scratchDataDirs();
let dataDir: string;
let member: Client;
const children: ChildProcess[] = [];
afterAll(() => children.forEach((child) => child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));

interface LogLine {
  msg?: string;
  projector?: string;
  from?: number;
  head?: number;
  position?: number;
}

/** The embedded server as `npm start` runs it, its log lines parsed as they come. */
function startProcess() {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      TEAMCHAT_DATA_DIR: dataDir,
      PORT: '0',
      HOST: '127.0.0.1',
      TEAMCHAT_HEARTBEAT_SECONDS: '2',
      LOG_LEVEL: 'info',
      TEAMCHAT_CATCH_UP_BATCH: '10',
      TEAMCHAT_CATCH_UP_REPORT_SECONDS: '0.05',
      TEAMCHAT_CATCH_UP_REPORT_MIN_FACTS: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const logs: LogLine[] = [];
  const text: string[] = [];
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    const lines = (rest + chunk.toString()).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (line.startsWith('{')) logs.push(JSON.parse(line) as LogLine);
      else text.push(line);
    }
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  /** Resolves with the first value `find` gives, looking again as output arrives. */
  const until = <T,>(what: string, find: () => T | undefined, timeoutMs = 120_000): Promise<T> =>
    new Promise((resolve, reject) => {
      const started = Date.now();
      const look = setInterval(() => {
        const found = find();
        if (found !== undefined) {
          clearInterval(look);
          resolve(found);
        } else if (child.exitCode !== null || child.signalCode !== null || Date.now() - started > timeoutMs) {
          clearInterval(look);
          reject(new Error(`no ${what}; stderr: ${stderr}\nstdout: ${text.join('\n')}`));
        }
      }, 5);
    });
  const projectorLines = (name: string) => logs.filter((line) => line.projector === name);
  return {
    child,
    logs,
    until,
    projectorLines,
    /** The address, once the listener is up (before the services are ready). */
    listening: () => until('listening line', () => text.map((line) => /^Listening on (\S+)/.exec(line)?.[1]).find(Boolean)),
    ready: () => until('ready banner', () => text.find((line) => line.startsWith('Team chat server'))),
    kill: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

beforeAll(async () => {
  dataDir = newDataDir();
  const seeding = await startEmbedded(dataDir);
  member = await Client.login(seeding.api, 'member@example.com');
  for (let i = 0; i < MESSAGES; i += 50) {
    await Promise.all(Array.from({ length: 50 }, (_, j) => member.post('/messages', { type: 'stream', to: 'general', topic: TOPIC, content: `message ${i + j}` })));
  }
  await seeding.stop();
  dropReadModels(dataDir);
}, 300_000);

describe('a rebuild killed midway', () => {
  it('answers 503 while catching up, and resumes where it stopped after a SIGKILL', async () => {
    const first = startProcess();
    const url = await first.listening();

    // The server answers while its services catch up.
    const health = await fetch(`${url}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ result: 'success', status: 'starting', services: expect.objectContaining({ messaging: false }) });
    const ready = await fetch(`${url}/health/ready`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    expect(await ready.json()).toMatchObject({ result: 'error', code: 'SERVICE_UNAVAILABLE', msg: expect.stringMatching(/starting: .*messaging.* catching up/) });
    const api = new Client(`${url}/api/v1`, member.email, member.apiKey);
    const read = await api.request('GET', '/messages', { anchor: 'newest', num_before: 10, num_after: 0 });
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toBe('5');
    expect(read.body).toMatchObject({ result: 'error', code: 'SERVICE_UNAVAILABLE', msg: expect.stringMatching(/The server is starting: .*catching up with the stored history/) });

    // Killed once the messaging rebuild is a quarter through (its progress lines say where)
    // and has committed a checkpoint (read from its read-model file, as another process may):
    // a fast machine reaches the quarter before the first group commit (100 ms).
    const begun = await first.until('rebuild start', () => first.projectorLines(MESSAGING).find((line) => line.from !== undefined));
    expect(begun.from).toBe(0);
    const head = begun.head!;
    const reached = await first.until('a quarter of the rebuild', () =>
      first.projectorLines(MESSAGING).find((line) => line.position !== undefined && line.position >= head / 4 && line.position < head),
    );
    const committed = await first.until('a committed checkpoint', () => {
      const position = committedCheckpoint();
      return position > 0 ? position : undefined;
    });
    await first.kill();
    expect(committed).toBeLessThan(head);
    // Progress lines are printed between commits, so the last one can trail the committed
    // checkpoint (a CI run reported 870 while 950 was committed); what was applied is at least both.
    const applied = Math.max(committed, ...first.projectorLines(MESSAGING).map((line) => line.position ?? 0));

    const second = startProcess();
    const resumed = await second.until('catch-up start', () => second.projectorLines(MESSAGING).find((line) => line.from !== undefined));
    await second.ready();
    const from = resumed.from!;
    const reRead = Math.max(0, applied - from);
    console.log(
      `${MESSAGING}: rebuild of ${head} facts killed past ${reached.position} (applied at least ${applied}, committed ${committed}); ` +
        `the next start resumed from ${from}, reading ${resumed.head! - from} facts, ${reRead} of them read before the kill`,
    );
    // Only what was applied but not yet committed is read again: the next start resumes at
    // or past the checkpoint committed before the kill (it may be further on: the group
    // commit can land between the read of the checkpoint and the kill). How far the rebuild
    // got by then depends on the machine: the read models commit within 100 ms, and a fast
    // one applied 930 of 3,020 facts in that window, past the quarter this once asked for.
    expect(from).toBeGreaterThanOrEqual(committed);
    expect(from).toBeLessThan(head);
    expect(resumed.head! - from).toBeLessThan(head);

    // Once ready, everything is there exactly once.
    const url2 = await second.listening();
    expect((await fetch(`${url2}/health/ready`)).status).toBe(200);
    const again = new Client(`${url2}/api/v1`, member.email, member.apiKey);
    const { body } = await again.get('/messages', { anchor: 'newest', num_before: MESSAGES + 10, num_after: 0, narrow: [{ operator: 'topic', operand: TOPIC }] });
    expect(body.messages.map((m: { content: string }) => m.content.replace(/<[^>]+>/g, ''))).toEqual(Array.from({ length: MESSAGES }, (_, i) => `message ${i}`).sort(byNumber));
    await second.stop();
  }, 300_000);
});

/** The messaging projector's checkpoint as committed in its read-model file (0 before the first commit). */
function committedCheckpoint(): number {
  const file = join(dataDir, 'messaging.read-models.sqlite');
  let db: Database.Database | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
    const row = db.prepare('SELECT position FROM _checkpoints WHERE projector = ?').get(MESSAGING) as { position: number } | undefined;
    return row?.position ?? 0;
  } catch {
    return 0; // not created yet, or its schema not yet committed
  } finally {
    db?.close();
  }
}

const byNumber = (a: string, b: string) => Number(a.split(' ')[1]) - Number(b.split(' ')[1]);
