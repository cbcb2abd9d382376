import { join } from 'node:path';
import { READ_MODEL_COMMIT_WITHIN_MS, SqliteEventStore, SqliteReadModelStore, type ServerConfig } from '@teamchat/platform';

/** The one event store file every service of the data directory shares. */
export function openEventStore(config: ServerConfig): SqliteEventStore {
  return SqliteEventStore.open(join(config.dataDir, 'events.sqlite'), { backgroundCheckpoints: true });
}

/** One read-model file per service. */
export function openReadModels(config: ServerConfig, service: string): SqliteReadModelStore {
  return SqliteReadModelStore.open(join(config.dataDir, `${service}.read-models.sqlite`), {
    backgroundCheckpoints: true,
    commitWithinMs: READ_MODEL_COMMIT_WITHIN_MS,
  });
}
