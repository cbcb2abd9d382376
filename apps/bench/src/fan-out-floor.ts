/**
 * The machine's floor under event delivery, measured beside it as fsync is beside the
 * single-client lines: the same number of connections from another process, each handed
 * one reply-sized write per round by a bare `net` server, with no HTTP, no bus and no
 * queue. A delivery to a thousand long-polls is at least a thousand such writes, each a
 * trip through the kernel's loopback TCP that also wakes the reading process, and how
 * long those take varies on a shared virtual machine from run to run more than anything
 * the server does; the delivery line is read against this one.
 *
 * Run directly, this file is the reading process: argv[2] the port, argv[3] the number
 * of connections, argv[4] the rounds (warm-up ones included). It prints `READY` once
 * connected and, after every connection has read every round, one JSON line of latency
 * figures for the measured rounds (milliseconds from the round's first write to each
 * connection's first byte of it).
 */
import { spawn } from 'node:child_process';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { latencyFigures, type LatencyFigures } from './latency';

/** About the size of a message event's reply to a long-poll. */
export const FLOOR_WRITE_BYTES = 1500;
const ROUNDS = 20;
/** Unmeasured rounds first, as the delivery line sends unmeasured messages first. */
const WARM_UP = 5;

export interface FanOutFloorReport extends LatencyFigures {
  connections: number;
  rounds: number;
}

const now = () => performance.timeOrigin + performance.now();

/** One round's write: its round and start (wall-clock milliseconds), padded to FLOOR_WRITE_BYTES. */
export const floorWrite = (round: number, sentAt: number): string => `${round} ${sentAt.toFixed(3)}\n`.padEnd(FLOOR_WRITE_BYTES, 'x');

/** One write per connection per round, `intervalMs` apart; the reader times each arrival. */
export async function measureFanOutFloor(connections: number, intervalMs: number): Promise<FanOutFloorReport> {
  const sockets: Socket[] = [];
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    sockets.push(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const reader = spawn(process.execPath, [__filename, String(port), String(connections), String(WARM_UP + ROUNDS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: reader.stdout! });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      lines.once('line', resolve);
      reader.once('exit', (code) => reject(new Error(`the fan-out floor's reader exited (${code})`)));
    });
  try {
    if ((await nextLine()) !== 'READY') throw new Error("the fan-out floor's reader did not start");
    while (sockets.length < connections) await new Promise((resolve) => setTimeout(resolve, 10));
    const report = nextLine();
    for (let round = -WARM_UP; round < ROUNDS; round++) {
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      // Each write carries its round and the round's start, so the reader needs no other
      // clock than the machine's wall clock, which both processes read alike.
      const write = floorWrite(round, now());
      for (const socket of sockets) socket.write(write);
    }
    return { connections, rounds: ROUNDS, ...(JSON.parse(await report) as LatencyFigures) };
  } finally {
    reader.kill();
    for (const socket of sockets) socket.destroy();
    server.close();
  }
}

export function fanOutFloorLine(floor: FanOutFloorReport, deliveryP99?: number): string {
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  const ratio = deliveryP99 === undefined ? '' : `; event delivery's p99 is ${(deliveryP99 / floor.p99).toFixed(1)}× this p99`;
  return (
    `event delivery floor, ${floor.connections} bare sockets × ${floor.rounds} writes of ${FLOOR_WRITE_BYTES} B: ` +
    `p50 ${ms(floor.p50)}, p99 ${ms(floor.p99)}, max ${ms(floor.max)} from first write to receipt${ratio}`
  );
}

/**
 * One connection's writes as they are read: they may merge or split on the way, and every
 * FLOOR_WRITE_BYTES is one, timed by the arrival of its first byte.
 */
export class FloorWrites {
  private pending = '';
  /** When the first byte of the write being read arrived. */
  private firstByte: number | undefined;

  /** The writes completed by `chunk`: each one's round and milliseconds from its start to its first byte. */
  take(chunk: string, arrived: number): { round: number; latency: number }[] {
    const done: { round: number; latency: number }[] = [];
    this.pending += chunk;
    for (;;) {
      if (this.pending.length > 0) this.firstByte ??= arrived;
      if (this.pending.length < FLOOR_WRITE_BYTES) return done;
      const [round, sentAt] = this.pending.slice(0, this.pending.indexOf('\n')).split(' ').map(Number) as [number, number];
      done.push({ round, latency: this.firstByte! - sentAt });
      this.firstByte = undefined;
      this.pending = this.pending.slice(FLOOR_WRITE_BYTES);
    }
  }
}

/** The reading process: times the first byte of each round on each connection. */
function read(port: number, connections: number, rounds: number): void {
  const latencies: number[] = [];
  let finished = 0;
  for (let i = 0; i < connections; i++) {
    const socket = connect({ host: '127.0.0.1', port, noDelay: true });
    const writes = new FloorWrites();
    let received = 0;
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      for (const { round, latency } of writes.take(chunk, now())) {
        received++;
        if (round >= 0) latencies.push(latency);
      }
      if (received === rounds && ++finished === connections) {
        process.stdout.write(`${JSON.stringify(latencyFigures(latencies))}\n`, () => process.exit(0));
      }
    });
    socket.on('error', (err) => {
      process.stderr.write(`fan-out floor: ${err.message}\n`);
      process.exit(1);
    });
  }
  process.stdout.write('READY\n');
}

if (require.main === module) {
  const [port, connections, rounds] = process.argv.slice(2).map(Number) as [number, number, number];
  read(port, connections, rounds);
}
