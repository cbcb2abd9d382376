/**
 * The single-client benchmark lines: one connection, one request at a time, as a person
 * sending one message after another. autocannon's latency histogram counts whole
 * milliseconds, too coarse for requests that take about one, so this process measures
 * each request itself, to the microsecond, from writing its first byte to reading its
 * last, on a kept-alive socket speaking just enough HTTP/1.1 (responses framed by
 * Content-Length, which the gateway always sends).
 *
 * Protocol: argv[2] is a JSON `OneClientPlan`. The requests are sent in turn, round and
 * round (so that a write can alternate, e.g. star then unstar), for `seconds`, after
 * `warmUp` unmeasured ones. Prints one JSON line (`OneClientResult`) and exits.
 */
import { connect } from 'node:net';
import { latencyFigures, type LatencyFigures } from './latency';

export interface OneClientPlan {
  url: string;
  seconds: number;
  warmUp: number;
  requests: { method: string; path: string; headers?: Record<string, string>; body?: string }[];
}

/** The latency figures: milliseconds from a request's first byte written to its reply's last read. */
export interface OneClientResult extends LatencyFigures {
  requests: number;
  non2xx: number;
  /** The first refused reply, to tell why. */
  firstRefusal?: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');

async function main(): Promise<void> {
  const plan = JSON.parse(process.argv[2]!) as OneClientPlan;
  const base = new URL(plan.url);
  const wire = plan.requests.map(({ method, path, headers = {}, body }) => {
    const lines = [`${method} ${path} HTTP/1.1`, `host: ${base.host}`];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    if (body !== undefined) lines.push(`content-length: ${Buffer.byteLength(body)}`);
    return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`);
  });
  const socket = connect({ host: base.hostname, port: Number(base.port), noDelay: true });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));

  let buffered: Buffer = Buffer.alloc(0);
  let waiting: ((reply: { status: number; body: string }) => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
    const headerEnd = buffered.indexOf(HEADER_END);
    if (headerEnd < 0) return;
    const head = buffered.subarray(0, headerEnd).toString('latin1');
    const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
    if (!Number.isFinite(length)) throw new Error(`a reply without content-length: ${head}`);
    const end = headerEnd + 4 + length;
    if (buffered.length < end) return;
    const body = buffered.subarray(headerEnd + 4, end).toString('utf8');
    buffered = buffered.subarray(end);
    const resolve = waiting;
    waiting = undefined;
    resolve?.({ status: Number(head.slice(9, 12)), body });
  });
  socket.on('error', (err) => {
    process.stderr.write(`one-client: ${err.message}\n`);
    process.exit(1);
  });

  const durations: number[] = [];
  let non2xx = 0;
  let firstRefusal: string | undefined;
  const deadline = performance.now() + plan.seconds * 1000;
  for (let i = 0; i < plan.warmUp || performance.now() < deadline; i++) {
    const reply = new Promise<{ status: number; body: string }>((resolve) => (waiting = resolve));
    const started = performance.now();
    socket.write(wire[i % wire.length]!);
    const { status, body } = await reply;
    const took = performance.now() - started;
    if (status < 200 || status > 299) {
      non2xx++;
      firstRefusal ??= `${status} ${body.slice(0, 300)}`;
    }
    if (i >= plan.warmUp) durations.push(took);
  }
  socket.end();
  const result: OneClientResult = { requests: durations.length, ...latencyFigures(durations), non2xx, ...(firstRefusal ? { firstRefusal } : {}) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`one-client failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
