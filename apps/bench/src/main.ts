/**
 * `npm run bench`: measures the embedded server against a no-op fastify route served by
 * the same process, with autocannon in a process of its own (on two cores, a load
 * generator sharing the server's event loop would halve what the server can show).
 *
 * The data set: BENCH_MESSAGES (default 100,000) messages across 20 channels and 200
 * topics, seeded through the services' bus endpoints (the same command path as
 * POST /messages, without HTTP) before the reads are measured. BENCH_SECONDS sets each
 * measured run (default 5). Each group of lines has its module; this one runs them in
 * turn and prints the report.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { endpoints } from '@teamchat/contracts';
import { callContract, createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServer } from '@teamchat/server';
import Fastify from 'fastify';
import { crowdLine, measureCrowd, type CrowdReport } from './crowd';
import { DELIVERY_INTERVAL_MS, deliveryLine, measureDelivery, type DeliveryReport } from './delivery';
import { fanOutFloorLine, measureFanOutFloor, type FanOutFloorReport } from './fan-out-floor';
import { fileLine, measureFiles } from './files';
import { measureFsync, measurePacedFsync, type FsyncReport } from './fsync';
import { http } from './http';
import { memoryLine } from './memory';
import { profiled } from './profile';
import { measureScheduledDelivery, scheduledLine, type ScheduledReport } from './scheduled';
import { measureSearchLines } from './search';
import { createChannels, seed } from './seed';
import { measureSizes } from './sizes';
import { CHANNELS, CONNECTIONS, MESSAGES, ONLY, SECONDS, TOPICS_PER_CHANNEL } from './settings';
import { settle } from './settle';
import { measureSingleClientLines, PACED_PAUSE_MS, type OneClientRow } from './single-client';
import { printOneClientTable, printTable } from './tables';
import { measure, measureServerLines, type Row } from './throughput';
import { measureWebFirstMessages, webFirstMessagesLines, type WebFirstMessagesReport } from './web-first-messages';

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
  let floor: FanOutFloorReport | undefined;
  let crowd: CrowdReport | undefined;
  let scheduled: ScheduledReport | undefined;
  let files: Awaited<ReturnType<typeof measureFiles>> | undefined;
  let fsync: FsyncReport | undefined;
  let pacedFsync: FsyncReport | undefined;
  let oneClientRows: OneClientRow[] = [];
  let web: WebFirstMessagesReport | undefined;
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
    console.log(`settled in ${(await settle() / 1000).toFixed(1)} s`);

    // First, on the data set as seeded: a person (who has read none of it) logging in to the web client.
    if (ONLY.test('web first messages')) web = await profiled('web first messages', () => measureWebFirstMessages(server.url, 'moderator@example.com', MESSAGES));

    // One person at a time: each line's latency against the machine's fsync, measured now.
    if (ONLY.test('single client') || ONLY.test('fsync')) {
      fsync = measureFsync(dataDir);
      pacedFsync = await measurePacedFsync(dataDir, PACED_PAUSE_MS, 100);
    }
    oneClientRows = await measureSingleClientLines(api, member, reader, channels);
    oneClientRows.push(...(await measureSearchLines(api, reader)));
    rows.push(...(await measureServerLines(api, member, reader, channels)));
    if (ONLY.test('crowd')) {
      crowd = await measureCrowd(server, api, member);
      record(crowd.send);
    }
    if (ONLY.test('files')) files = await profiled('files', () => measureFiles(api, member.authorization, CONNECTIONS, SECONDS));
    if (ONLY.test('event delivery')) {
      delivery = await profiled('event delivery', () => measureDelivery(server, api, member));
      // Right after it, while the machine is as it was: what a thousand bare writes cost.
      floor = await measureFanOutFloor(delivery.queues, DELIVERY_INTERVAL_MS);
    }
    if (ONLY.test('scheduled delivery')) scheduled = await profiled('scheduled delivery', () => measureScheduledDelivery(api, member));
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }

  console.log();
  printTable(rows, rows.find((row) => row.name === 'noop')?.result.requests.average ?? NaN);
  if (fsync || oneClientRows.length > 0) {
    console.log();
    printOneClientTable(oneClientRows, fsync, pacedFsync);
  }
  console.log(`\nseeding through the bus: ${seedRate.toFixed(0)} messages/s`);
  if (crowd) console.log(crowdLine(crowd));
  if (delivery) console.log(deliveryLine(delivery));
  if (floor) console.log(fanOutFloorLine(floor, delivery?.p99));
  if (scheduled) console.log(scheduledLine(scheduled));
  if (files) console.log(fileLine(files));
  if (web) {
    const noop = rows.find((row) => row.name === 'noop')?.result;
    for (const line of webFirstMessagesLines(web, noop && { p50: noop.latency.p50, rps: noop.requests.average })) console.log(line);
  }
  console.log(memoryLine(rssAfterSeeding));

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

(process.env.BENCH_SIZES ? measureSizes(Number(process.env.BENCH_SIZES)) : main()).then(
  (code) => process.exit(code),
  (err) => {
    console.error(`benchmark failed: ${(err as Error).stack ?? String(err)}`);
    process.exit(1);
  },
);
