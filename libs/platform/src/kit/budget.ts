/**
 * A request's time budget and cancellation, for work that can run long (a scan of a
 * narrow's history, a search the text index cannot answer alone).
 *
 * Every step of a service's thread runs to its end before another request is looked at:
 * the read models are read synchronously, and an `await` of work already done is only a
 * microtask, so a scan of a long history held the thread from its first batch to its
 * last (a rare-word search took about 58 s at 750,000 messages, while every other
 * messaging request waited, long after its own client had given up at 10 s). So a scan
 * calls `turn()` between its batches: the request is stopped with a clear error once its
 * budget is spent or its client has gone, and once it has run for a slice it lets the
 * thread take the other requests waiting (a turn of the event loop).
 *
 * One user's scans run one at a time (a lane per user, entered before the first batch
 * and handed on at each turn): a user who sends many expensive requests at once delays
 * another user's request by one batch at most per turn, however many they send, instead
 * of one for each of them; their own requests wait in the lane, each answered with the
 * error once its budget is spent there.
 */
import { ApiError } from '@teamchat/contracts';
import { stageTracing, traceStage } from './stage-trace';

/** How long a scan runs before it lets other requests have the thread. */
export const SCAN_SLICE_MS = 4;

/**
 * The slice while another caller's requests are being served on the thread: another
 * user's request that arrives during a slice waits for its end, and a 4 ms slice doubled
 * or tripled their p50 under one user's flood of unindexable searches (2.1-2.7 -> 5.1-12.5
 * ms at 1,000,000 messages; 1 ms slices: 3.3-6.0 ms). A lone scan keeps the longer
 * slice: with 1 ms slices and batches paced to them a search ran twice as long (p50 13-16
 * -> 26-27 ms), each batch paying its queries' fixed cost.
 */
export const CONTENDED_SLICE_MS = 1;

/** How recently another caller's request must have begun for the thread to count as shared. */
export const CONTENTION_WINDOW_MS = 250;

/** When each caller's latest request on this thread began (module state: one per thread). */
const lastRequestAt = new Map<number, number>();

/** Whether a caller other than `lane` began a request within the window. */
function othersServed(lane: number | undefined, now: number): boolean {
  for (const [other, at] of lastRequestAt) if (other !== lane && now - at <= CONTENTION_WINDOW_MS) return true;
  return false;
}

/** A request without a budget of its own (a service calling another): the bus's default timeout. */
export const DEFAULT_BUDGET_MS = 10_000;

interface Waiter {
  /** Hands the lane over; false if the waiter has given up (it is skipped). */
  grant(): boolean;
}

/** The lanes held now, each with the requests waiting for it, first come first served. */
const lanes = new Map<number, Waiter[]>();

export class RequestBudget {
  private readonly deadline: number;
  private sliceStart: number;
  /** When the scan's current batch began (its last turn, or its entry). */
  private batchStart: number;
  /** Milliseconds per item of the scan's last batches (paced). */
  private readonly paces: number[] = [];
  private holding = false;
  private aborted = false;
  /** Ends a wait in the lane early (the client left). */
  private wake: (() => void) | undefined;

  /**
   * `budgetMs` from now; `lane`: whose scans run one at a time (the caller's user id),
   * absent for requests without a caller.
   */
  constructor(
    readonly budgetMs: number,
    private readonly lane?: number,
  ) {
    this.sliceStart = performance.now();
    this.batchStart = this.sliceStart;
    this.deadline = this.sliceStart + budgetMs;
    if (lane !== undefined) {
      // Moved to the end: the entries stay oldest first, and those past the window are
      // forgotten here, so that the map holds only the callers of the last moment.
      lastRequestAt.delete(lane);
      lastRequestAt.set(lane, this.sliceStart);
      for (const [other, at] of lastRequestAt) {
        if (this.sliceStart - at <= CONTENTION_WINDOW_MS) break;
        lastRequestAt.delete(other);
      }
    }
  }

  /** How long this scan's slices last now: shorter while other callers are being served. */
  get sliceMs(): number {
    return othersServed(this.lane, performance.now()) ? CONTENDED_SLICE_MS : SCAN_SLICE_MS;
  }

