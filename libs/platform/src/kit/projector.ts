/**
 * Runs one projection over the event store: catch-up from the projector's checkpoint,
 * then live.
 *
 * Facts are applied in small batches: what the subscription delivers while a batch is
 * being written waits for the next one, and each batch is one read-model unit (one SQLite
 * transaction) that also moves the checkpoint. So under load many facts share one commit,
 * and after a crash the projector resumes where its data ends; projections are
 * idempotent for the engines where a batch is not atomic.
 *
 * `waitFor(position)` is how read-your-writes is kept: a handler that just appended (or a
 * request carrying the caller's last write position) waits until this projector has
 * applied that position before reading.
 */
import { ApiError } from '@teamchat/contracts';
import type { Logger } from 'pino';
import type { EventStore, StoredFact, Subscription } from '../ports/event-store';
import type { ReadModelStore } from '../ports/read-models';
import { DEFAULT_CATCH_UP, loadCatchUpSettings, type CatchUpSettings } from './catch-up-settings';
import { applyFact, handledTypes, type FactHandlers } from './fact-handlers';
import { stageTracing, traceStage } from './stage-trace';

export interface ProjectorOptions {
  name: string;
  store: EventStore;
  /** Where the checkpoint is kept; absent for projectors that live in memory only. */
  readModels?: ReadModelStore;
  /**
   * The projection: what it does with each fact type it reads. Other types only move the
   * position, with no read-model write: most facts are messages, which most projectors
   * ignore.
   */
  handlers: FactHandlers;
  log: Logger;
  /** For in-memory projectors: start at the store's head instead of replaying. */
  startAtHead?: boolean;
  /**
   * For in-memory projectors whose state is rebuilt from a known position (the events
   * service's durable queues): replay the facts after it; wins over `startAtHead`.
   */
  startAfter?: number;
  /**
   * The collections the projection writes. A projector that starts from nothing (a new
   * name, after the read model's shape changed) empties them first, so that documents
   * stored under an earlier shape's ids cannot survive the replay.
   */
  collections?: { clear(): Promise<void> }[];
  /** How often a long catch-up logs its progress (default 10 s). */
  progressEveryMs?: number;
  /** How long facts it skipped may stay behind its stored checkpoint (default SKIPPED_SAVED_WITHIN_MS). */
  skippedSavedWithinMs?: number;
}

