/**
 * The single-client benchmark lines: one connection, one request at a time, as a person
 * sending one message after another. autocannon's latency histogram counts whole
 * milliseconds, too coarse for requests that take about one, so this process measures
 * each request itself, to the microsecond, from writing its first byte to reading its
 * last, on a kept-alive connection of its own (wire-client.ts).
 *
 * Protocol: argv[2] is a JSON `OneClientPlan`. The requests are sent in turn, round and
 * round (so that a write can alternate, e.g. star then unstar), for `seconds`, after
 * `warmUp` unmeasured ones, back to back or `pauseMs` apart. Prints one JSON line
 * (`OneClientResult`) and exits.
 */
import { latencyFigures, type LatencyFigures } from './latency';
import { WireClient, wireRequest } from './wire-client';

export interface OneClientPlan {
  url: string;
  seconds: number;
  warmUp: number;
  requests: { method: string; path: string; headers?: Record<string, string>; body?: string }[];
  /** Idle time between a reply and the next request (none: back to back). */
  pauseMs?: number;
}

/** The latency figures: milliseconds from a request's first byte written to its reply's last read. */
export interface OneClientResult extends LatencyFigures {
  requests: number;
  non2xx: number;
  /** The first refused reply, to tell why. */
  firstRefusal?: string;
}

async function main(): Promise<void> {
  const plan = JSON.parse(process.argv[2]!) as OneClientPlan;
  const base = new URL(plan.url);
  const wire = plan.requests.map(({ method, path, headers, body }) => wireRequest(base, method, path, headers, body));
  const client = await WireClient.connect(base);

  const durations: number[] = [];
  let non2xx = 0;
  let firstRefusal: string | undefined;
  // The measured run starts after the warm-up, however long that took (a slow line's
  // warm-up may outlast the run).
  let deadline = Infinity;
  for (let i = 0; i < plan.warmUp || performance.now() < deadline; i++) {
    if (i === plan.warmUp) deadline = performance.now() + plan.seconds * 1000;
    const started = performance.now();
    const { status, body } = await client.request(wire[i % wire.length]!);
    const took = performance.now() - started;
    if (status < 200 || status > 299) {
      non2xx++;
      firstRefusal ??= `${status} ${body.slice(0, 300)}`;
    }
    if (i >= plan.warmUp) durations.push(took);
    if (plan.pauseMs) await new Promise((resolve) => setTimeout(resolve, plan.pauseMs));
  }
  client.close();
  const result: OneClientResult = { requests: durations.length, ...latencyFigures(durations), non2xx, ...(firstRefusal ? { firstRefusal } : {}) };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    process.stderr.write(`one-client failed: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
