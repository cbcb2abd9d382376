/**
 * The event-delivery line: many long-polling queues (their client is pollers.ts, a process
 * of its own) receiving a channel's messages; latency from send to receipt, every event
 * once, and the server's memory and CPU per queue and per delivery.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { endpoints } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import type { EmbeddedServer } from '@teamchat/server';
import { form, http, type Person } from './http';
import type { LatencyFigures } from './latency';
import { WireClient, wireRequest } from './wire-client';

/** Queues for the event-delivery benchmark (BENCH_QUEUES), the users they belong to, the messages sent. */
const QUEUES = Number(process.env.BENCH_QUEUES ?? 1000);
const QUEUE_USERS = 100;
export const DELIVERY_MESSAGES = 100;
const DELIVERY_WARM_UP = 10;
/** Unmeasured messages after the memory measurement's forced collection (see measureDelivery). */
const DELIVERY_SETTLE = 10;
export const DELIVERY_INTERVAL_MS = Number(process.env.BENCH_DELIVERY_INTERVAL_MS ?? 200);

/** The latency figures: milliseconds from just before the POST to the event's arrival at a poller. */
export interface DeliveryReport extends LatencyFigures {
  queues: number;
  deliveries: number;
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
export async function measureDelivery(server: EmbeddedServer, api: string, sender: Person): Promise<DeliveryReport> {
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

  // The sender runs in the server's process: through fetch, its own CPU (about a
  // millisecond a request) would be spent on the server's event loop and counted as
  // delivery latency; a bare connection costs microseconds.
  const base = new URL(api);
  const sending = await WireClient.connect(base);
  const send = async (topic: string, content: string) => {
    const headers = { authorization: sender.authorization, 'content-type': 'application/x-www-form-urlencoded' };
    const body = form({ type: 'stream', to: 'delivery', topic, content });
    const { status, body: reply } = await sending.request(wireRequest(base, 'POST', `${base.pathname}/messages`, headers, body));
    if (status !== 200) throw new Error(`POST /messages: ${status} ${reply}`);
  };
  const interval = () => new Promise((resolve) => setTimeout(resolve, DELIVERY_INTERVAL_MS));
  /** One message, then the interval: every message of the line goes out this way. */
  const sendPaced = async (topic: string, content: string) => {
    await send(topic, content);
    await interval();
  };
  // A few unmeasured messages first: the first deliveries to a thousand fresh long-polls
  // (compiling, growing buffers) say nothing of the steady state.
  for (let i = 0; i < DELIVERY_WARM_UP; i++) await sendPaced('warm-up', `warm-up ${i}`);
  // Measured here, not at READY: the pollers say READY as they send their first polls,
  // before the server holds them, and a held long-poll is most of a queue's memory. An
  // interval after the last warm-up message, every poller has received it and polls again.
  collectGarbage();
  const heapPerQueue = (process.memoryUsage().heapUsed - heapBefore) / QUEUES;
  const rssPerQueue = (process.memoryUsage().rss - rssBefore) / QUEUES;
  // The forced collection is the bench's, not the server's, and the deliveries right
  // after it were slow: with only an interval of quiet after it, the first two or three
  // measured messages were the slowest of the run (last receipts 84/76/51, 73/59/52 and
  // 75/67/51 ms, against 26-45 for most), and at a thousand receipts each they alone set
  // the p99. Under --trace-gc the main thread's scavenges after it took 9-14 ms, against
  // 4-9 ms before it. So a few more unmeasured messages go out first, at the same interval.
  await interval();
  for (let i = 0; i < DELIVERY_SETTLE; i++) await sendPaced('warm-up', `settling ${i}`);
  const cpuBefore = process.cpuUsage();
  for (let i = 0; i < DELIVERY_MESSAGES; i++) {
    const sentAt = performance.timeOrigin + performance.now();
    await sendPaced('latency', `bench-delivery ${i} at ${sentAt.toFixed(3)}`);
  }
  sending.close();
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

export function deliveryLine(delivery: DeliveryReport): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  return (
    `event delivery, ${delivery.queues} queues × ${DELIVERY_MESSAGES} messages: p50 ${ms(delivery.p50)}, p99 ${ms(delivery.p99)}, ` +
    `max ${ms(delivery.max)} from send to receipt; ${delivery.deliveries} delivered, ${delivery.missing} missing, ${delivery.duplicates} twice; ` +
    `server memory per queue: ${(delivery.heapPerQueue / 1024).toFixed(1)} KiB heap, ${(delivery.rssPerQueue / 1024).toFixed(1)} KiB RSS; ` +
    `CPU per delivery: ${delivery.serverCpuPerDelivery.toFixed(0)} µs server, ${delivery.clientCpuPerDelivery.toFixed(0)} µs pollers`
  );
}
