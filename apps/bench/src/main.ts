/**
 * `npm run bench`: measures the embedded server against a no-op fastify route served
 * by the same process, with autocannon in a process of its own. The no-op figure is the ceiling for this machine, Node version and autocannon
 * settings, so the other rows are reported as a share of it rather than as absolute numbers.
 * BENCH_SECONDS sets the length of each measured run (default 5).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MAX_MESSAGES_PER_FETCH } from '@teamchat/contracts';
import { createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServer } from '@teamchat/server';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type autocannon from 'autocannon';
import Fastify from 'fastify';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = 32;
const MIN_MESSAGES = 10_000;
const READ_TOPIC = 'bench-read';
// Several topics, so the read narrow selects a slice of the channel rather than all of it.
const SEED_TOPICS = [READ_TOPIC, 'bench-a', 'bench-b', 'bench-c'];
// Well under MAX_MESSAGES_PER_FETCH: a full page of messages exceeds the bus's 1 MiB payload limit.
const COUNT_PAGE = MAX_MESSAGES_PER_FETCH / 5;
const READ_NARROW = JSON.stringify([
  { operator: 'channel', operand: 'general' },
  { operator: 'topic', operand: READ_TOPIC },
]);

interface Row {
  name: string;
  result: autocannon.Result;
}

interface Target {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Runs autocannon in its own process: on two cores, a load generator sharing the
 * server's event loop would halve what the server can show.
 */
async function measure(name: string, target: Target): Promise<Row> {
  const args = [require.resolve('autocannon/autocannon.js'), '--json', '-c', String(CONNECTIONS), '-d', String(SECONDS)];
  if (target.method) args.push('-m', target.method);
  for (const [key, value] of Object.entries(target.headers ?? {})) args.push('-H', `${key}=${value}`);
  if (target.body) args.push('-b', target.body);
  args.push(target.url);
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  return { name, result: JSON.parse(stdout) as autocannon.Result };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

/** A small client for the setup steps; any non-success reply aborts the benchmark. */
function client(api: string, authorization?: string) {
  return async (method: 'GET' | 'POST', path: string, body?: string): Promise<Record<string, any>> => {
    const response = await fetch(api + path, {
      method,
      headers: {
        ...(authorization ? { authorization } : {}),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body,
    });
    const json = (await response.json()) as Record<string, any>;
    if (!response.ok || json.result !== 'success') throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
}

type Call = ReturnType<typeof client>;

/** Counts the messages of #general through the API, so the figure is what the server really stored. */
async function countGeneral(call: Call): Promise<number> {
  const narrow = encodeURIComponent(JSON.stringify([{ operator: 'channel', operand: 'general' }]));
  let anchor = 'newest';
  let total = 0;
  for (;;) {
    const page = await call(
      'GET',
      `/messages?anchor=${anchor}&include_anchor=false&num_before=${COUNT_PAGE}&num_after=0&apply_markdown=false&narrow=${narrow}`,
    );
    total += page.messages.length;
    if (page.found_oldest || page.messages.length === 0) return total;
    anchor = String(page.messages[0].id);
  }
}

/** Sends `count` messages round-robin over SEED_TOPICS, CONNECTIONS at a time. */
async function seed(call: Call, count: number): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const topic = SEED_TOPICS[i % SEED_TOPICS.length]!;
      await call('POST', '/messages', form({ type: 'stream', to: 'general', topic, content: `seed message ${i}` }));
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
}

function printTable(rows: Row[], ceiling: number): void {
  const header = ['benchmark', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', '% of noop'];
  const lines = rows.map(({ name, result }) => [
    name,
    result.requests.average.toFixed(0),
    String(result.latency.p50),
    String(result.latency.p99),
    String(result.non2xx),
    String(result.errors),
    `${((100 * result.requests.average) / ceiling).toFixed(1)}%`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log([format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(format)].join('\n'));
}

async function main(): Promise<number> {
  console.log(`${CONNECTIONS} connections, ${SECONDS} s per run`);
  const rows: Row[] = [];

  // 1. The ceiling. Closed before the server starts so the two never compete for the CPU.
  const noop = Fastify();
  noop.get('/noop', async () => ({}));
  const noopUrl = await noop.listen({ host: '127.0.0.1', port: 0 });
  try {
    rows.push(await measure('noop', { url: `${noopUrl}/noop` }));
  } finally {
    await noop.close();
  }

  // 2. A fresh development server, so every run starts from the same seeded organization.
  const dataDir = mkdtempSync(join(tmpdir(), 'teamchat-bench-'));
  process.env.LOG_LEVEL = 'warn'; // read by createLogger; per-request logs would dominate the figures
  const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_MODE: 'development', LOG_LEVEL: 'warn' });
  const server = await startEmbeddedServer(config, createLogger('bench'), { host: '127.0.0.1', port: 0 });
  let stored: number;
  try {
    const api = `${server.url}/api/v1`;
    const email = 'member@example.com';
    const { api_key } = await client(api)('POST', '/dev_fetch_api_key', form({ username: email }));
    const authorization = `Basic ${Buffer.from(`${email}:${api_key}`).toString('base64')}`;
    const call = client(api, authorization);

    // 3. Writes.
    rows.push(
      await measure('POST /messages', {
        url: `${api}/messages`,
        method: 'POST',
        headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ type: 'stream', to: 'general', topic: 'bench', content: 'Benchmark message with **some** markdown.' }),
      }),
    );

    // 4. Reads, against a channel large enough that an index miss would show. The topic
    // always gets at least 100 messages, whatever the write run already stored.
    const existing = await countGeneral(call);
    await seed(call, Math.max(MIN_MESSAGES - existing, 100 * SEED_TOPICS.length));
    const readPath = `/messages?anchor=newest&num_before=100&num_after=0&narrow=${encodeURIComponent(READ_NARROW)}`;
    const check = await call('GET', readPath);
    if (check.messages.length !== 100) throw new Error(`expected 100 messages in ${READ_TOPIC}, got ${check.messages.length}`);
    rows.push(await measure('GET /messages narrow', { url: api + readPath, headers: { authorization } }));
    stored = await countGeneral(call);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  // 5. Report.
  console.log();
  printTable(rows, rows[0]!.result.requests.average);
  console.log(`\nstored messages in #general: ${stored}`);
  const failed = rows.filter(({ result }) => result.non2xx > 0 || result.errors > 0);
  for (const { name, result } of failed) console.error(`FAIL ${name}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  return failed.length ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`benchmark failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
