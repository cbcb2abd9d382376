/**
 * `npm run bench`: measures the embedded server against a no-op fastify route served by
 * the same process, with autocannon in a process of its own (on two cores, a load
 * generator sharing the server's event loop would halve what the server can show).
 *
 * The data set: BENCH_MESSAGES (default 100,000) messages across 20 channels and 200
 * topics, seeded through the services' bus endpoints (the same command path as
 * POST /messages, without HTTP) before the reads are measured. BENCH_SECONDS sets each
 * measured run (default 5).
 */
import { fileLine, measureFiles } from './files';
import { execFile, spawn } from 'node:child_process';
import { closeSync, fsyncSync, mkdirSync, mkdtempSync, openSync, rmSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { Session } from 'node:inspector';
import { tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { endpoints, type Actor } from '@teamchat/contracts';
import { callContract, createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServer, type EmbeddedServer } from '@teamchat/server';
import type autocannon from 'autocannon';
import Fastify from 'fastify';
import { measureScheduledDelivery, type ScheduledReport } from './scheduled';
import type { OneClientPlan, OneClientResult } from './one-client';

const run = promisify(execFile);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 100_000);
const CONNECTIONS = 32;
const CHANNELS = 20;
const TOPICS_PER_CHANNEL = 10;
const SEED_CONCURRENCY = 64;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'juliet', 'kilo', 'lima'];

interface Row {
  name: string;
  result: autocannon.Result;
  /** CPU time the server process (every thread) spent per request answered, in µs. */
  cpuPerRequest: number;
}

