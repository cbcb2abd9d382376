/**
 * WAL checkpoints on a worker thread. A checkpoint copies the WAL into the database file
 * and fsyncs both; SQLite's automatic checkpoint does that inside whichever commit
 * crosses its threshold, which with better-sqlite3 is the main thread, stalling every
 * request for the length of two fsyncs. With this, the connection that commits never
 * checkpoints (wal_autocheckpoint=0) and a second connection, on its own thread, runs a
 * PASSIVE checkpoint every interval: it copies what no reader still needs and never
 * blocks a reader or a writer.
 */
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.pragma('busy_timeout = 5000');
const checkpoint = () => {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (err) {
    parentPort.postMessage({ error: String(err) });
  }
};
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

export class BackgroundCheckpointer {
  private constructor(private readonly worker: Worker) {}

  /** Takes over checkpointing of `db`'s file; in-memory databases need none (undefined). */
  static start(db: Database.Database, intervalMs = 500): BackgroundCheckpointer | undefined {
    if (db.memory) return undefined;
    db.pragma('wal_autocheckpoint = 0');
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { driver: require.resolve('better-sqlite3'), path: db.name, intervalMs },
    });
    worker.on('message', (message: { error?: string }) => {
      if (message.error) process.stderr.write(`background checkpoint of ${db.name} failed: ${message.error}\n`);
    });
    worker.on('error', (err) => process.stderr.write(`background checkpointer of ${db.name} stopped: ${String(err)}\n`));
    // The worker must not keep a process alive that has nothing else to do.
    worker.unref();
    return new BackgroundCheckpointer(worker);
  }

  /** Runs a last checkpoint and ends the worker. */
  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    // Unreferenced, the worker would not keep the process alive until it has exited.
    this.worker.ref();
    this.worker.postMessage('stop');
    await exited;
  }
}
