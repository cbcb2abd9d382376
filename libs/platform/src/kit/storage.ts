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
 * `syncLoneInline`: for a thread or process that serves one service (see WalSync), where
 * a lone append's fsync on the thread itself blocks nobody else's HTTP.
 */
export function openEventStore(
  config: ServerConfig,
  file = join(config.dataDir, 'events.sqlite'),
  options: { syncLoneInline?: boolean } = {},
): SqliteEventStore {
  return SqliteEventStore.open(file, { backgroundCheckpoints: true, ...options });
}

export function openReadModels(
  config: ServerConfig,
  service: string,
  file = join(config.dataDir, `${service}.read-models.sqlite`),
): SqliteReadModelStore {
  return SqliteReadModelStore.open(file, { backgroundCheckpoints: READ_MODEL_CHECKPOINTS, commitWithinMs: READ_MODEL_COMMIT_WITHIN_MS });
}

/**
 * A server's read models under load write a few thousand WAL frames a second (messaging
 * about four per message), and the POST /messages tail at 32 connections followed their
 * checkpoints (stage trace, issue 18): every restart of the WAL (see sqlite-checkpointer)
 * holds the projectors back, and with them every send waiting to read its own write, for
 * a checkpoint and its two fsyncs (40-75 ms on a shared disk), and a restart came every
 * 1.5-2 s at the default 4,096 frames. So: restarts at 16,384 frames (a WAL of up to
 * 64 MiB, cut back to 4 MiB after each), and periodic checkpoints once 4,000 frames wait
 * rather than 1,000 (a page rewritten by many commits is copied once per checkpoint, so
 * fewer checkpoints also write less; the oldest frame still waits at most 2 s).
 */
const READ_MODEL_CHECKPOINTS = { minFrames: 4_000, restartFrames: 16_384 };
