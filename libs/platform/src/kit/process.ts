/**
 * Entry point of one service as its own process (distributed mode): adapters chosen by
 * the environment (see engines.ts: NATS, EventStoreDB or the shared SQLite file, MongoDB
 * or this instance's SQLite file), the service, and a clean stop on SIGTERM/SIGINT.
 */
import { writeFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { connectEsdb } from '../adapters/esdb-client';
import { EsdbEventStore } from '../adapters/esdb-event-store';
import { MongoReadModelStore } from '../adapters/mongo-read-models';
import { NatsBus } from '../adapters/nats-bus';
import type { Bus } from '../ports/bus';
import type { EventStore } from '../ports/event-store';
import type { ReadModelStore } from '../ports/read-models';
import { loadConfig } from './config';
import type { RunningService, ServiceDeps } from './context';
import { ConfigurationError, loadEngineSettings, maskUrl, reach, type EngineSettings } from './engines';
import { steadyHeapGrowth } from './heap';
import { createLogger } from './logger';
import { createMailer } from './mail';
import { NotifyingEventStore } from './notifying-store';
import { openEventStore, openReadModels } from './storage';

/** Closes what was opened so far when a later engine fails at start. */
type Closer = () => Promise<void>;

export async function connectBus(settings: EngineSettings, name: string): Promise<NatsBus> {
  return reach('NATS', settings.natsUrl, () => NatsBus.connect(settings.natsUrl, name));
}

async function openStore(settings: EngineSettings, config: ReturnType<typeof loadConfig>, bus: Bus, log: Logger): Promise<EventStore> {
  const chosen = settings.eventStore;
  if (chosen.kind === 'sqlite') return NotifyingEventStore.wrap(openEventStore(config, chosen.file), bus);
  const store = new EsdbEventStore(connectEsdb(chosen.url), {
    onReconnect: (err, attempt) =>
      log.warn({ attempt, reason: (err as Error)?.message }, `EventStoreDB subscription lost (${maskUrl(chosen.url)}); subscribing again`),
  });
  try {
    // The client connects lazily: one read shows whether the engine answers.
    await reach('EventStoreDB', chosen.url, () => store.headPosition());
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}

async function openModels(settings: EngineSettings, config: ReturnType<typeof loadConfig>, name: string): Promise<ReadModelStore> {
  const chosen = settings.readModels;
  if (chosen.kind === 'sqlite') return openReadModels(config, name, chosen.file);
  return reach('MongoDB', chosen.url, () => MongoReadModelStore.connect(chosen.url, chosen.database, { transactions: chosen.transactions }));
}

/**
 * Reports a failed start in one line and exits: a configuration error or an engine that
 * does not answer says which and where; anything else is a bug and keeps its stack.
 */
export function exitOnStartupFailure(name: string, err: unknown): never {
  const code = (err as { code?: unknown } | null)?.code;
  const known = code === 'CONFIGURATION' || code === 'ENGINE_UNAVAILABLE';
  process.stderr.write(`${name}: cannot start: ${known ? (err as Error).message : err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
}

/** loadConfig's refusals name their variable already: they are configuration errors, not bugs. */
export function loadConfigOrExplain(): ReturnType<typeof loadConfig> {
  try {
    return loadConfig();
  } catch (err) {
    throw new ConfigurationError((err as Error).message);
  }
}

/**
 * For container health checks (docker-compose.yml): the file's modification time is
 * renewed every 5 s while the process runs and its event loop turns.
 */
function keepHealthFile(file: string | undefined): NodeJS.Timeout | undefined {
  if (!file) return undefined;
  const touch = () => {
    try {
      writeFileSync(file, `${Date.now()}\n`);
    } catch {
      // An unwritable path only makes the container report itself unhealthy.
    }
  };
  touch();
  const timer = setInterval(touch, 5000);
  timer.unref();
  return timer;
}

export async function runServiceProcess(name: string, start: (deps: ServiceDeps) => Promise<RunningService>): Promise<void> {
  steadyHeapGrowth();
  const log: Logger = createLogger(name);
  const closers: Closer[] = [];
  let deps: ServiceDeps;
  let service: RunningService;
  try {
    const config = loadConfigOrExplain();
    const settings = loadEngineSettings(name);
    const bus = await connectBus(settings, name);
    closers.push(() => bus.close());
    const store = await openStore(settings, config, bus, log);
    closers.push(() => store.close());
    const readModels = await openModels(settings, config, name);
    closers.push(() => readModels.close());
    deps = { store, readModels, bus, log, config, mailer: createMailer(config.mail, log), instance: settings.instance };
    service = await start(deps);
  } catch (err) {
    for (const close of closers.reverse()) await close().catch(() => undefined);
    exitOnStartupFailure(name, err);
  }
  log.info({ pid: process.pid }, `${name} service ready`);
  // Parent processes (tests, supervisors) wait for this line on stdout.
  process.stdout.write(`READY ${name}\n`);
  const health = keepHealthFile(process.env.TEAMCHAT_HEALTH_FILE);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(health);
    await service.stop();
    await deps.bus.close();
    await deps.store.close();
    await deps.readModels.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}