interface Waiter {
  position: number;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * Batches and progress reports (catch-up-settings.ts, read once per process): a batch no
 * larger than `batch` keeps catch-up memory and transaction size bounded, and what a
 * stopped or killed catch-up loses to what was committed.
 */
let tuning: CatchUpSettings | undefined;
const catchUp = () => (tuning ??= loadCatchUpSettings());

/**
 * How far the stored checkpoint may stay behind the facts a projector skipped (types it
 * does not read: most facts are messages, which most projectors ignore). Facts behind the
 * stored checkpoint are read again at the next start, and the service answers only once
 * they are: without this bound, a projector that reads only users' facts started every
 * time from its last user fact, reading the whole message history since (about 1.5
 * million facts at a million messages). A skipped stretch is saved once it is this long,
 * and whatever remains when the projector stops.
 */
export const MAX_UNSAVED_SKIPPED = 10_000;

/**
 * And how long: a projector that has skipped facts saves its position this long after the
 * first of them at the latest (a timer when no later batch comes), so that a killed
 * server's next start reads again at most this much of what each such projector skipped,
 * not up to MAX_UNSAVED_SKIPPED facts (10,000 facts read again cost 0.5 s of a thread at
 * a million messages). One small write a second at most, per projector.
 */
export const SKIPPED_SAVED_WITHIN_MS = 1_000;

/** A catch-up this long (in facts) reports its progress, by default (TEAMCHAT_CATCH_UP_REPORT_MIN_FACTS). */
export const PROGRESS_MIN_FACTS = DEFAULT_CATCH_UP.reportMinFacts;

export class Projector {
  /** Applied (and, with read models, committed) up to here. */
  private position = 0;
  /** The checkpoint as stored in the read models (see MAX_UNSAVED_SKIPPED). */
  private saved = 0;
  /** Saves the position past skipped facts when no batch comes to do it (SKIPPED_SAVED_WITHIN_MS). */
  private skippedSave: ReturnType<typeof setTimeout> | undefined;
  /** Between the start and the moment the projector has applied what the store held then. */
  private catchingUp = false;
  /** Told after each batch while a long catch-up reports its progress. */
  private onAdvance: (() => void) | undefined;
  /** Received from the subscription up to here; may run ahead of `position`. */
  private received = 0;
  private queue: StoredFact[] = [];
  /** The batch being written, if any; batches never overlap. */
  private writing: Promise<void> | undefined;
  private waiters: Waiter[] = [];
  private subscription: Subscription | undefined;
  private failure: unknown;
  private readonly types: ReadonlySet<string>;
  /** Batches and snapshot reads take turns on this chain, so that a snapshot never sees half a batch. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: ProjectorOptions) {
    this.types = handledTypes(options.handlers);
  }

  async start(): Promise<void> {
    const { store, readModels, name, log } = this.options;
    this.position = readModels
      ? await readModels.getCheckpoint(name)
      : this.options.startAfter !== undefined
        ? this.options.startAfter
        : this.options.startAtHead
        ? await store.headPosition()
        : 0;
    if (readModels && this.position === 0) for (const collection of this.options.collections ?? []) await collection.clear();
    this.saved = this.position;
    this.received = this.position;
    const head = await store.headPosition();
    this.subscription = store.subscribeToAll((fact) => this.receive(fact), {
      after: this.position,
      onError: (err) => this.fail(err, log),
    });
    // A service answers only once its read models hold everything stored before it
    // started: a rebuilt read model must not tell a caller that the organization, a
    // user or a message does not exist while it is still replaying.
    const progress = head - this.position >= catchUp().reportMinFacts ? this.reportProgress(head) : undefined;
    this.catchingUp = true;
    readModels?.catchingUp?.(true);
    try {
      await this.waitFor(head, Number.POSITIVE_INFINITY);
    } finally {
      this.catchingUp = false;
      readModels?.catchingUp?.(false);
      progress?.();
    }
  }

  /**
   * Logs a long catch-up's progress every reportEveryMs (a rebuild, from nothing, of
   * a large store takes minutes), and its end; returns what ends it. Looked at after each
   * batch, not on a timer: a catch-up runs batch after batch without giving timers a turn.
   */
  private reportProgress(head: number): () => void {
    const { name, log } = this.options;
    const every = this.options.progressEveryMs ?? catchUp().reportEveryMs;
    const from = this.position;
    const kind = from === 0 ? 'rebuild' : 'catch-up';
    const started = performance.now();
    const seconds = () => (performance.now() - started) / 1000;
    log.info({ projector: name, from, head }, `${name}: ${kind} of ${head - from} facts begins`);
    let next = started + every;
    this.onAdvance = () => {
      if (performance.now() < next) return;
      next = performance.now() + every;
      const rate = (this.position - from) / seconds();
      const left = rate > 0 ? (head - this.position) / rate : Number.POSITIVE_INFINITY;
      log.info(
        { projector: name, position: this.position, head, facts_per_second: Math.round(rate), seconds_left: Math.round(left) },
        `${name}: ${kind} progress ${this.position} of ${head} (${((100 * (this.position - from)) / (head - from)).toFixed(1)}%), ` +
          `${rate.toFixed(0)} facts/s, about ${Number.isFinite(left) ? left.toFixed(0) : '?'} s left`,
      );
    };
    return () => {
      this.onAdvance = undefined;
      const rate = (this.position - from) / seconds();
      log.info({ projector: name, position: this.position, facts_per_second: Math.round(rate) }, `${name}: ${kind} done, ${this.position - from} facts in ${seconds().toFixed(1)} s (${rate.toFixed(0)} facts/s)`);
    };
  }

  get checkpoint(): number {
    return this.position;
  }

  /** Resolves once the projector has applied every fact up to `position`. */
  waitFor(position: number | undefined, timeoutMs = 10_000): Promise<void> {
    if (position === undefined || position <= this.position) return Promise.resolve();
    if (this.failure) return Promise.reject(unavailable());
    return new Promise((resolve, reject) => {
      const timer = Number.isFinite(timeoutMs)
        ? setTimeout(() => {
            this.waiters = this.waiters.filter((w) => w !== waiter);
            reject(new ApiError('GATEWAY_TIMEOUT', 'Read model did not catch up in time', 504));
          }, timeoutMs)
        : undefined;
      timer?.unref();
      const waiter: Waiter = {
        position,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
        reject: (err) => {
          clearTimeout(timer);
          reject(err);
        },
      };
      this.waiters.push(waiter);
    });
  }

  /**
   * For a refusal decided on read models that had applied facts up to `since`: whether the
   * store has facts beyond it. If so this waits until they are applied, so that the caller
   * can decide again on what the store held when it refused (a user created by another
   * service a moment before is not "no such user" here). Only refusals pay the head read.
   */
  async caughtUpPast(since: number): Promise<boolean> {
    const head = await this.options.store.headPosition();
    if (head <= since) return false;
    await this.waitFor(head);
    return true;
  }

  /**
   * Reads the read models at one known position: no batch is applied while `read` runs,
   * so what it returns reflects exactly the facts up to the position returned with it
   * (POST /register pairs initial state with a queue starting there).
   */
  snapshot<T>(read: () => Promise<T> | T): Promise<{ value: T; position: number }> {
    return this.exclusive(async () => ({ value: await read(), position: this.position }));
  }

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.turn.then(work);
    this.turn = result.catch(() => undefined);
    return result;
  }

  async stop(): Promise<void> {
    await this.subscription?.stop();
    while (this.writing) await this.writing;
    clearTimeout(this.skippedSave);
    this.skippedSave = undefined;
    // Facts skipped since the last save are not read again at the next start.
    if (!this.failure && this.position > this.saved) await this.exclusive(() => this.saveCheckpoint(this.position));
  }

