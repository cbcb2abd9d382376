/**
 * The server as its users run it: `node apps/server/dist/main.js` in a process of its
 * own, on the scale directory's data. Its startup is timed from the spawn to its first
 * answer to an authenticated read (every service involved: the gateway, accounts for the
 * key, messaging for the messages), and its resident memory read from /proc while the
 * bench's requests run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

const SERVER_MAIN = join(__dirname, '..', '..', '..', 'server', 'dist', 'main.js');

/** A probe that hangs (a connection the server never answers) is given up and made again. */
const PROBE_TIMEOUT_MS = 5_000;

export interface ChildServer {
  api: string;
  pid: number;
  /** From the spawn to the first successful answer. */
  startupMs: number;
  /** From the spawn to the first HTTP answer of any kind (503 while the services catch up). */
  firstAnswerMs: number;
  /** Lines the server wrote (stdout and stderr), for progress lines and failures. */
  output: string[];
  /** Resident memory now, and the most it has had (VmHWM), in bytes. */
  memory(): { rss: number; peak: number };
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function statusBytes(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : NaN;
  } catch {
    return NaN;
  }
}

/**
 * Starts the server on `dataDir` and waits until `email` reads its newest message (its key
 * fetched from the development endpoint as soon as the server answers). `timeoutMs`
 * bounds a rebuild, which answers only once every read model has caught up.
 */
export async function startChild(dataDir: string, email: string, options: { logLevel?: string; timeoutMs?: number } = {}): Promise<ChildServer> {
  const port = await freePort();
  const api = `http://127.0.0.1:${port}/api/v1`;
  const output: string[] = [];
  const started = performance.now();
  const child: ChildProcess = spawn(process.execPath, [SERVER_MAIN], {
    env: { ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_MODE: 'development', PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: options.logLevel ?? 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let exited: string | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code, signal) => {
      exited = `exited (${code ?? signal})`;
      resolve();
    }),
  );
  for (const stream of [child.stdout!, child.stderr!]) {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      output.push(...lines);
    });
  }
  const stop = async () => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      await exit;
    }
  };
  const deadline = started + (options.timeoutMs ?? 60_000);
  let firstAnswerMs = NaN;
  try {
    let authorization: string | undefined;
    for (;;) {
      if (exited !== undefined) throw new Error(`the server ${exited}: ${output.slice(-20).join('\n')}`);
      if (performance.now() > deadline) throw new Error(`the server did not answer within ${options.timeoutMs ?? 60_000} ms`);
      try {
        if (!authorization) {
          const response = await fetch(`${api}/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: email }), signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
          if (Number.isNaN(firstAnswerMs)) firstAnswerMs = performance.now() - started;
          const body = (await response.json()) as { result: string; api_key: string };
          if (body.result === 'success') authorization = `Basic ${Buffer.from(`${email}:${body.api_key}`).toString('base64')}`;
        }
        if (authorization) {
          const response = await fetch(`${api}/messages?anchor=newest&num_before=1&num_after=0`, { headers: { authorization }, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
          if (response.ok) break;
        }
      } catch {
        // Not listening yet.
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } catch (err) {
    await stop();
    throw err;
  }
  const pid = child.pid!;
  return {
    api,
    pid,
    startupMs: performance.now() - started,
    firstAnswerMs,
    output,
    memory: () => ({ rss: statusBytes(pid, 'VmRSS'), peak: statusBytes(pid, 'VmHWM') }),
    stop,
  };
}
