/**
 * WAL checkpoints on a worker thread. A checkpoint copies the WAL into the database file
 * and fsyncs both; SQLite's automatic checkpoint does that inside whichever commit
 * crosses its threshold, which with better-sqlite3 is the main thread, stalling every
 * request for the length of two fsyncs. With this, the connection that commits never
 * checkpoints (wal_autocheckpoint=0) and a second connection, on its own thread, runs a
 * PASSIVE checkpoint every interval: it copies what no reader still needs and never
 * blocks a reader or a writer. Not at every interval, though: each checkpoint fsyncs the
 * WAL and the database file, and on a shared disk those fsyncs lengthen the event store's
 * own, which a person's send waits for (a server with five files checkpointed every 500
 * ms ran about twenty such fsyncs a second under one sending client). The worker reads
 * from the WAL index how many frames wait to be copied and checkpoints once there are
 * `minFrames` of them or the oldest has waited `maxDelayMs`.
 *
 * A PASSIVE checkpoint alone does not keep the WAL small under steady writes. SQLite
 * starts the WAL over only when a write transaction begins after a checkpoint copied
 * every frame, and with commits arriving every few milliseconds a checkpoint never
 * catches up: the file grew by hundreds of megabytes over 40,000 messages. So once the
 * WAL holds more than `restartFrames`, the owner is told (`onRestartWanted`); it stops
 * committing for a moment, has `checkpointAll()` copy the rest, and its next write
 * transaction starts the WAL over. Only writes are held back meanwhile; the copying runs
 * on the worker (the owner's own connection copies only what another process committed
 * in between, usually nothing).
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { stageTracing } from '../kit/stage-trace';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const { threadId } = require('node:worker_threads');
const now = () => (performance.timeOrigin + performance.now()).toFixed(3);
const checkpoint = (id) => {
  try {
    const started = workerData.trace ? now() : undefined;
    const [result] = db.pragma('wal_checkpoint(PASSIVE)');
    if (started) process.stderr.write('stage-trace ' + started + ' ' + threadId + ' checkpoint.start ' + workerData.path + '\\n' +
      'stage-trace ' + now() + ' ' + threadId + ' checkpoint.end ' + result.checkpointed + '/' + result.log + '\\n');
    parentPort.postMessage({ id, log: result.log, checkpointed: result.checkpointed });
  } catch (err) {
    parentPort.postMessage({ id, error: String(err) });
  }
};
// Frames in the WAL not yet copied, read from the WAL index (the -shm file) without
// taking any lock: its header holds mxFrame (offset 16) and its checkpoint info
// nBackfill (offset 96), native byte order. A torn read only misjudges one tick.
const fs = require('node:fs');
const le = require('node:os').endianness() === 'LE';
const header = Buffer.alloc(100);
let shm;
const pendingFrames = () => {
  try {
    shm ??= fs.openSync(workerData.path + '-shm', 'r');
    if (fs.readSync(shm, header, 0, 100, 0) < 100) return undefined;
  } catch {
    return undefined;
  }
  const mxFrame = le ? header.readUInt32LE(16) : header.readUInt32BE(16);
  const nBackfill = le ? header.readUInt32LE(96) : header.readUInt32BE(96);
  return nBackfill <= mxFrame ? mxFrame - nBackfill : mxFrame;
};
// A checkpoint syncs the WAL and the database file: two fsyncs beside the event store's,
// which a waiting send is made of. So it runs when enough frames have gathered to be
// worth them, or when the oldest has waited maxDelayMs, not at every tick.
let pendingSince;
const tick = () => {
  const pending = pendingFrames();
  if (pending === undefined) return checkpoint(undefined);
  if (pending === 0) return void (pendingSince = undefined);
  const now = Date.now();
  pendingSince ??= now;
  if (pending >= workerData.minFrames || now - pendingSince >= workerData.maxDelayMs) {
    pendingSince = undefined;
    checkpoint(undefined);
  }
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on('message', (message) => {
  if (message.type === 'checkpoint') return checkpoint(message.id);
  clearInterval(timer);
  checkpoint(undefined);
  if (shm !== undefined) fs.closeSync(shm);
  db.close();
  parentPort.close();
});
`;

interface WorkerReply {
  id?: number;
  /** Frames in the WAL, and how many of them are in the database file now. */
  log?: number;
  checkpointed?: number;
  error?: string;
}

export interface CheckpointResult {
  log: number;
  checkpointed: number;
}

/** How a store's background checkpoints run (both have defaults). */
export interface BackgroundCheckpoints {
  /** How often the worker looks at the WAL. */
  intervalMs?: number;
  /**
   * A checkpoint runs once this many frames wait to be copied (default: SQLite's own
   * automatic threshold, 1,000, or restartFrames if lower), or once the oldest of them
   * has waited `maxDelayMs` (default 2 s).
   */
  minFrames?: number;
  maxDelayMs?: number;
  /** WAL frames (pages) beyond which the owner should let the WAL start over. */
  restartFrames?: number;
}

