/**
 * Documents tested on a thread of their own, for the SQLite read-model store
 * (ReadModelStore.offThreadTester).
 *
 * A scan that no index answers (a search for a word nearly every message holds, negated)
 * reads and parses every document of a user's history. On the service's own thread it
 * took turns with other requests a slice at a time, but each slice still held the thread
 * that another user's request needed, and shared the machine's two cores with it: under
 * one user's flood of such searches another user's p99 was 1.6-2.4 times its value
 * alone. Here the reading and testing run on a second connection, on a worker thread
 * whose OS priority is lower, so the service's thread only lists the candidates and
 * waits; the scheduler runs the threads that serve requests first.
 *
 * The worker sees what is committed. The store commits its open group-commit
 * transaction before each test, so a test sees every write its caller has seen.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { DocId, DocTester, DocTestResult } from '../ports/read-models';

/**
 * The worker's nice value. Linux's scheduler weighs a thread at nice 10 about a tenth of
 * one at 0: a request's thread that wants a core gets it within the scheduler's slice,
 * while a scan still runs at nearly full speed on a machine with a core to spare.
 */
export const TESTER_NICE = 10;

/** The compiled worker (tests run this module from its source; the thread runs `tsc -b`'s output). */
const WORKER_SCRIPT = join(__dirname, '..', '..', 'dist', 'adapters', 'sqlite-tester-worker.js');

export interface TesterThreadData {
  path: string;
  module: string;
  nice: number;
  busyTimeoutMs: number;
}

export interface TesterRequest {
  id: number;
  /** The collection's table, quoted. */
  table: string;
  ids: DocId[];
  args: unknown;
}

export type TesterReply = ({ id: number } & DocTestResult) | { id: number; error: string };

interface Waiting {
  resolve(result: DocTestResult): void;
  reject(err: Error): void;
}

export class SqliteTesterThread implements DocTester {
  private worker: Worker | undefined;
  /** Why the thread stopped, once it has: every later test rejects at once. */
  private failure: Error | undefined;
  private readonly waiting = new Map<number, Waiting>();
  private nextId = 0;
  /** The worker's thread id, once it has started (undefined where it could not lower its priority). */
  private started: Promise<number | undefined> | undefined;

  constructor(
    private readonly data: TesterThreadData,
    /** The quoted table of a collection. */
    private readonly tableOf: (collection: string) => string,
    /** Makes the caller's writes visible to the worker (commits the store's open transaction). */
    private readonly beforeTest: () => Promise<void>,
  ) {}

  async test(collection: string, ids: DocId[], args: unknown): Promise<DocTestResult> {
    if (ids.length === 0) return { passed: [], values: [], missing: [] };
    await this.beforeTest();
    const worker = this.start();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, table: this.tableOf(collection), ids, args } satisfies TesterRequest);
    });
  }

  /** Gone for good (lost, or stopped): every test would reject. */
  get failed(): boolean {
    return this.failure !== undefined;
  }

  /** The OS thread id the worker lowered the priority of (for tests). */
  threadId(): Promise<number | undefined> {
    this.start();
    return this.started!;
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.failure ??= new Error('the tester thread was stopped');
    this.worker = undefined;
    this.rejectAll(this.failure);
    await worker?.terminate();
  }

  private start(): Worker {
    if (this.failure) throw this.failure;
    if (this.worker) return this.worker;
    const worker = new Worker(WORKER_SCRIPT, { workerData: this.data });
    // It must not keep a process alive that has nothing else to do.
    worker.unref();
    let ready: (tid: number | undefined) => void = () => undefined;
    this.started = new Promise((resolve) => (ready = resolve));
    worker.on('message', (reply: TesterReply | { ready: true; tid?: number }) => {
      if ('ready' in reply) return ready(reply.tid);
      const waiting = this.waiting.get(reply.id);
      if (!waiting) return;
      this.waiting.delete(reply.id);
      if ('error' in reply) waiting.reject(new Error(`the tester thread failed: ${reply.error}`));
      else waiting.resolve({ passed: reply.passed, values: reply.values, missing: reply.missing });
    });
    const lost = (err: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.failure = err;
      ready(undefined);
      process.stderr.write(`tester thread of ${this.data.path} stopped: ${err.message}\n`);
      this.rejectAll(err);
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`it exited with code ${code}`)));
    this.worker = worker;
    return worker;
  }

  private rejectAll(err: Error): void {
    for (const { reject } of this.waiting.values()) reject(err);
    this.waiting.clear();
  }
}
