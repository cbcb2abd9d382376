/**
 * `npm run bench:scale`: seeds a large organization (model.ts) and measures what its size
 * costs: every read a client makes, search, registration, a send to the largest channel
 * with 50 long-polling subscribers, disk, resident memory, startup and a full rebuild of
 * the read models. The figures are taken twice, once the first SCALE_CHECKPOINT messages
 * are seeded and at the full size, and printed side by side with their growth factor.
 *
 * Settings (environment):
 *   BENCH_SCALE_DIR   where the organization is kept (default: teamchat-bench-scale in the
 *                     system's temporary directory). A second run continues the seed it
 *                     finds there, and with a complete seed only measures.
 *   SCALE_USERS       users (default 10,000)      SCALE_CHANNELS  channels (default 1,000)
 *   SCALE_MESSAGES    messages (default 1,000,000)
 *   SCALE_CHECKPOINT  where the first figures are taken (default 100,000, or a tenth of
 *                     SCALE_MESSAGES when that is not more than 100,000)
 *   SCALE_SAMPLES     requests per read line (default 200)
 *   SCALE_SEED_ONLY=1 seed, measure nothing
 *   SCALE_MEASURE     which measurements to take (default all): a comma-separated list of
 *                     reads, fanout, restarts, hostile, rebuild; the others' figures stay
 *                     as an earlier run at the same size left them
 *   SCALE_RESTARTS    restarts timed (default 3)
 *
 * Seeding runs an embedded server in this process and sends through the services' bus
 * endpoints; every measurement runs the server as its own process (child.ts), so that
 * its startup, memory and rebuild are the server's alone.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServer } from '@teamchat/server';
import { startChild } from './child';
import { measureFanOut } from './fan-out';
import { measureHostileSearch } from './hostile';
import { measureRestarts } from './restart';
import { emailOf, ScaleModel, type ScaleSizes } from './model';
import { Progress } from './progress';
import { measureReads, ReadClient } from './reads';
import { details, table, type Figures } from './report';
import { ScaleSeeder } from './seed';

const count = (name: string, fallback: number) => {
  const text = process.env[name];
  const value = text === undefined || text === '' ? fallback : Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name}=${text}: expected a whole number above 0`);
  return value;
};

const DIR = process.env.BENCH_SCALE_DIR || join(tmpdir(), 'teamchat-bench-scale');
const sizes: ScaleSizes = { users: count('SCALE_USERS', 10_000), channels: count('SCALE_CHANNELS', 1_000), messages: count('SCALE_MESSAGES', 1_000_000) };
const CHECKPOINT = count('SCALE_CHECKPOINT', sizes.messages > 100_000 ? 100_000 : Math.max(1, Math.floor(sizes.messages / 10)));
const SAMPLES = count('SCALE_SAMPLES', 200);
const SEED_ONLY = process.env.SCALE_SEED_ONLY === '1';
const RESTARTS = count('SCALE_RESTARTS', 3);
const PARTS = ['reads', 'fanout', 'restarts', 'hostile', 'rebuild'] as const;
const MEASURE = new Set((process.env.SCALE_MEASURE || PARTS.join(',')).split(',').map((p) => p.trim()));
for (const part of MEASURE) if (!(PARTS as readonly string[]).includes(part)) throw new Error(`SCALE_MEASURE: ${part} is not one of ${PARTS.join(', ')}`);
const measuring = (part: (typeof PARTS)[number]) => MEASURE.has(part);
/** A rebuild at a million messages takes many minutes. */
const REBUILD_TIMEOUT_MS = 4 * 60 * 60 * 1000;

const log = (line: string) => console.log(line);
const dataDir = join(DIR, 'data');
const READER = emailOf(0);

/** Seeds up to `upTo` messages (users and channels first, if they are not there yet). */
async function seed(model: ScaleModel, progress: Progress, upTo: number): Promise<void> {
  if (progress.sentBelow >= upTo && progress.channelIds.length === sizes.channels) return;
  process.env.LOG_LEVEL = 'warn';
  const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_MODE: 'development', LOG_LEVEL: 'warn' });
  const server = await startEmbeddedServer(config, createLogger('bench-scale'), { host: '127.0.0.1', port: 0 });
  try {
    const seeder = new ScaleSeeder(server, model, progress, log);
    await seeder.setUp();
    if (progress.sentBelow > 0) log(`continuing the seed at message ${progress.sentBelow}`);
    log(`seeding messages up to ${upTo}…`);
    const { sent, ms } = await seeder.messages(upTo);
    log(`seeded ${sent} messages in ${(ms / 1000).toFixed(1)} s: ${((sent * 1000) / ms).toFixed(0)} messages/s`);
  } finally {
    await server.stop();
  }
}

