/**
 * Where a service's SQLite files live and how they are opened, the same in every mode
 * (embedded threads, distributed processes): one event store file shared by every
 * service, one read-model file per service, both checkpointed in the background.
 * A caller may name other files (the distributed processes take TEAMCHAT_EVENT_STORE
 * and TEAMCHAT_READ_MODELS).
 */
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { SqliteEventStore } from '../adapters/sqlite-event-store';
import { READ_MODEL_COMMIT_WITHIN_MS, SqliteReadModelStore } from '../adapters/sqlite-read-models';
import type { ServerConfig } from './config';

/**
 * `syncLoneInline`: for a thread or process that serves one service (see WalSync), where
 * a lone append's fsync on the thread itself blocks nobody else's HTTP.
 *
 * The embedded server's threads poll for other processes' appends at the store's default
 * 25 ms too, although their notices to each other cannot be lost: polling every second
 * halved an idle server's CPU, but the delivery bench's p99 rose by 9–12 ms in 4 of 4
 * interleaved pairs on the development VM (its CPUs idled deeper between messages).
 */
export function openEventStore(
  config: ServerConfig,
  file = join(config.dataDir, 'events.sqlite'),
  options: { syncLoneInline?: boolean } = {},
): SqliteEventStore {
  return SqliteEventStore.open(privateFile(file), { backgroundCheckpoints: true, ...options });
}

export function openReadModels(
  config: ServerConfig,
  service: string,
  file = join(config.dataDir, `${service}.read-models.sqlite`),
): SqliteReadModelStore {
  return SqliteReadModelStore.open(privateFile(file), { backgroundCheckpoints: true, commitWithinMs: READ_MODEL_COMMIT_WITHIN_MS });
}

/**
 * SQLite creates a database file 0644 less the umask, and its -wal and -shm files with the
 * database file's own mode: creating the (empty, hence valid) database file 0600 first keeps
 * all three private even in a process whose umask was never narrowed (see data-dir.ts). An
 * existing file is left as it is.
 */
function privateFile(file: string): string {
  if (file !== ':memory:' && !file.startsWith('file:')) closeSync(openSync(file, 'a', 0o600));
  return file;
}