interface Target {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

/** BENCH_ONLY: a regular expression; only benchmarks whose name matches run (for profiling one path). */
const ONLY = new RegExp(process.env.BENCH_ONLY ?? '');

/**
 * BENCH_PROFILE=dir: a CPU profile and an allocation profile (sampled) of the server's main
 * thread for each measured run (not the seeding), written to dir/<benchmark>.cpuprofile
 * and .heapprofile, for Chrome DevTools or any viewer of those formats.
 */
const PROFILE_DIR = process.env.BENCH_PROFILE;

async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return work();
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.start');
  await post('HeapProfiler.enable');
  // Every allocation sampled, not only what is still live at the end: garbage is the point.
  await post('HeapProfiler.startSampling', { includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  try {
    return await work();
  } finally {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    const { profile: allocations } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
    session.disconnect();
    mkdirSync(PROFILE_DIR, { recursive: true });
    const file = join(PROFILE_DIR, name.replace(/[^A-Za-z0-9]+/g, '-'));
    writeFileSync(`${file}.cpuprofile`, JSON.stringify(profile));
    writeFileSync(`${file}.heapprofile`, JSON.stringify(allocations));
  }
}

async function measure(name: string, target: Target): Promise<Row | undefined> {
  if (!ONLY.test(name)) return undefined;
  return profiled(name, () => autocannonRun(name, target));
}

async function autocannonRun(name: string, target: Target): Promise<Row> {
  const args = [require.resolve('autocannon/autocannon.js'), '--json', '-c', String(CONNECTIONS), '-d', String(SECONDS)];
  if (target.method) args.push('-m', target.method);
  for (const [key, value] of Object.entries(target.headers ?? {})) args.push('-H', `${key}=${value}`);
  if (target.body) args.push('-b', target.body);
  args.push(target.url);
  // On a shared machine throughput swings with the neighbours; the CPU time the server
  // spends per request swings much less, so it is the figure to compare changes by.
  const before = process.cpuUsage();
  const { stdout } = await run(process.execPath, args, { maxBuffer: 16 * 1024 * 1024 });
  const cpu = process.cpuUsage(before);
  const result = JSON.parse(stdout) as autocannon.Result;
  return { name, result, cpuPerRequest: (cpu.user + cpu.system) / Math.max(1, result.requests.total) };
}

/** A single-client line (see one-client.ts): one connection, one request at a time. */
interface OneClientRow {
  name: string;
  result: OneClientResult;
  /** Server CPU (every thread) per request, in µs. */
  cpuPerRequest: number;
}

const ONE_CLIENT_WARM_UP = 50;

async function measureOneClient(name: string, plan: Omit<OneClientPlan, 'seconds' | 'warmUp'>): Promise<OneClientRow | undefined> {
  if (!ONLY.test(name)) return undefined;
  return profiled(name, async () => {
    const full: OneClientPlan = { ...plan, seconds: SECONDS, warmUp: ONE_CLIENT_WARM_UP };
    const before = process.cpuUsage();
    const { stdout } = await run(process.execPath, [join(__dirname, 'one-client.js'), JSON.stringify(full)], { maxBuffer: 1024 * 1024 });
    const cpu = process.cpuUsage(before);
    const result = JSON.parse(stdout) as OneClientResult;
    // The warm-up's CPU is in the figure too; it is a small share of a run.
    return { name, result, cpuPerRequest: (cpu.user + cpu.system) / Math.max(1, result.requests + ONE_CLIENT_WARM_UP) };
  });
}

interface FsyncReport {
  p50: number;
  p99: number;
  count: number;
}

/**
 * The machine's durable-write latency, the floor of an acknowledged send: 4 KiB appended
 * to a file in the data directory (beside the event store) and fsynced, one at a time,
 * for a second. Milliseconds.
 */
function measureFsync(dir: string): FsyncReport {
  const file = join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(4096, 7);
  const durations: number[] = [];
  try {
    const deadline = performance.now() + 1000;
    for (let offset = 0; performance.now() < deadline || durations.length < 100; offset = (offset + block.length) % (4 * 1024 * 1024)) {
      const started = performance.now();
      writeSync(fd, block, 0, block.length, offset);
      fsyncSync(fd);
      durations.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    unlinkSync(file);
  }
  durations.sort((a, b) => a - b);
  return { p50: durations[Math.floor(durations.length / 2)]!, p99: durations[Math.floor(durations.length * 0.99)]!, count: durations.length };
}

function printOneClientTable(rows: OneClientRow[], fsync: FsyncReport | undefined): void {
  const header = ['single client', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'p50/fsync', 'p99/p50', 'non-2xx', 'server CPU µs/req'];
  const lines = rows.map(({ name, result, cpuPerRequest }) => [
    name,
    ((1000 * result.requests) / (SECONDS * 1000)).toFixed(0),
    result.p50.toFixed(2),
    result.p99.toFixed(2),
    result.max.toFixed(2),
    fsync ? (result.p50 / fsync.p50).toFixed(1) : '-',
    (result.p99 / result.p50).toFixed(1),
    String(result.non2xx),
    cpuPerRequest.toFixed(0),
  ]);
  if (fsync) lines.unshift(['fsync 4 KiB (data dir)', (fsync.count).toFixed(0), fsync.p50.toFixed(2), fsync.p99.toFixed(2), '', '1.0', (fsync.p99 / fsync.p50).toFixed(1), '', '']);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log([format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(format)].join('\n'));
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const narrowQuery = (narrow: unknown[]) => encodeURIComponent(JSON.stringify(narrow));

async function http(url: string, init: RequestInit = {}): Promise<Record<string, any>> {
  const response = await fetch(url, init);
  const json = (await response.json()) as Record<string, any>;
  if (!response.ok || json.result !== 'success') throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status} ${JSON.stringify(json)}`);
  return json;
}

/**
 * Channels bench-00 … bench-19, everyone subscribed. Also returns the store position of
 * the last one: messaging (on its own thread) has seen the channels once it reaches it.
 */
async function createChannels(server: EmbeddedServer, userIds: number[]): Promise<{ names: string[]; after: number }> {
  const names = Array.from({ length: CHANNELS }, (_, i) => `bench-${String(i).padStart(2, '0')}`);
  let after = 0;
  for (const name of names) {
    const { position } = await callContract(server.bus, endpoints.channels.createChannel, { params: { name, subscribers: userIds } });
    after = Math.max(after, position ?? 0);
  }
  return { names, after };
}

/** Sends `count` messages round-robin over every channel and topic, from two senders. */
async function seed(server: EmbeddedServer, senders: Actor[], { names: channels, after }: { names: string[]; after: number }, count: number): Promise<number> {
  const started = Date.now();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const channel = channels[i % CHANNELS]!;
      const topic = `topic-${Math.floor(i / CHANNELS) % TOPICS_PER_CHANNEL}`;
      const words = `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} message ${i}`;
      await callContract(
        server.bus,
        endpoints.messaging.sendMessage,
        { actor: senders[i % senders.length]!, after, params: { type: 'stream', to: channel, topic, content: words, read_by_sender: true } },
        { timeoutMs: 60_000 },
      );
    }
  };
  await Promise.all(Array.from({ length: SEED_CONCURRENCY }, worker));
  return (count / (Date.now() - started)) * 1000;
}

/** Users of the large-channel benchmarks, and how many channels they are subscribed to in one request each. */
const CROWD = 1000;
const CROWD_SUBSCRIBE_RUNS = 10;

interface CrowdReport {
  /** Milliseconds per POST /users/me/subscriptions that subscribes CROWD users to a new channel. */
  subscribeP50: number;
  subscribeMax: number;
  /** Server CPU per subscription made, in µs. */
  subscribeCpuPerSubscriber: number;
}

/** Creates CROWD members through the bus (no HTTP: the figures are of what follows). */
async function createCrowd(server: EmbeddedServer): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < CROWD; i++) {
    const { value } = await callContract(server.bus, endpoints.accounts.createUser, { params: { email: `crowd-${i}@example.com`, full_name: `Crowd ${i}`, role: 400 } });
    ids.push(value.user_id);
  }
  return ids;
}

/**
 * Subscribing CROWD users to a channel in one request (creating the channel, principals
 * by id), CROWD_SUBSCRIBE_RUNS times, one request at a time: the bulk path of an
 * administrator adding a department to a channel.
 */
async function measureCrowdSubscribe(api: string, actor: { authorization: string }, crowd: number[]): Promise<CrowdReport> {
  const durations: number[] = [];
  const before = process.cpuUsage();
  for (let i = 0; i < CROWD_SUBSCRIBE_RUNS; i++) {
    const started = performance.now();
    const reply = await http(`${api}/users/me/subscriptions`, {
      method: 'POST',
      headers: { authorization: actor.authorization },
      body: new URLSearchParams({ subscriptions: JSON.stringify([{ name: `crowd-${i}` }]), principals: JSON.stringify(crowd) }),
    });
    durations.push(performance.now() - started);
    const subscribed = Object.keys(reply.subscribed as Record<string, unknown>).length;
    if (subscribed < crowd.length) throw new Error(`crowd subscribe: ${subscribed} of ${crowd.length} subscribed`);
  }
  const cpu = process.cpuUsage(before);
  durations.sort((a, b) => a - b);
  return {
    subscribeP50: durations[Math.floor(durations.length / 2)]!,
    subscribeMax: durations[durations.length - 1]!,
    subscribeCpuPerSubscriber: (cpu.user + cpu.system) / (CROWD_SUBSCRIBE_RUNS * crowd.length),
  };
}

/** Queues for the event-delivery benchmark (BENCH_QUEUES), the users they belong to, the messages sent. */
const QUEUES = Number(process.env.BENCH_QUEUES ?? 1000);
const QUEUE_USERS = 100;
const DELIVERY_MESSAGES = 100;
const DELIVERY_WARM_UP = 10;
const DELIVERY_INTERVAL_MS = Number(process.env.BENCH_DELIVERY_INTERVAL_MS ?? 200);

interface DeliveryReport {
  queues: number;
  deliveries: number;
  p50: number;
  p99: number;
  max: number;
  missing: number;
  duplicates: number;
  /** Main-thread heap and process RSS added by registering the queues (and holding their long-polls), per queue. */
  heapPerQueue: number;
  rssPerQueue: number;
  /** CPU time per delivered event while the messages went out, in µs: the server's (every thread), the pollers'. */
  serverCpuPerDelivery: number;
  clientCpuPerDelivery: number;
}

/** A full collection, so that heap figures before and after compare what is live. */
function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}

/**
 * Event delivery: QUEUES queues (of QUEUE_USERS users, all subscribed to one channel)
 * long-poll from a process of their own while a member sends DELIVERY_MESSAGES messages
 * to that channel, one every DELIVERY_INTERVAL_MS; every queue must receive every message
 * once. Reports the latency from just before the POST to the event's arrival at a poller.
 */
async function measureDelivery(server: EmbeddedServer, api: string, sender: { authorization: string; user_id: number }): Promise<DeliveryReport> {
  const users: { email: string; api_key: string; user_id: number }[] = [];
  for (let i = 0; i < QUEUE_USERS; i++) {
    const email = `listener-${i}@example.com`;
    const { value } = await callContract(server.bus, endpoints.accounts.createUser, { params: { email, full_name: `Listener ${i}`, role: 400 } });
    const { api_key } = await http(`${api}/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: email }) });
    users.push({ email, api_key, user_id: value.user_id });
  }
  const { position } = await callContract(server.bus, endpoints.channels.createChannel, {
    params: { name: 'delivery', subscribers: [sender.user_id, ...users.map((u) => u.user_id)] },
  });
  // The sender's first message waits for messaging to know the channel: the channel was
  // created on the bus, so the gateway knows no write of the sender's to wait for, and on
  // a loaded machine messaging may not have applied it yet (tried again for up to 10 s).
  for (let attempt = 0; ; attempt++) {
    try {
      await http(`${api}/messages`, {
        method: 'POST',
        headers: { authorization: sender.authorization },
        body: new URLSearchParams({ type: 'stream', to: 'delivery', topic: 'warm-up', content: `after ${position}` }),
      });
      break;
    } catch (err) {
      if (attempt >= 100 || !/STREAM_DOES_NOT_EXIST/.test((err as Error).message)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  collectGarbage();
  const heapBefore = process.memoryUsage().heapUsed;
  const rssBefore = process.memoryUsage().rss;
  const pollers = spawn(process.execPath, [join(__dirname, 'pollers.js'), api, JSON.stringify(users), String(QUEUES)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: pollers.stdout! });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      pollers.once('exit', (code) => reject(new Error(`the pollers exited (${code})`)));
    });
  if ((await nextLine()) !== 'READY') throw new Error('the pollers did not start');
  collectGarbage();
  const heapPerQueue = (process.memoryUsage().heapUsed - heapBefore) / QUEUES;
  const rssPerQueue = (process.memoryUsage().rss - rssBefore) / QUEUES;

  // A few unmeasured messages first: the first deliveries to a thousand fresh long-polls
  // (compiling, growing buffers) say nothing of the steady state.
  for (let i = 0; i < DELIVERY_WARM_UP; i++) {
    await http(`${api}/messages`, {
      method: 'POST',
      headers: { authorization: sender.authorization },
      body: new URLSearchParams({ type: 'stream', to: 'delivery', topic: 'warm-up', content: `warm-up ${i}` }),
    });
    await new Promise((resolve) => setTimeout(resolve, DELIVERY_INTERVAL_MS));
  }
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < DELIVERY_MESSAGES; i++) {
    const sentAt = performance.timeOrigin + performance.now();
    await http(`${api}/messages`, {
      method: 'POST',
      headers: { authorization: sender.authorization },
      body: new URLSearchParams({ type: 'stream', to: 'delivery', topic: 'latency', content: `bench-delivery ${i} at ${sentAt.toFixed(3)}` }),
    });
    await new Promise((resolve) => setTimeout(resolve, DELIVERY_INTERVAL_MS));
  }
  const report = nextLine();
  pollers.stdin!.write(`DONE ${DELIVERY_MESSAGES}\n`);
  const { clientCpuMs, ...result } = JSON.parse(await report) as Omit<DeliveryReport, 'queues' | 'heapPerQueue' | 'rssPerQueue' | 'serverCpuPerDelivery' | 'clientCpuPerDelivery'> & {
    clientCpuMs: number;
  };
  const cpu = process.cpuUsage(cpuBefore);
  const perDelivery = (micros: number) => micros / Math.max(1, result.deliveries);
  return {
    queues: QUEUES,
    ...result,
    heapPerQueue,
    rssPerQueue,
    serverCpuPerDelivery: perDelivery(cpu.user + cpu.system),
    clientCpuPerDelivery: perDelivery(clientCpuMs * 1000),
  };
}