function diskUse(): Figures['disk'] {
  let eventStore = 0;
  let readModels = 0;
  for (const file of readdirSync(dataDir)) {
    const size = statSync(join(dataDir, file)).size;
    if (file.startsWith('events.sqlite')) eventStore += size;
    else if (file.includes('.read-models.sqlite')) readModels += size;
  }
  return { eventStore, readModels };
}

/**
 * Measures the organization as seeded so far, the seeding rate being the average up to now.
 * What SCALE_MEASURE leaves out is taken from `before` (an earlier run at this size).
 */
async function measure(model: ScaleModel, progress: Progress, before: Figures | undefined): Promise<Figures> {
  const messages = progress.sentBelow;
  const seedRate = (messages * 1000) / progress.seedMs;
  // A first start catches the read models up with what the seed left unprojected, so
  // that the timed starts below are ordinary restarts.
  log('starting the server once to let its read models catch up…');
  await (await startChild(dataDir, READER, { timeoutMs: REBUILD_TIMEOUT_MS })).stop();
  let restarts = before?.restarts;
  if (measuring('restarts')) {
    log(`restarting the server ${RESTARTS} times: its first answer, readiness and first sends…`);
    restarts = await measureRestarts(dataDir, model, RESTARTS);
  }
  const server = await startChild(dataDir, READER);
  let rssServing = measuring('reads') ? 0 : (before?.rssServing ?? NaN);
  const sampler = setInterval(() => measuring('reads') && (rssServing = Math.max(rssServing, server.memory().rss)), 50);
  let reads = before?.reads ?? [];
  let fanOut = before?.fanOut ?? { pollers: 0, subscribers: 0, p50: NaN, max: NaN };
  let hostile = before?.hostile;
  try {
    log(`server answered ${server.startupMs.toFixed(0)} ms after its start`);
    if (measuring('reads')) {
      log('measuring reads…');
      reads = await measureReads(await ReadClient.login(server.api, READER), model, SAMPLES);
      rssServing = Math.max(rssServing, server.memory().rss);
    }
    clearInterval(sampler);
    if (measuring('fanout')) {
      log('measuring a send to the largest channel…');
      fanOut = await measureFanOut(server.api, model);
    }
    if (measuring('hostile')) {
      log('measuring reads while one user floods unindexable searches…');
      hostile = await measureHostileSearch(server.api, model, Math.min(SAMPLES, 100));
    }
  } finally {
    clearInterval(sampler);
    await server.stop();
  }
  const disk = diskUse();
  const startupMs = restarts?.ready.p50 ?? server.startupMs;
  if (!measuring('rebuild') && before) return { ...before, messages, seedRate, reads, fanOut, disk, rssServing, startupMs, restarts, hostile };
  log('rebuilding every read model from the event store…');
  for (const file of readdirSync(dataDir).filter((f) => f.includes('.read-models.sqlite'))) rmSync(join(dataDir, file));
  const rebuilt = await startChild(dataDir, READER, { logLevel: 'info', timeoutMs: REBUILD_TIMEOUT_MS });
  const rebuild = {
    ms: rebuilt.startupMs,
    firstAnswerMs: rebuilt.firstAnswerMs,
    peakRss: rebuilt.memory().peak,
    progressLines: rebuilt.output.filter((l) => l.includes('rebuild progress')).length,
  };
  await rebuilt.stop();
  log(`rebuilt in ${(rebuild.ms / 1000).toFixed(1)} s`);
  return { messages, seedRate, reads, fanOut, disk, rssServing, startupMs, restarts, hostile, rebuild };
}

async function main(): Promise<void> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const progress = Progress.open(DIR, sizes);
  const model = new ScaleModel(sizes);
  log(`scale bench in ${DIR}: ${sizes.users} users, ${sizes.channels} channels, ${sizes.messages} messages (first figures at ${CHECKPOINT})`);
  try {
    if (!progress.figuresAt(CHECKPOINT) && CHECKPOINT < sizes.messages && progress.sentBelow <= CHECKPOINT) {
      await seed(model, progress, CHECKPOINT);
      if (!SEED_ONLY) progress.addFigures(await measure(model, progress, progress.figuresAt(progress.sentBelow)));
    }
    await seed(model, progress, sizes.messages);
    if (SEED_ONLY) return;
    const full = await measure(model, progress, progress.figuresAt(progress.sentBelow));
    progress.addFigures(full);
    // The checkpoint's figures; from an earlier run at another size if this one passed it.
    const reference = progress.figuresAt(CHECKPOINT) ?? progress.figuresBelow(full.messages);
    console.log();
    for (const line of table(full, reference)) console.log(line);
    console.log();
    for (const line of details(full)) console.log(line);
    const failed = full.reads.filter((r) => r.detail.startsWith('FAILED'));
    if (failed.length > 0) throw new Error(`${failed.length} read lines failed: ${failed.map((r) => r.name).join(', ')}`);
  } finally {
    progress.close();
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(`scale bench failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