  /** The client is gone (its HTTP connection closed): the work is for nobody. */
  abort(): void {
    this.aborted = true;
    this.wake?.();
  }

  /** Milliseconds left (negative once spent). */
  get remainingMs(): number {
    return this.deadline - performance.now();
  }

  /** Throws the request's error if its budget is spent or its client gone. */
  check(): void {
    if (this.aborted) throw new ApiError('GATEWAY_TIMEOUT', 'The request was stopped: its client closed the connection', 504);
    if (performance.now() >= this.deadline) {
      throw new ApiError(
        'GATEWAY_TIMEOUT',
        `The request was stopped after its time limit (${(this.budgetMs / 1000).toFixed(1)} s): narrow it (a channel, a topic, a sender) and try again`,
        504,
      );
    }
  }

  /** Before a scan's first batch: waits for the caller's other scans (its lane). */
  async enter(): Promise<void> {
    this.check();
    this.batchStart = performance.now();
    if (this.lane === undefined || this.holding) return;
    const waiting = lanes.get(this.lane);
    if (!waiting) {
      lanes.set(this.lane, []);
      this.holding = true;
      return;
    }
    await this.waitInLane(waiting);
    this.sliceStart = performance.now();
    this.batchStart = this.sliceStart;
  }

  /**
   * Between the batches of a scan: stops the request if it must stop (`check`), and once
   * it has run for a slice gives the thread to other requests, then the lane to the
   * caller's next scan.
   */
  async turn(): Promise<void> {
    this.check();
    const ran = performance.now() - this.sliceStart;
    if (ran < this.sliceMs) {
      this.batchStart = performance.now();
      return;
    }
    if (stageTracing) traceStage('scan.slice', ran.toFixed(3));
    // The lane is kept during the turn and handed over after it: the next scan of the
    // lane runs its batch at once (a microtask), then waits for a turn itself, so each
    // turn of the event loop runs one batch per lane.
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.holding) {
      this.end();
      await this.enter();
    }
    this.check();
    this.sliceStart = performance.now();
    this.batchStart = this.sliceStart;
  }

  /**
   * The size of a scan's next batch, called after a batch of `done` items and before the
   * turn: `wanted` (what the scan would read next), but no more than the last batch's
   * pace fits in half a slice, and at least `min`. A turn is taken only between batches,
   * so a slice lasts as long as its batches do: a search's rounds of 2,000 messages ran
   * 10-176 ms each at 1,000,000 messages (p50 9-16 ms), and another user's request waited
   * for a whole round, not for a slice. Any size reads the same messages: a scan resumes
   * where its last batch ended.
   */
  paced(wanted: number, done: number, min: number): number {
    const ms = performance.now() - this.batchStart;
    if (done <= 0 || ms <= 0) return Math.max(min, wanted);
    // The median pace of the last three batches: one the machine interrupted (another
    // process, a collection) would otherwise shrink the next batches to the minimum, and
    // a scan of small batches pays each batch's fixed cost more often.
    const paces = this.paces;
    paces.push(ms / done);
    if (paces.length > 3) paces.shift();
    const pace = [...paces].sort((a, b) => a - b)[paces.length >> 1]!;
    return Math.max(min, Math.min(wanted, Math.floor(this.sliceMs / 2 / pace)));
  }

  /** The request is answered: the next scan of its lane may run. */
  end(): void {
    if (!this.holding || this.lane === undefined) return;
    this.holding = false;
    const waiting = lanes.get(this.lane)!;
    for (let next = waiting.shift(); next; next = waiting.shift()) if (next.grant()) return;
    lanes.delete(this.lane);
  }

  private async waitInLane(waiting: Waiter[]): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    let gaveUp = false;
    // Waiting spends the budget too: a request whose time runs out (or whose client
    // leaves) while it waits is answered then, and its place is skipped.
    await new Promise<void>((resolve) => {
      waiting.push({
        grant: () => {
          if (gaveUp) return false;
          this.holding = true;
          resolve();
          return true;
        },
      });
      const giveUp = () => {
        gaveUp = true;
        resolve();
      };
      timer = setTimeout(giveUp, Math.max(0, this.remainingMs));
      this.wake = giveUp;
    });
    clearTimeout(timer);
    this.wake = undefined;
    if (!this.holding) this.check();
  }
}
