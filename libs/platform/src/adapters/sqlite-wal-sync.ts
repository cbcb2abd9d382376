import { closeSync, fdatasync, fdatasyncSync, openSync } from 'node:fs';
import { stageTracing, traceStage } from '../kit/stage-trace';

/**
 * The event store's group fsync of its WAL (see SqliteEventStore): commits run with
 * synchronous=NORMAL, and what they wrote becomes durable here. At most one sync runs at
 * a time; whatever commits while it runs waits for the next one, which covers all of it.
 *
 * fdatasync, not fsync, as SQLite itself syncs a WAL on Linux: it makes the data and the
 * file's size durable and skips the inode's timestamps, which would otherwise cost a
 * journal commit of the file system on every sync (the WAL is overwritten in place after
 * each checkpoint restart, so its size rarely changes).
 *
 * `syncLoneInline`: when nothing is syncing and a sync covers what a single append
 * committed, it runs on the calling thread instead of libuv's pool. A lone append is a
 * person waiting with nothing else queued; the pool's hop costs two thread wake-ups (the
 * pool thread's, then the event loop's), which a busy machine's scheduler can stretch to
 * milliseconds. Meant for a thread of its own (the messaging thread): while it syncs, the
 * thread takes no new request, and whatever arrives meanwhile is committed together
 * afterwards and synced off the thread as before, so batching under load is kept.
 */
export class WalSync<T> {
  /** Committed items waiting for the next sync. */
  private unsynced: T[] = [];
  /** The sync in flight, if any. */
  private syncing: Promise<void> | undefined;
  private syncWanted = false;
  private fd: number | undefined;
  private closed = false;

  constructor(
    private readonly walPath: string | undefined,
    /** Called once a sync ends, with the head it covered and the items it made durable. */
    private readonly synced: (head: number, covered: T[], err: Error | null) => void,
    /** The committed head now (what the next sync covers). */
    private readonly head: () => number,
    private readonly syncLoneInline = false,
  ) {}

  /** The sync in flight, to wait for (e.g. before closing). */
  get inFlight(): Promise<void> | undefined {
    return this.syncing;
  }

  /** Makes everything committed so far durable, then reports it (see `synced`). */
  request(items: readonly T[] = []): void {
    for (const item of items) this.unsynced.push(item);
    if (this.syncing) {
      this.syncWanted = true;
      return;
    }
    this.syncWanted = false;
    const covered = this.unsynced;
    this.unsynced = [];
    const head = this.head();
    const fd = this.walFileDescriptor();
    if (stageTracing) traceStage('store.fsync', head);
    if (fd !== undefined && this.syncLoneInline && covered.length === 1) {
      let failure: Error | null = null;
      try {
        fdatasyncSync(fd);
      } catch (err) {
        failure = err as Error;
      }
      return this.finish(head, covered, failure);
    }
    this.syncing = new Promise<void>((resolve) => {
      const done = (err: Error | null) => {
        this.syncing = undefined;
        this.finish(head, covered, err);
        resolve();
      };
      if (fd === undefined) setImmediate(() => done(null));
      else fdatasync(fd, done);
    });
  }

  private finish(head: number, covered: T[], err: Error | null): void {
    if (stageTracing) traceStage('store.durable', head);
    this.synced(head, covered, err);
    if (this.syncWanted || this.unsynced.length > 0) this.request();
  }

  close(): void {
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }

  /** The WAL file, opened once it exists (SQLite creates it with the first transaction). */
  private walFileDescriptor(): number | undefined {
    if (this.fd === undefined && this.walPath !== undefined && !this.closed) {
      try {
        this.fd = openSync(this.walPath, 'r');
      } catch {
        return undefined;
      }
    }
    return this.fd;
  }
}
