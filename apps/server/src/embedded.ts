/**
 * The embedded mode: every service and the gateway in one process, over the in-process
 * bus, with one SQLite event store file and one read-model file per service, all under
 * the data directory. Restarting resumes each projector from its checkpoint.
 */
import { join } from 'node:path';
import { startAccountsService } from '@teamchat/accounts';
import { startChannelsService } from '@teamchat/channels';
import { startEventsService } from '@teamchat/events';
import { buildGateway } from '@teamchat/gateway';
import { startMessagingService } from '@teamchat/messaging';
import {
  InProcessBus,
  READ_MODEL_COMMIT_WITHIN_MS,
  SqliteEventStore,
  SqliteReadModelStore,
  type RunningService,
  type ServerConfig,
  type ServiceDeps,
} from '@teamchat/platform';
import type { Logger } from 'pino';
import { seedDevelopmentOrganization } from './seed';

export interface EmbeddedServer {
  url: string;
  bus: InProcessBus;
  stop(): Promise<void>;
}

const services: [string, (deps: ServiceDeps) => Promise<RunningService>][] = [
  ['accounts', startAccountsService],
  ['channels', startChannelsService],
  ['messaging', startMessagingService],
  ['events', startEventsService],
];

/** Starts the services (no HTTP): used by the server and the command-line tool. */
export async function startEmbeddedServices(config: ServerConfig, log: Logger) {
  // Nothing crosses a wire in one process: allow the largest GET /messages (5000
  // messages of maximum length) rather than NATS's default 1 MiB, and hand replies over
  // without a JSON copy (every endpoint builds a fresh reply; requests are still copied).
  const bus = new InProcessBus({ maxPayload: 256 * 1024 * 1024, copyReplies: false });
  const store = SqliteEventStore.open(join(config.dataDir, 'events.sqlite'), { backgroundCheckpoints: true });
  const stores: SqliteReadModelStore[] = [];
  const running: RunningService[] = [];
  for (const [name, start] of services) {
    const readModels = SqliteReadModelStore.open(join(config.dataDir, `${name}.read-models.sqlite`), {
      backgroundCheckpoints: true,
      commitWithinMs: READ_MODEL_COMMIT_WITHIN_MS,
    });
    stores.push(readModels);
    running.push(await start({ store, readModels, bus, log: log.child({ service: name }), config }));
  }
  return {
    bus,
    async stop() {
      for (const service of running.reverse()) await service.stop();
      await bus.close();
      await store.close();
      for (const readModels of stores) await readModels.close();
    },
  };
}

export async function startEmbeddedServer(
  config: ServerConfig,
  log: Logger,
  listen: { host: string; port: number },
): Promise<EmbeddedServer> {
  const services = await startEmbeddedServices(config, log);
  if (config.mode === 'development') await seedDevelopmentOrganization(services.bus);
  const app = await buildGateway({ bus: services.bus, log: log.child({ service: 'gateway' }), heartbeatSeconds: config.heartbeatSeconds });
  const url = await app.listen(listen);
  return {
    url,
    bus: services.bus,
    async stop() {
      await app.close();
      await services.stop();
    },
  };
}
