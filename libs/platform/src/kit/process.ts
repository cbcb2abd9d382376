/**
 * Entry point of one service as its own process (distributed mode): adapters from the
 * environment, the service, and a clean stop on SIGTERM/SIGINT.
 *
 *   NATS_URL                 the bus (default nats://127.0.0.1:4222)
 *   TEAMCHAT_EVENT_STORE     the shared SQLite event store file (default <data>/events.sqlite)
 *   TEAMCHAT_READ_MODELS     this instance's read-model file (default <data>/<service>.read-models.sqlite;
 *                            give each instance of one service its own)
 */
import type { Logger } from 'pino';
import { NatsBus } from '../adapters/nats-bus';
import { loadConfig } from './config';
import type { RunningService, ServiceDeps } from './context';
import { createLogger } from './logger';
import { NotifyingEventStore } from './notifying-store';
import { openEventStore, openReadModels } from './storage';

export async function runServiceProcess(
  name: string,
  start: (deps: ServiceDeps) => Promise<RunningService>,
): Promise<void> {
  const log: Logger = createLogger(name);
  const config = loadConfig();
  const bus = await NatsBus.connect(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', name);
  const store = await NotifyingEventStore.wrap(openEventStore(config, process.env.TEAMCHAT_EVENT_STORE), bus);
  const readModels = openReadModels(config, name, process.env.TEAMCHAT_READ_MODELS);
  const service = await start({ store, readModels, bus, log, config });
  log.info({ pid: process.pid }, `${name} service ready`);
  // Parent processes (tests, supervisors) wait for this line on stdout.
  process.stdout.write(`READY ${name}\n`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await service.stop();
    await bus.close();
    await store.close();
    await readModels.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}
