import type Database from 'better-sqlite3';

/** How long a connection keeps retrying the switch to WAL while another holds the lock. */
const WAL_SWITCH_TIMEOUT_MS = 5000;
const RETRY_PAUSE_MS = 10;

/** SQLITE_BUSY or one of its extended codes (SQLITE_BUSY_RECOVERY, SQLITE_BUSY_SNAPSHOT, …). */
export const isSqliteBusy = (err: unknown): boolean => String((err as { code?: unknown } | null)?.code ?? '').startsWith('SQLITE_BUSY');

/**
 * Puts a connection's database in WAL mode. Several processes open the same file at once
 * in the distributed mode, and switching a new file to WAL is a write that upgrades the
 * statement's read lock: when another connection holds the write lock at that moment
 * (it is switching too), SQLite answers SQLITE_BUSY at once, without the busy handler,
 * since waiting while holding a read lock could deadlock. Our statement holds no other
 * lock, so retrying after a pause is safe; once any connection made the switch, the
 * pragma only reads.
 */
export function enterWalMode(db: Pick<Database.Database, 'pragma'>, timeoutMs = WAL_SWITCH_TIMEOUT_MS): void {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if (!isSqliteBusy(err) || Date.now() >= deadline) throw err;
      pauseThread(RETRY_PAUSE_MS);
    }
  }
}

/** Opening a store is synchronous (a constructor), so the pause blocks the thread. */
function pauseThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
