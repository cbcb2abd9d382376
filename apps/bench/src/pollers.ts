/**
 * The clients of the event-delivery benchmark, in a process of their own so that they do
 * not share the server's event loop: registers QUEUES queues spread over the given users,
 * long-polls each of them, and for every message event notes how long after its sending it
 * arrived (the sender writes its clock reading into the content; both processes read the
 * same wall clock, to the microsecond).
 *
 * Protocol: argv[2] is the API URL, argv[3] a JSON list of {email, api_key}, argv[4] the
 * number of queues. Prints `READY` once every queue is registered and polling; on a line
 * `DONE <n>` from stdin, waits until every queue has seen n messages (or 15 s), then prints
 * one JSON line with the latencies and any missing or duplicated event, and exits.
 */
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';

const [api, credentialsJson, queueCount] = process.argv.slice(2) as [string, string, string];
const credentials = JSON.parse(credentialsJson) as { email: string; api_key: string }[];
const QUEUES = Number(queueCount);

const now = () => performance.timeOrigin + performance.now();

/**
 * node:http with kept-alive connections, one per long-poll: a fraction of fetch's CPU per
 * request, so that the pollers, sharing the machine with the server, take as little of it
 * as they can (as autocannon does for the other benchmarks).
 */
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
const base = new URL(api);

function call(method: 'GET' | 'POST', path: string, authorization: string, body?: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization };
    if (body !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['content-length'] = Buffer.byteLength(body);
    }
    const req = request({ agent, host: base.hostname, port: base.port, method, path: `${base.pathname}${path}`, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
        } catch (err) {
          reject(err);
        }
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Queue {
  id: string;
  authorization: string;
  lastEventId: number;
  /** The bench messages seen, by their sequence number. */
  seen: Set<number>;
  duplicates: number;
}

const latencies: number[] = [];
/** The pollers' own CPU is counted from when every queue is registered. */
let cpuAtReady: NodeJS.CpuUsage | undefined;
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
let stopping = false;

async function register(authorization: string): Promise<Queue> {
  const body = (await call('POST', '/register', authorization, new URLSearchParams({ event_types: JSON.stringify(['message']) }).toString())) as {
    queue_id: string;
    last_event_id: number;
    result: string;
    msg: string;
  };
  if (body.result !== 'success') throw new Error(`register: ${body.msg}`);
  return { id: body.queue_id, authorization, lastEventId: body.last_event_id, seen: new Set(), duplicates: 0 };
}

async function poll(queue: Queue): Promise<void> {
  while (!stopping) {
    const path = `/events?queue_id=${encodeURIComponent(queue.id)}&last_event_id=${queue.lastEventId}`;
    const body = (await call('GET', path, queue.authorization)) as { result: string; msg: string; events: { id: number; type: string; message?: { content: string } }[] };
    const arrived = now();
    if (body.result !== 'success') throw new Error(`poll: ${body.msg}`);
    for (const event of body.events) {
      queue.lastEventId = Math.max(queue.lastEventId, event.id);
      const match = event.type === 'message' ? /bench-delivery (\d+) at ([\d.]+)/.exec(event.message?.content ?? '') : null;
      if (!match) continue;
      const sequence = Number(match[1]);
      if (queue.seen.has(sequence)) queue.duplicates++;
      queue.seen.add(sequence);
      latencies.push(arrived - Number(match[2]));
    }
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

async function main() {
  const queues: Queue[] = [];
  for (let i = 0; i < QUEUES; i++) {
    const { email, api_key } = credentials[i % credentials.length]!;
    queues.push(await register(`Basic ${Buffer.from(`${email}:${api_key}`).toString('base64')}`));
  }
  const polling = queues.map((queue) => poll(queue));
  for (const loop of polling) loop.catch((err) => {
    process.stderr.write(`${(err as Error).message}\n`);
    process.exit(1);
  });
  cpuAtReady = process.cpuUsage();
  process.stdout.write('READY\n');

  for await (const line of createInterface({ input: process.stdin })) {
    const done = /^DONE (\d+)$/.exec(line);
    if (!done) continue;
    const expected = Number(done[1]);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && queues.some((q) => q.seen.size < expected)) await new Promise((r) => setTimeout(r, 50));
    stopping = true;
    const sorted = latencies.sort((a, b) => a - b);
    process.stdout.write(
      `${JSON.stringify({
        deliveries: sorted.length,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        max: sorted[sorted.length - 1] ?? NaN,
        missing: queues.reduce((sum, q) => sum + (expected - q.seen.size), 0),
        duplicates: queues.reduce((sum, q) => sum + q.duplicates, 0),
        clientCpuMs: cpuMs(process.cpuUsage(cpuAtReady)),
      })}\n`,
    );
    process.exit(0);
  }
}

void main();
