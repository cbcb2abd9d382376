/**
 * One embedded server per data directory. Two would both project into the same read-model
 * files and both serve, each unaware of the other's queues and rate limits.
 *
 * The lock is an OS lock, not a pid file: SQLite's POSIX advisory lock on a small database
 * of its own (`server.lock`), which the kernel releases when the holding process ends in any
 * way (kill -9, a crash, a power cut leaves no process to hold it), so a crashed server
 * never leaves its directory locked; a pid file would need a liveness check that a reused
 * pid or another host's (or container's) pid namespace defeats. The holder keeps a write
 * transaction open without writing (SQLite's RESERVED lock): others may still read the
 * holder's row, which names it (pid, host, start time) in the refusal, but none may begin
 * writing. The operator tools do not take it: they run beside a server on purpose.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ConfigurationError } from './engines';

export interface DataDirLock {
  release(): void;
}

interface Holder {
  pid: number;
  host: string;
  since: string;
  token: string;
}

const isBusy = (err: unknown) => /^SQLITE_(BUSY|LOCKED)/.test(String((err as { code?: unknown } | null)?.code ?? ''));

export function lockDataDirectory(dataDir: string): DataDirLock {
  const me: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString(), token: randomBytes(16).toString('hex') };
  const db = new Database(join(dataDir, 'server.lock'), { timeout: 0 });
  // A start racing another for the lock may find the row not yet its own: a few tries settle it.
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      db.exec('BEGIN IMMEDIATE');
      db.exec('CREATE TABLE IF NOT EXISTS holder (id INTEGER PRIMARY KEY CHECK (id = 1), pid INTEGER, host TEXT, since TEXT, token TEXT)');
      db.prepare('INSERT OR REPLACE INTO holder (id, pid, host, since, token) VALUES (1, @pid, @host, @since, @token)').run(me);
      db.exec('COMMIT');
      // Held from here until the process ends or releases it; nothing is ever written under it.
      db.exec('BEGIN IMMEDIATE');
      if (holderOf(db)?.token === me.token) {
        return {
          release: () => {
            if (!db.open) return;
            db.exec('ROLLBACK');
            db.close();
          },
        };
      }
      db.exec('ROLLBACK'); // another start wrote its row between our two transactions
    } catch (err) {
      if (db.inTransaction) db.exec('ROLLBACK');
      if (!isBusy(err)) {
        db.close();
        throw err;
      }
      const holder = holderOf(db);
      if (holder && holder.token !== me.token) {
        db.close();
        throw new ConfigurationError(
          `data directory ${dataDir} is in use by another server (pid ${holder.pid} on ${holder.host}, started ${holder.since}): stop that server first, or set TEAMCHAT_DATA_DIR to another directory`,
        );
      }
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5 + attempt * 5);
  }
  db.close();
  throw new ConfigurationError(`data directory ${dataDir}: could not take its lock (server.lock): another server keeps starting on it`);
}

function holderOf(db: Database.Database): Holder | undefined {
  try {
    return db.prepare('SELECT pid, host, since, token FROM holder WHERE id = 1').get() as Holder | undefined;
  } catch {
    return undefined; // no table yet: the other start has not written its row
  }
}
