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
 * One user's scans take their turns one at a time (a lane per user): a user who sends
 * many expensive requests at once delays another user's request by one slice at most per
 * turn, however many they send, instead of one slice for each of them.
 */
import { ApiError } from '@teamchat/contracts';

/** How long a scan runs before it lets other requests have the thread. */
export const SCAN_SLICE_MS = 4;

/** A request without a budget of its own (a service calling another): the bus's default timeout. */
export const DEFAULT_BUDGET_MS = 10_000;

/** Requests of one caller currently scanning, queued one behind another. */
const lanes = new Map<number, Promise<void>>();

export class RequestBudget {
  private readonly deadline: number;
  private sliceStart: number;
  /** Lets the next scan of this caller's lane run; set while this request holds the lane. */
  private leave: (() => void) | undefined;
  private aborted = false;
  /** Ends a wait in the lane early (the client left). */
  private wake: (() => void) | undefined;

  /**
   * `budgetMs` from now; `lane`: whose scans take turns one at a time (the caller's user
   * id), absent for requests without a caller.
   */
  constructor(
    readonly budgetMs: number,
    private readonly lane?: number,
  ) {
    this.sliceStart = performance.now();
    this.deadline = this.sliceStart + budgetMs;
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

  /**
   * Between the batches of a scan: stops the request if it must stop (`check`), and gives
   * the thread to other requests once this one has run for a slice, in turn with the
   * other scans of its lane.
   */
  async turn(): Promise<void> {
    this.check();
    if (performance.now() - this.sliceStart < SCAN_SLICE_MS) return;
    // The lane is kept during the turn and handed over after it: the next scan of the
    // lane runs its slice at once (a microtask), then waits for a turn itself, so each
    // turn of the event loop runs one slice per lane.
    await new Promise<void>((resolve) => setImmediate(resolve));
    this.end();
    if (this.lane !== undefined) await this.enterLane(this.lane);
    this.check();
    this.sliceStart = performance.now();
  }

  /** The request is answered: the next scan of its lane may run. */
  end(): void {
    const leave = this.leave;
    this.leave = undefined;
    leave?.();
  }

  private async enterLane(lane: number): Promise<void> {
    const before = lanes.get(lane);
    let leave!: () => void;
    const mine = new Promise<void>((resolve) => (leave = resolve));
    const tail = before ? before.then(() => mine) : mine;
    lanes.set(lane, tail);
    this.leave = () => {
      leave();
      if (lanes.get(lane) === tail) lanes.delete(lane);
    };
    if (!before) return;
    // Waiting in the lane spends the budget too: a request whose time runs out while it
    // waits is answered then, and leaves its place to the next (the chain stays whole).
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, Math.max(0, this.remainingMs));
      this.wake = resolve;
    });
    try {
      await Promise.race([before, late]);
    } finally {
      clearTimeout(timer);
      this.wake = undefined;
    }
    if (this.aborted || this.remainingMs <= 0) {
      this.end();
      this.check();
    }
  }
}