  private async saveCheckpoint(position: number): Promise<void> {
    const { readModels, name } = this.options;
    if (!readModels) return;
    await readModels.batch(() => readModels.setCheckpoint(name, position));
    this.saved = position;
  }

  /** Skipped facts are behind the stored checkpoint: saved by the next batch, or by this timer. */
  private saveSkippedSoon(): void {
    if (this.skippedSave || !this.options.readModels) return;
    this.skippedSave = setTimeout(() => {
      void this.exclusive(async () => {
        this.skippedSave = undefined;
        if (!this.failure && this.position > this.saved) await this.saveCheckpoint(this.position);
      }).catch((err: unknown) => this.fail(err, this.options.log));
    }, this.options.skippedSavedWithinMs ?? SKIPPED_SAVED_WITHIN_MS);
    this.skippedSave.unref();
  }

  /**
   * The subscription's handler. It returns at once so the subscription can hand over the
   * facts it already has; only a full queue makes it wait (back-pressure during catch-up).
   */
  private receive(fact: StoredFact): Promise<void> | void {
    // At or before what was received already: a re-delivery. Skipping it keeps fan-out
    // from handing a queue the same event twice.
    if (fact.position <= this.received) return;
    this.received = fact.position;
    if (stageTracing) traceStage('projector.received', `${this.options.name} ${fact.position}`);
    this.queue.push(fact);
    if (!this.writing) this.writing = this.drain();
    if (this.queue.length >= catchUp().batch) return this.writing;
  }

  private async drain(): Promise<void> {
    try {
      // Let the subscription deliver what it already read before the first batch starts:
      // it hands over one fact per microtask, so the queue stops growing once it is done.
      // Not a turn of the event loop (setImmediate), which a lone write waiting for its
      // read model would pay for nothing; facts arriving while a batch applies make the
      // next batch, so under load batches still gather.
      for (let seen = -1; seen !== this.queue.length; ) {
        seen = this.queue.length;
        await Promise.resolve();
        await Promise.resolve();
      }
      // With nobody waiting for these facts yet, the reply of the write that made them
      // goes first: a request whose caller waits for its position later (the embedded
      // gateway's `whenDurable`) is answered before the projection runs, which then runs
      // beside the reply's way out instead of in front of it. A turn of the event loop
      // lets every microtask of that reply run first.
      if (this.waiters.length === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      while (this.queue.length > 0 && !this.failure) {
        const batch = this.queue.splice(0, catchUp().batch);
        if (stageTracing) traceStage('projector.batch', `${this.options.name} ${batch.length}`);
        await this.exclusive(async () => {
          await this.apply(batch);
          if (stageTracing) traceStage('projector.applied', `${this.options.name} ${batch[batch.length - 1]!.position}`);
          this.advance(batch[batch.length - 1]!.position);
        });
      }
      // A catch-up otherwise runs from its first batch to its last without a turn of the
      // event loop (the store's reads and the projections are synchronous): the read
      // models' group commit (a timer) never ran, and a rebuild was one transaction whose
      // every page waited in the WAL and the page cache until the end, all of it lost if
      // the process stopped before (268 MB of WAL for 5,400 facts, the database file
      // untouched). A turn after each batch lets the commit and its checkpoints run.
      if (this.catchingUp) await new Promise<void>((resolve) => setImmediate(resolve));
    } catch (err) {
      this.fail(err, this.options.log);
    } finally {
      this.writing = undefined;
    }
  }

  private async apply(batch: StoredFact[]): Promise<void> {
    const { readModels, name, handlers } = this.options;
    const relevant = batch.filter((fact) => this.types.has(fact.type));
    const last = batch[batch.length - 1]!.position;
    // With nothing to write, the checkpoint on disk may lag, by a bounded stretch: on
    // restart those facts are read and skipped again.
    if (relevant.length === 0) {
      if (last - this.saved >= MAX_UNSAVED_SKIPPED) await this.saveCheckpoint(last);
      else this.saveSkippedSoon();
      return;
    }
    if (!readModels) {
      for (const fact of relevant) await applyFact(handlers, fact);
      return;
    }
    await readModels.batch(async () => {
      try {
        for (const fact of relevant) {
          readModels.applying?.(fact.position);
          await applyFact(handlers, fact);
        }
      } finally {
        readModels.applying?.(undefined);
      }
      await readModels.setCheckpoint(name, last);
    });
    this.saved = last;
  }

  private fail(err: unknown, log: Logger): void {
    // A projection that throws is a bug; stop here rather than skip a fact and serve
    // read models that silently miss it.
    this.failure = err;
    log.error({ err, projector: this.options.name }, 'projector stopped');
    void this.subscription?.stop();
    for (const waiter of this.waiters) waiter.reject(unavailable());
    this.waiters = [];
  }

  private advance(position: number): void {
    this.position = position;
    this.onAdvance?.();
    if (this.waiters.length === 0) return;
    const ready = this.waiters.filter((w) => w.position <= position);
    this.waiters = this.waiters.filter((w) => w.position > position);
    for (const w of ready) w.resolve();
  }
}

const unavailable = () => new ApiError('INTERNAL_SERVER_ERROR', 'Read model is unavailable', 500);
