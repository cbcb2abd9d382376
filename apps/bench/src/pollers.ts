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
import { connect, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { latencyFigures } from './latency';
import { replyFrame, wireRequest } from './wire-client';

const [api, credentialsJson, queueCount] = process.argv.slice(2) as [string, string, string];
const credentials = JSON.parse(credentialsJson) as { email: string; api_key: string }[];
const QUEUES = Number(queueCount);

const now = () => performance.timeOrigin + performance.now();
const base = new URL(api);

/** Registration goes through node:http (a thousand requests, once); polling does not, see `Poller`. */
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

function post(path: string, authorization: string, body: string): Promise<any> {
  return new Promise((resolve, reject) => {
    const headers = { authorization, 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) };
    const req = request({ agent, host: base.hostname, port: base.port, method: 'POST', path: `${base.pathname}${path}`, headers }, (res) => {
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
/**
 * BENCH_DELIVERY_TRACE=file: each message's first and last receipt (ms after its sending),
 * written there at the end, to set beside the server's own timings of a delivery.
 */
const TRACE_FILE = process.env.BENCH_DELIVERY_TRACE;
const receipts = new Map<number, { first: number; last: number; count: number }>();
/** The pollers' own CPU is counted from when every queue is registered. */
let cpuAtReady: NodeJS.CpuUsage | undefined;
const cpuMs = (usage: NodeJS.CpuUsage) => (usage.user + usage.system) / 1000;
let stopping = false;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function register(authorization: string): Promise<Queue> {
  const body = (await post('/register', authorization, new URLSearchParams({ event_types: JSON.stringify(['message']) }).toString())) as {
    queue_id: string;
    last_event_id: number;
    result: string;
    msg: string;
  };
  if (body.result !== 'success') throw new Error(`register: ${body.msg}`);
  return { id: body.queue_id, authorization, lastEventId: body.last_event_id, seen: new Set(), duplicates: 0 };
}

/** Pollers whose response is read whole, waiting to be handled (see Poller.read). */
let complete: Poller[] = [];
/** How many of `complete` have been handled. */
let handled = 0;
/**
 * Handled a few at a time, the event loop polling the sockets between: a thousand
 * responses arrive within milliseconds, and handling one (parsing it, writing the next
 * poll) costs tens of microseconds, so handling all that had arrived before timing the
 * next arrivals delayed their timing by up to tens of milliseconds, a lag of this one
 * process that a thousand separate clients do not have.
 */
const HANDLED_PER_TURN = 16;
function handleComplete(): void {
  const end = Math.min(complete.length, handled + HANDLED_PER_TURN);
  for (; handled < end; handled++) complete[handled]!.handle();
  if (handled < complete.length) {
    setImmediate(handleComplete);
    return;
  }
  complete = [];
  handled = 0;
}

/**
 * One queue's long-poll loop on a kept-alive connection of its own, speaking just enough
 * HTTP/1.1 (requests written whole, responses framed by Content-Length, which the gateway
 * always sends) to cost the pollers a fraction of node:http's CPU: sharing the machine
 * with the server, whatever they spend is taken from it, and a response waiting to be
 * parsed behind others would count as delivery latency.
 */
class Poller {
  private readonly socket: Socket;
  private buffered: Buffer = Buffer.alloc(0);
  /** When the first bytes of the response being read arrived: the event's receipt. */
  private arrived = 0;
  private bodyStart = 0;
  private bodyEnd = 0;

  constructor(private readonly queue: Queue) {
    this.socket = connect({ host: base.hostname, port: Number(base.port), noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (err) => fail(`poll: ${err.message}`));
    this.socket.on('close', () => {
      if (!stopping) fail('poll: the server closed a connection');
    });
    this.send();
  }

  private send(): void {
    const { queue } = this;
    const path = `${base.pathname}/events?queue_id=${encodeURIComponent(queue.id)}&last_event_id=${queue.lastEventId}`;
    this.socket.write(wireRequest(base, 'GET', path, { authorization: queue.authorization }));
  }

  private read(chunk: Buffer): void {
    if (this.buffered.length === 0) this.arrived = now();
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    let frame: ReturnType<typeof replyFrame>;
    try {
      frame = replyFrame(this.buffered);
    } catch (err) {
      fail(`poll: ${(err as Error).message}`);
    }
    if (!frame) return;
    this.bodyStart = frame.bodyStart;
    this.bodyEnd = frame.bodyEnd;
    if (this.buffered.length < this.bodyEnd) return;
    // Parsing and the next poll wait until every socket with data has been read, so that
    // each arrival is timed when its bytes come in, not after the responses read before it
    // were handled.
    complete.push(this);
    if (complete.length === 1) setImmediate(handleComplete);
  }

  /** Takes the events of the response read whole, and polls again. */
  handle(): void {
    // One request at a time on the connection: nothing can follow the body.
    const body = JSON.parse(this.buffered.toString('utf8', this.bodyStart, this.bodyEnd)) as {
      result: string;
      msg: string;
      events: { id: number; type: string; message?: { content: string } }[];
    };
    this.buffered = Buffer.alloc(0);
    if (body.result !== 'success') fail(`poll: ${body.msg}`);
    this.take(body.events);
    if (!stopping) this.send();
  }

  private take(events: { id: number; type: string; message?: { content: string } }[]): void {
    const { queue } = this;
    for (const event of events) {
      queue.lastEventId = Math.max(queue.lastEventId, event.id);
      const match = event.type === 'message' ? /bench-delivery (\d+) at ([\d.]+)/.exec(event.message?.content ?? '') : null;
      if (!match) continue;
      const sequence = Number(match[1]);
      if (queue.seen.has(sequence)) queue.duplicates++;
      queue.seen.add(sequence);
      const latency = this.arrived - Number(match[2]);
      latencies.push(latency);
      if (TRACE_FILE) {
        const seen = receipts.get(sequence);
        if (!seen) receipts.set(sequence, { first: latency, last: latency, count: 1 });
        else {
          seen.first = Math.min(seen.first, latency);
          seen.last = Math.max(seen.last, latency);
          seen.count++;
        }
      }
    }
  }

  close(): void {
    this.socket.destroy();
  }
}

async function main() {
  const queues: Queue[] = [];
  for (let i = 0; i < QUEUES; i++) {
    const { email, api_key } = credentials[i % credentials.length]!;
    queues.push(await register(`Basic ${Buffer.from(`${email}:${api_key}`).toString('base64')}`));
  }
  const pollers = queues.map((queue) => new Poller(queue));
  cpuAtReady = process.cpuUsage();
  process.stdout.write('READY\n');

  for await (const line of createInterface({ input: process.stdin })) {
    const done = /^DONE (\d+)$/.exec(line);
    if (!done) continue;
    const expected = Number(done[1]);
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline && queues.some((q) => q.seen.size < expected)) await new Promise((r) => setTimeout(r, 50));
    stopping = true;
    for (const poller of pollers) poller.close();
    if (TRACE_FILE) writeFileSync(TRACE_FILE, JSON.stringify(Object.fromEntries(receipts)));
    process.stdout.write(
      `${JSON.stringify({
        deliveries: latencies.length,
        ...latencyFigures(latencies),
        missing: queues.reduce((sum, q) => sum + (expected - q.seen.size), 0),
        duplicates: queues.reduce((sum, q) => sum + q.duplicates, 0),
        clientCpuMs: cpuMs(process.cpuUsage(cpuAtReady)),
      })}\n`,
    );
    process.exit(0);
  }
}

void main();