export interface CheckpointerOptions extends BackgroundCheckpoints {
  /** Called after each checkpoint that found the WAL holding more than `restartFrames`. */
  onRestartWanted?: () => void;
}

/** 4,096 frames: 16 MiB of 4 KiB pages. */
export const DEFAULT_RESTART_FRAMES = 4_096;

const DEFAULT_MIN_FRAMES = 1_000;
const DEFAULT_MAX_DELAY_MS = 2_000;

const JOURNAL_SIZE_LIMIT = 4 * 1024 * 1024;

export class BackgroundCheckpointer {
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (r: CheckpointResult) => void; reject: (err: Error) => void }>();

  private constructor(
    private readonly worker: Worker,
    private readonly db: Database.Database,
    private readonly restartFrames: number,
    private readonly onRestartWanted: (() => void) | undefined,
  ) {
    worker.on('message', (reply: WorkerReply) => this.received(reply));
    worker.on('error', (err) => {
      process.stderr.write(`background checkpointer of ${db.name} stopped: ${String(err)}\n`);
      for (const { reject } of this.waiting.values()) reject(err);
      this.waiting.clear();
    });
  }

  /** Takes over checkpointing of `db`'s file; in-memory databases need none (undefined). */
  static start(db: Database.Database, options: CheckpointerOptions = {}): BackgroundCheckpointer | undefined {
    if (db.memory) return undefined;
    db.pragma('wal_autocheckpoint = 0');
    // When the WAL starts over, its file is cut back to this size (it otherwise keeps the
    // largest size it ever reached). Not below twice what a restart is asked at: the cut
    // runs in the first commit after the restart, on the owner's thread, and cutting a
    // WAL of 20,000 frames (80 MiB) back to 4 MiB took that commit 96 ms on the messaging
    // thread under load, every send waiting on it (issue 18); a WAL of restart size is
    // simply reused, and only one grown far past it (a bulk load) is cut.
    const restartFrames = options.restartFrames ?? DEFAULT_RESTART_FRAMES;
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    db.pragma(`journal_size_limit = ${Math.max(JOURNAL_SIZE_LIMIT, 2 * restartFrames * pageSize)}`);
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        driver: require.resolve('better-sqlite3'),
        path: db.name,
        intervalMs: options.intervalMs ?? 500,
        minFrames: options.minFrames ?? Math.min(DEFAULT_MIN_FRAMES, options.restartFrames ?? DEFAULT_RESTART_FRAMES),
        maxDelayMs: options.maxDelayMs ?? DEFAULT_MAX_DELAY_MS,
        trace: stageTracing,
      },
    });
    // The worker must not keep a process alive that has nothing else to do.
    worker.unref();
    return new BackgroundCheckpointer(worker, db, options.restartFrames ?? DEFAULT_RESTART_FRAMES, options.onRestartWanted);
  }

  /**
   * Copies every frame of the WAL into the database file, on the worker, so that the
   * owner's next write transaction starts the WAL over; the owner must not commit until
   * it resolves.
   */
  async checkpointAll(): Promise<void> {
    await this.checkpoint();
    // What the worker left (nothing, unless another process committed meanwhile) is
    // copied here. Without this the next write transaction did not start the WAL over,
    // although the worker reported every frame copied (measured, not understood).
    this.db.pragma('wal_checkpoint(PASSIVE)');
  }

  /** Runs a PASSIVE checkpoint now, on the worker. */
  private checkpoint(): Promise<CheckpointResult> {
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ type: 'checkpoint', id });
    });
  }

  private received(reply: WorkerReply): void {
    const waiter = reply.id === undefined ? undefined : this.waiting.get(reply.id);
    if (waiter) this.waiting.delete(reply.id!);
    if (reply.error !== undefined) {
      if (waiter) waiter.reject(new Error(reply.error));
      else process.stderr.write(`background checkpoint of ${this.db.name} failed: ${reply.error}\n`);
      return;
    }
    const result = { log: reply.log ?? 0, checkpointed: reply.checkpointed ?? 0 };
    waiter?.resolve(result);
    // Told after every checkpoint that finds the WAL large: under steady writes it grows
    // back after each restart, and a restart can also fail (another process reading).
    // Not for the owner's own requests: those are its restarts.
    if (!waiter && result.log > this.restartFrames) this.onRestartWanted?.();
  }

  /** Runs a last checkpoint and ends the worker. */
  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    // Unreferenced, the worker would not keep the process alive until it has exited.
    this.worker.ref();
    this.worker.postMessage({ type: 'stop' });
    await exited;
    for (const { reject } of this.waiting.values()) reject(new Error('checkpointer stopped'));
    this.waiting.clear();
  }
}
