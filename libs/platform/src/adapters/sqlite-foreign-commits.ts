/**
 * How the SQLite event store finds facts that others sharing its file committed (the
 * distributed mode's processes on one machine; in the embedded mode, a command-line tool
 * writing to a running server's file, or another thread whose notice has not come yet):
 * by reading the file's head, on a timer and on demand.
 */

/** What the poller needs of its store. */
export interface ForeignCommitStore {
  /** The file's head as SQLite has it now, whoever committed it. */
  readHead(): number;
  /** The head this instance already knows of (its own commits, the notices it heard). */
  knownHead(): number;
  /**
   * Another process committed up to `head`: the store takes it as known and fsyncs the
   * WAL before its subscribers may read it, since that writer may not have synced yet.
   */
  foundHead(head: number): void;
}

/** How long the timer's poll leaves a foreign commit to its writer's notice (see `tick`). */
const FOREIGN_SYNC_GRACE_MS = 100;

export class ForeignCommitPoller {
  private timer: NodeJS.Timeout | undefined;
  /** A head past the known one that a timer poll found, and when (see `tick`). */
  private polledHead: { head: number; at: number } | undefined;

  constructor(
    private readonly store: ForeignCommitStore,
    private readonly intervalMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Looks now, and syncs at once whatever it finds: someone is waiting for it. */
  pollNow(): void {
    const head = this.store.readHead();
    if (head > this.store.knownHead()) this.store.foundHead(head);
  }

  /**
   * The timer's poll. A foreign commit it finds is usually being fsynced by its writer,
   * whose notification (`wake`) makes it readable without an fsync of ours; syncing at
   * once would put a second fsync on the disk beside the writer's, slowing the very
   * append that is waiting for it (measured: 1.2 ms became 2.7 ms). So a head the timer
   * finds moved is synced only if no notification has covered it within
   * FOREIGN_SYNC_GRACE_MS (longer than a slow fsync of a busy disk): a lost notification
   * costs that much more, and nothing else waits.
   */
  tick(): void {
    const head = this.store.readHead();
    const known = this.store.knownHead();
    if (head <= known) {
      this.polledHead = undefined;
      return;
    }
    const now = this.now();
    // Still uncovered since it was first found: a head covered meanwhile starts the wait anew.
    if (this.polledHead === undefined || this.polledHead.head <= known) this.polledHead = { head, at: now };
    if (now - this.polledHead.at < FOREIGN_SYNC_GRACE_MS) return;
    this.polledHead = undefined;
    this.store.foundHead(head);
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      try {
        this.tick();
      } catch (err) {
        // A transient failure (e.g. SQLITE_BUSY past the timeout) must not kill the
        // process; the next tick tries again.
        process.stderr.write(`sqlite event store poll failed: ${String(err)}\n`);
      }
    }, this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
