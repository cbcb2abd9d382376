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
import { dataDirectoryError, loadConfig, loadSettings, prepareDataDirectory, type ServerConfig, type ServerSettings } from './config';
import type { RunningService, ServiceDeps } from './context';
import { announcePresence, claimStoreMode, refuseDuplicateInstance } from './deployment';
import { watchEngine, outageLength, type EngineWatch } from './engine-watch';
import { ConfigurationError, loadEngineSettings, maskUrl, reach, type EngineSettings } from './engines';
import { catchUpHeapGrowth, steadyHeapGrowth } from './heap';
import { createLogger } from './logger';
import { createMailer, describeMailTransport } from './mail';
import { NotifyingEventStore } from './notifying-store';
import { openEventStore, openReadModels } from './storage';

/** Closes what was opened so far when a later engine fails at start. */
type Closer = () => Promise<void>;

/** With `log`, the loss and return of nats-server are logged once each (see NatsBus). */
export async function connectBus(settings: EngineSettings, name: string, log?: Logger): Promise<NatsBus> {
  const where = maskUrl(settings.natsUrl);
  const onConnectionChange = log
    ? (change: { up: false } | { up: true; outageMs: number }) => {
        if (!change.up) log.warn({ engine: 'NATS', url: where }, `lost the connection to NATS at ${where}: bus requests answer 503 until it is back`);
        else log.info({ engine: 'NATS', url: where, outage_ms: change.outageMs }, `NATS at ${where} is back after ${outageLength(change.outageMs)}`);
      }
    : undefined;
  return reach('NATS', settings.natsUrl, () => NatsBus.connect(settings.natsUrl, name, { onConnectionChange }));
}

async function openStore(settings: EngineSettings, config: ReturnType<typeof loadConfig>, bus: Bus, log: Logger): Promise<EventStore> {
  const chosen = settings.eventStore;
  if (chosen.kind === 'sqlite') return NotifyingEventStore.wrap(openEventStore(config, chosen.file), bus);
  const store = new EsdbEventStore(connectEsdb(chosen.url), {
    // The outage itself is logged once by the engine watch; each retry only at debug level.
    onReconnect: (err, attempt) =>
      log[attempt === 1 ? 'warn' : 'debug']({ attempt, reason: maskUrl((err as Error)?.message ?? '') }, `EventStoreDB subscription lost (${maskUrl(chosen.url)}); subscribing again`),
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
  process.stderr.write(`${name}: cannot start: ${describeStartupFailure(err)}\n`);
  process.exit(1);
}

/**
 * One line: the operator's fix for a known cause; for anything else (a bug) its first line,
 * and the stack trace only when LOG_LEVEL=debug asks for it.
 */
export function describeStartupFailure(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  const message = err instanceof Error ? err.message : String(err);
  const firstLine = message.split('\n')[0] ?? message;
  if (code === 'CONFIGURATION' || code === 'ENGINE_UNAVAILABLE') return firstLine;
  if (['debug', 'trace'].includes(process.env.LOG_LEVEL ?? '') && err instanceof Error && err.stack) return err.stack;
  return `${firstLine} (unexpected: LOG_LEVEL=debug shows the stack trace)`;
}

/** loadConfig's refusals name their variable already: they are configuration errors, not bugs. */
export function loadConfigOrExplain(): ReturnType<typeof loadConfig> {
  return prepareDataDirectoryOrExplain(loadSettingsOrExplain());
}

/** Every setting checked, nothing written yet (see loadSettings). */
export function loadSettingsOrExplain(env: NodeJS.ProcessEnv = process.env): ServerSettings {
  try {
    return loadSettings(env);
  } catch (err) {
    throw new ConfigurationError((err as Error).message);
  }
}

export function prepareDataDirectoryOrExplain(settings: ServerSettings): ServerConfig {
  try {
    return prepareDataDirectory(settings);
  } catch (err) {
    throw dataDirectoryError(settings.dataDir, err);
  }
}

/** How a store is named to the operator: its file, or its engine's URL without a password. */
export function describeStore(settings: EngineSettings | undefined, config: Pick<ServerConfig, 'dataDir'>): string {
  const chosen = settings?.eventStore;
  if (chosen?.kind === 'eventstoredb') return `the EventStoreDB store at ${maskUrl(chosen.url)}`;
  if (chosen?.kind === 'sqlite' && chosen.file) return `the event store ${chosen.file}`;
  return `the data directory ${config.dataDir}`;
}

/** Mail that only lands in the outbox of a production server reaches nobody: say so once, at start. */
export function warnIfMailGoesNowhere(config: ServerConfig, log: Logger): void {
  if (config.mode === 'production' && config.mail.transport.kind === 'outbox') {
    log.warn({ mail: describeMailTransport(config.mail) }, 'TEAMCHAT_SMTP_HOST is not set: emails are written to the outbox, not delivered');
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

export async function runServiceProcess(
  name: string,
  start: (deps: ServiceDeps) => Promise<RunningService>,
  options: { sendsMail?: boolean } = {},
): Promise<void> {
  // Lean while the service catches up with the store, steady once it serves (heap.ts).
  catchUpHeapGrowth();
  const closers: Closer[] = [];
  const watches: EngineWatch[] = [];
  let log!: Logger;
  let deps: ServiceDeps;
  let service: RunningService;
  try {
    // Every setting is checked before anything is written or connected.
    log = createLogger(name);
    const settings = loadSettingsOrExplain();
    const engines = loadEngineSettings(name);
    const config = prepareDataDirectoryOrExplain(settings);
    const bus = await connectBus(engines, name, log);
    closers.push(() => bus.close());
    await refuseDuplicateInstance(bus, name, engines.instance);
    const store = await openStore(engines, config, bus, log);
    closers.push(() => store.close());
    await claimStoreMode(store, config.mode, describeStore(engines, config), log);
    const readModels = await openModels(engines, config, name);
    closers.push(() => readModels.close());
    if (engines.eventStore.kind === 'eventstoredb') watches.push(watchEngine('EventStoreDB', engines.eventStore.url, () => store.headPosition(), log));
    if (engines.readModels.kind === 'mongodb') watches.push(watchEngine('MongoDB', engines.readModels.url, () => readModels.getCheckpoint('engine-watch'), log));
    if (options.sendsMail) warnIfMailGoesNowhere(config, log);
    deps = { store, readModels, bus, log, config, mailer: createMailer(config.mail, log), instance: engines.instance };
    service = await start(deps);
    steadyHeapGrowth();
    await announcePresence(bus, name, engines.instance, config.mode);
  } catch (err) {
    for (const watch of watches) watch.stop();
    for (const close of closers.reverse()) await close().catch(() => undefined);
    exitOnStartupFailure(name, err);
  }
  log.info({ instance: deps.instance }, `${name} service ready`);
  // Parent processes (tests, supervisors) wait for this line on stdout.
  process.stdout.write(`READY ${name}\n`);
  const health = keepHealthFile(process.env.TEAMCHAT_HEALTH_FILE);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    clearInterval(health);
    for (const watch of watches) watch.stop();
    await service.stop();
    await deps.bus.close();
    await deps.store.close();
    await deps.readModels.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}