function printTable(rows: Row[], ceiling: number): void {
  const header = ['benchmark', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', '% of noop', 'server CPU µs/req'];
  const lines = rows.map(({ name, result, cpuPerRequest }) => [
    name,
    result.requests.average.toFixed(0),
    String(result.latency.p50),
    String(result.latency.p99),
    String(result.non2xx),
    String(result.errors),
    `${((100 * result.requests.average) / ceiling).toFixed(1)}%`,
    cpuPerRequest.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log([format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(format)].join('\n'));
}

async function main(): Promise<number> {
  console.log(`${CONNECTIONS} connections, ${SECONDS} s per run, ${MESSAGES} messages in ${CHANNELS} channels × ${TOPICS_PER_CHANNEL} topics`);
  const rows: Row[] = [];
  const record = (row: Row | undefined) => {
    if (row) rows.push(row);
  };

  // The ceiling, closed before the server starts so the two never compete for the CPU.
  const noop = Fastify();
  noop.get('/noop', async () => ({}));
  const noopUrl = await noop.listen({ host: '127.0.0.1', port: 0 });
  try {
    record(await measure('noop', { url: `${noopUrl}/noop` }));
  } finally {
    await noop.close();
  }

  const dataDir = mkdtempSync(join(tmpdir(), 'teamchat-bench-'));
  process.env.LOG_LEVEL = 'warn'; // read by createLogger; per-request logs would dominate the figures
  const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_MODE: 'development', LOG_LEVEL: 'warn' });
  const server = await startEmbeddedServer(config, createLogger('bench'), { host: '127.0.0.1', port: 0 });
  let seedRate = 0;
  let rssAfterSeeding = 0;
  let delivery: DeliveryReport | undefined;
  let crowdReport: CrowdReport | undefined;
  let scheduled: ScheduledReport | undefined;
  let files: Awaited<ReturnType<typeof measureFiles>> | undefined;
  let fsync: FsyncReport | undefined;
  const oneClientRows: OneClientRow[] = [];
  try {
    const api = `${server.url}/api/v1`;
    const login = async (email: string) => {
      const { api_key, user_id } = await http(`${api}/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: email }) });
      const { value } = await callContract(server.bus, endpoints.accounts.authenticate, { params: { email, api_key, client: 'website' } });
      return { authorization: `Basic ${Buffer.from(`${email}:${api_key}`).toString('base64')}`, user_id: user_id as number, actor: value.actor };
    };
    const people = await Promise.all(['owner', 'admin', 'moderator', 'member', 'member2', 'guest'].map((n) => login(`${n}@example.com`)));
    const member = people[3]!;
    const reader = people[4]!;
    const created = await createChannels(server, people.map((p) => p.user_id));
    const channels = created.names;
    process.stdout.write(`seeding ${MESSAGES} messages… `);
    seedRate = await seed(server, [people[0]!.actor, member.actor], created, MESSAGES);
    rssAfterSeeding = process.memoryUsage().rss;
    console.log(`${seedRate.toFixed(0)} messages/s`);

    // One person at a time: each line's latency against the machine's fsync, measured now.
    if (ONLY.test('single client') || ONLY.test('fsync')) fsync = measureFsync(dataDir);
    const path = (url: string) => new URL(url).pathname + new URL(url).search;
    const formHeaders = (who: { authorization: string }) => ({ authorization: who.authorization, 'content-type': 'application/x-www-form-urlencoded' });
    const single = (name: string) => `${name} (single client)`;
    const recordOne = (row: OneClientRow | undefined) => {
      if (row) oneClientRows.push(row);
    };
    recordOne(
      await measureOneClient(single('POST /messages'), {
        url: api,
        requests: [{ method: 'POST', path: path(`${api}/messages`), headers: formHeaders(member), body: form({ type: 'stream', to: 'general', topic: 'single', content: 'One message with **some** markdown.' }) }],
      }),
    );
    recordOne(
      await measureOneClient(single('POST /messages direct'), {
        url: api,
        requests: [{ method: 'POST', path: path(`${api}/messages`), headers: formHeaders(member), body: form({ type: 'direct', to: JSON.stringify([reader.user_id]), content: 'A direct message.' }) }],
      }),
    );
    if (ONLY.test(single('PATCH /messages')) || ONLY.test(single('POST /messages/flags'))) {
      const { id } = await http(`${api}/messages`, { method: 'POST', headers: formHeaders(member), body: form({ type: 'stream', to: 'general', topic: 'edited', content: 'to be edited' }) });
      // Two contents in turn: every request is a real edit.
      recordOne(
        await measureOneClient(single('PATCH /messages'), {
          url: api,
          requests: ['first', 'second'].map((word) => ({ method: 'PATCH', path: path(`${api}/messages/${id}`), headers: formHeaders(member), body: form({ content: `The ${word} version.` }) })),
        }),
      );
      // Star, unstar: every request changes a flag.
      recordOne(
        await measureOneClient(single('POST /messages/flags'), {
          url: api,
          requests: ['add', 'remove'].map((op) => ({ method: 'POST', path: path(`${api}/messages/flags`), headers: formHeaders(reader), body: form({ messages: JSON.stringify([id]), op, flag: 'starred' }) })),
        }),
      );
    }
    {
      const narrow = [{ operator: 'channel', operand: channels[3] }, { operator: 'topic', operand: 'topic-4' }];
      recordOne(
        await measureOneClient(single('GET channel+topic (100)'), {
          url: api,
          requests: [{ method: 'GET', path: path(`${api}/messages?anchor=newest&num_before=100&num_after=0&narrow=${narrowQuery(narrow)}`), headers: { authorization: reader.authorization } }],
        }),
      );
    }

    // The fixed cost of any API call: HTTP, authentication, one bus round trip, a trivial handler.
    record(await measure('GET /users/me', { url: `${api}/users/me`, headers: { authorization: member.authorization } }));
    record(
      await measure('POST /messages', {
        url: `${api}/messages`,
        method: 'POST',
        headers: { authorization: member.authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ type: 'stream', to: 'general', topic: 'bench', content: 'Benchmark message with **some** markdown.' }),
      }),
    );

    const reads: [string, unknown[], string][] = [
      ['GET channel+topic (100)', [{ operator: 'channel', operand: channels[3] }, { operator: 'topic', operand: 'topic-4' }], 'newest'],
      ['GET search (100)', [{ operator: 'channel', operand: channels[5] }, { operator: 'search', operand: 'delta' }], 'newest'],
      ['GET first_unread (100)', [{ operator: 'channel', operand: channels[7] }], 'first_unread'],
    ];
    for (const [name, narrow, anchor] of reads) {
      if (!ONLY.test(name)) continue;
      // newest: the 100 latest; first_unread: the anchor and the 99 after it (the reader
      // has read nothing, so that is where a client opening the channel starts).
      const [before, after] = anchor === 'newest' ? [100, 0] : [0, 99];
      const url = `${api}/messages?anchor=${anchor}&num_before=${before}&num_after=${after}&narrow=${narrowQuery(narrow)}`;
      const check = await http(url, { headers: { authorization: reader.authorization } });
      if (check.messages.length < 100) throw new Error(`${name}: expected 100 messages, got ${check.messages.length}`);
      record(await measure(name, { url, headers: { authorization: reader.authorization } }));
    }
    if (ONLY.test('crowd')) {
      const crowd = await createCrowd(server);
      crowdReport = await profiled('crowd subscribe', () => measureCrowdSubscribe(api, member, crowd));
      // crowd-0 now has CROWD subscribers (and the member sending).
      const row = await measure('POST /messages (crowd)', {
        url: `${api}/messages`,
        method: 'POST',
        headers: { authorization: member.authorization, 'content-type': 'application/x-www-form-urlencoded' },
        body: form({ type: 'stream', to: 'crowd-0', topic: 'bench', content: 'A message to a thousand people.' }),
      });
      record(row);
    }
    if (ONLY.test('files')) files = await profiled('files', () => measureFiles(api, member.authorization, CONNECTIONS, SECONDS));
    if (ONLY.test('event delivery')) delivery = await profiled('event delivery', () => measureDelivery(server, api, member));
    if (ONLY.test('scheduled delivery')) scheduled = await profiled('scheduled delivery', () => measureScheduledDelivery(api, member));
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  console.log();
  printTable(rows, rows.find((row) => row.name === 'noop')?.result.requests.average ?? NaN);
  if (fsync || oneClientRows.length > 0) {
    console.log();
    printOneClientTable(oneClientRows, fsync);
  }
  console.log(`\nseeding through the bus: ${seedRate.toFixed(0)} messages/s`);
  if (crowdReport) {
    const crowdRow = rows.find((row) => row.name === 'POST /messages (crowd)');
    console.log(
      `subscribing ${CROWD} users to a new channel in one request: p50 ${crowdReport.subscribeP50.toFixed(0)} ms, max ${crowdReport.subscribeMax.toFixed(0)} ms ` +
        `(${CROWD_SUBSCRIBE_RUNS} requests), server CPU ${crowdReport.subscribeCpuPerSubscriber.toFixed(1)} µs per subscription` +
        (crowdRow ? `; sending to a channel of ${CROWD + 1} subscribers: ${crowdRow.result.requests.average.toFixed(0)} messages/s, ${(crowdRow.cpuPerRequest / (CROWD + 1)).toFixed(2)} µs of server CPU per recipient` : ''),
    );
  }
  if (delivery) {
    const ms = (value: number) => `${value.toFixed(1)} ms`;
    console.log(
      `event delivery, ${delivery.queues} queues × ${DELIVERY_MESSAGES} messages: p50 ${ms(delivery.p50)}, p99 ${ms(delivery.p99)}, ` +
        `max ${ms(delivery.max)} from send to receipt; ${delivery.deliveries} delivered, ${delivery.missing} missing, ${delivery.duplicates} twice; ` +
        `server memory per queue: ${(delivery.heapPerQueue / 1024).toFixed(1)} KiB heap, ${(delivery.rssPerQueue / 1024).toFixed(1)} KiB RSS; ` +
        `CPU per delivery: ${delivery.serverCpuPerDelivery.toFixed(0)} µs server, ${delivery.clientCpuPerDelivery.toFixed(0)} µs pollers`,
    );
  }
  if (scheduled) {
    console.log(
      `scheduled delivery, ${scheduled.count} messages scheduled for the same second (scheduling took ${(scheduled.schedulingMs / 1000).toFixed(1)} s): ` +
        `lateness from the scheduled second to the message's event p50 ${scheduled.p50.toFixed(0)} ms, p99 ${scheduled.p99.toFixed(0)} ms, max ${scheduled.max.toFixed(0)} ms; ` +
        `${scheduled.missing} missing, ${scheduled.duplicates} twice`,
    );
  }
  if (files) console.log(fileLine(files));
  // The server shares this process: its resident memory, read-model caches included.
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
  console.log(`server process memory (RSS): ${mib(rssAfterSeeding)} after seeding, ${mib(process.memoryUsage().rss)} at the end`);
  const failed = rows.filter(({ result }) => result.non2xx > 0 || result.errors > 0);
  for (const { name, result } of failed) console.error(`FAIL ${name}: ${result.non2xx} non-2xx responses, ${result.errors} errors`);
  const scheduledFailed = scheduled !== undefined && (scheduled.missing > 0 || scheduled.duplicates > 0);
  if (scheduledFailed) console.error(`FAIL scheduled delivery: ${scheduled!.missing} missing, ${scheduled!.duplicates} twice`);
  const filesFailed = files !== undefined && files.uploads.failures + files.downloads.failures > 0;
  if (filesFailed) console.error(`FAIL files: ${files!.uploads.failures} uploads and ${files!.downloads.failures} downloads failed`);
  const failedOne = oneClientRows.filter(({ result }) => result.non2xx > 0);
  for (const { name, result } of failedOne) console.error(`FAIL ${name}: ${result.non2xx} non-2xx responses (first: ${result.firstRefusal})`);
  const deliveryFailed = delivery !== undefined && (delivery.missing > 0 || delivery.duplicates > 0);
  if (deliveryFailed) console.error(`FAIL event delivery: ${delivery!.missing} missing, ${delivery!.duplicates} duplicated`);
  return failed.length || failedOne.length || deliveryFailed || scheduledFailed || filesFailed ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`benchmark failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
