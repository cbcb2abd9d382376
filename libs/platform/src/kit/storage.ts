/**
 * Where a service's SQLite files live and how they are opened, the same in every mode
 * (embedded threads, distributed processes): one event store file shared by every
 * service, one read-model file per service, both checkpointed in the background.
 * A caller may name other files (the distributed processes take TEAMCHAT_EVENT_STORE
 * and TEAMCHAT_READ_MODELS).
 */
import { join } from 'node:path';
import { SqliteEventStore } from '../adapters/sqlite-event-store';
import { READ_MODEL_COMMIT_WITHIN_MS, SqliteReadModelStore } from '../adapters/sqlite-read-models';
import type { ServerConfig } from './config';

/**
 * How often an embedded server's threads look for facts another process appended to
 * their file (the command-line tools). Their own threads' appends reach them through the
 * in-process bus, which loses nothing, so the poll is only for those; the distributed
 * processes, whose NATS notices may be lost, keep the event store's default (25 ms).
 * Polling that often kept an idle embedded server's threads waking 80 times a second.
 */
export const EMBEDDED_FOREIGN_POLL_MS = 1000;

/**
 * `syncLoneInline`: for a thread or process that serves one service (see WalSync), where
 * a lone append's fsync on the thread itself blocks nobody else's HTTP. `pollIntervalMs`:
 * see SqliteEventStoreOptions (EMBEDDED_FOREIGN_POLL_MS in the embedded server).
 */
export function openEventStore(
  config: ServerConfig,
  file = join(config.dataDir, 'events.sqlite'),
  options: { syncLoneInline?: boolean; pollIntervalMs?: number } = {},
): SqliteEventStore {
  return SqliteEventStore.open(file, { backgroundCheckpoints: true, ...options });
}

export function openReadModels(
  config: ServerConfig,
  service: string,
  file = join(config.dataDir, `${service}.read-models.sqlite`),
): SqliteReadModelStore {
  return SqliteReadModelStore.open(file, { backgroundCheckpoints: true, commitWithinMs: READ_MODEL_COMMIT_WITHIN_MS });
}
