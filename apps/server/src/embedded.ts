/**
 * The embedded mode: every service and the gateway in one process, with one SQLite event
 * store file and one read-model file per service, all under the data directory.
 * Restarting resumes each projector from its checkpoint.
 *
 * Messaging, the service that does most of the work of sending and reading messages,
 * runs on a worker thread so that the process uses two cores: the main thread serves
 * HTTP and the other services. The threads share the in-process bus (through a
 * PortBus) and the event store file (each with its own connection, as the processes of
 * the distributed mode do, and told of each other's appends over the bus). A thread that
 * is lost is started again (superviseServiceThread).
 */
import { join } from 'node:path';
import { MessageChannel, Worker, type ResourceLimits } from 'node:worker_threads';
import { buildGateway } from '@teamchat/gateway';
import {
  DirectoryBlobStore,
  InProcessBus,
  NotifyingEventStore,
  bridgePort,
  claimStoreMode,
  createMailer,
  dataDirectoryError,
  developmentOutboxDir,
  listenError,
  lockDataDirectory,
  openEventStore,
  openReadModels,
  reservePort,
  catchUpHeapGrowth,
  steadyHeapGrowth,
  withListeningAddress,
  type DataDirLock,
  type ListenSettings,
  type PortReservation,
  type RunningService,
  type ServerConfig,
  type SqliteReadModelStore,
} from '@teamchat/platform';
import type { Logger } from 'pino';
import { seedDevelopmentOrganization } from './seed';
import type { ServiceThreadData } from './service-thread';
import { SERVICES, type ServiceName } from './services';

export interface EmbeddedServer {
  url: string;
  /** The organization's address (TEAMCHAT_REALM_URI, or the listening address in development). */
  realmUri: string;
  bus: InProcessBus;
  /** The services running on threads of their own. */
  threads: readonly ServiceThread[];
  stop(): Promise<void>;
}

/** The services that get a thread of their own. */
const THREADED: ReadonlySet<ServiceName> = new Set(['messaging']);

/**
 * The compiled worker script. Tests run this module from its TypeScript source; the
 * thread runs the output of `tsc -b` in either case.
 */
const SERVICE_THREAD_SCRIPT = join(__dirname, '..', 'dist', 'service-thread.js');

/**
 * The young generation a service thread's heap may grow to: 192 MB, semi-spaces of 64 MB
 * (V8's default for a thread is 16). Why: messaging's answer to a registration builds
 * tens of megabytes of objects that live until it is written (50,000 unread ids grouped
 * by topic), so with the default most of them outlived two scavenges, were promoted, and
 * the thread ran a full collection every ten registrations. Measured on the
 * 1,000,000-message store, 200 registrations of the 50,000-unread reader, interleaved:
 * the thread's scavenges 200 → 73–79, its full collections 20–21 → 4, its collector time
 * 1.42–1.57 s → 0.49–0.55 s, and the registration's p50 103 → 87 ms and 121 → 105 ms.
 * V8 grows the space only while survivors need it, so a small server's thread stays
 * small. The main thread's size can only be set by a flag at launch, and a larger one
 * did not change its collections (measured the same way), so it keeps the default.
 */
const SERVICE_THREAD_YOUNG_GENERATION_MB = 192;

/**
 * Starts the services (no HTTP): used by the server and the command-line tool.
 * `beforeServices` runs once the bus and the store are open, before any service starts
 * (the server's HTTP listener); `ready` is told of each service once it serves.
 */
export async function startEmbeddedServices(
  config: ServerConfig,
  log: Logger,
  hooks: { beforeServices?: (bus: InProcessBus) => Promise<void>; ready?: (service: ServiceName) => void } = {},
) {
  // The one process of the embedded mode (its threads share the setting): lean while
  // the services catch up, steady once they all serve (heap.ts).
  catchUpHeapGrowth();
  // Nothing crosses a wire in one process: allow the largest GET /messages (5000
  // messages of maximum length) rather than NATS's default 1 MiB, and hand replies over
  // without a JSON copy (every endpoint builds a fresh reply; requests are still copied).
  const bus = new InProcessBus({ maxPayload: 256 * 1024 * 1024, copyReplies: false });
  const store = await NotifyingEventStore.wrap(openEventStore(config), bus, { sharesRows: true });
  // Before any service writes: a store of the other mode is refused (deployment.ts).
  try {
    await claimStoreMode(store, config.mode, `the data directory ${config.dataDir}`, log);
  } catch (err) {
    await store.close();
    await bus.close();
    throw err;
  }
  try {
    await hooks.beforeServices?.(bus);
  } catch (err) {
    await store.close();
    await bus.close();
    throw err;
  }
  const stores: SqliteReadModelStore[] = [];
  const running: RunningService[] = [];
  // One mailer for the main thread's services (a thread builds its own from the same settings).
  const mailer = createMailer(config.mail, log);
  const names = Object.keys(SERVICES) as ServiceName[];
  // Threads boot (load their modules, catch up) while the main thread's services do.
  const starting = names
    .filter((name) => THREADED.has(name))
    .map((name) =>
      superviseServiceThread(name, bus, config, log).then((thread) => {
        hooks.ready?.(name);
        return thread;
      }),
    );
  let failure: unknown;
  try {
    for (const name of names.filter((n) => !THREADED.has(n))) {
      const readModels = openReadModels(config, name);
      stores.push(readModels);
      running.push(await SERVICES[name]({ store, readModels, bus, log: log.child({ service: name }), config, mailer }));
      hooks.ready?.(name);
    }
  } catch (err) {
    failure = err;
  }
  // Every thread is waited for, even after a failure here: one that started must be stopped too.
  const threads: ServiceThread[] = [];
  for (const outcome of await Promise.allSettled(starting)) {
    if (outcome.status === 'fulfilled') {
      running.push(outcome.value);
      threads.push(outcome.value);
    } else failure ??= outcome.reason;
  }
  steadyHeapGrowth();
  if (failure !== undefined) {
    await stopAll();
    throw failure;
  }

  async function stopAll() {
    for (const service of running.reverse()) await service.stop();
    await bus.close();
    await store.close();
    for (const readModels of stores) await readModels.close();
  }
  return { bus, threads, stop: stopAll };
}

/** A service's thread, started again whenever it is lost (see superviseServiceThread). */
export interface ServiceThread {
  readonly service: ServiceName;
  /** How many times the thread has been started again after it was lost. */
  readonly restarts: number;
  /** Ends the current thread as a crash would, without stopping it (for tests and drills). */
  kill(): Promise<void>;
  /** The current thread's heap limits as V8 applies them (Worker#resourceLimits). */
  readonly resourceLimits: ResourceLimits;
}

/** A thread's first restart waits this long, each failed attempt twice as long, up to the maximum. */
const RESTART_DELAY_MS = 100;
const RESTART_DELAY_MAX_MS = 10_000;

/**
 * Runs a service on a worker thread and keeps it running: resolves once the first
 * thread serves (or rejects with why it could not), then starts a new thread whenever
 * one is lost (an uncaught error, an exit nobody asked for). Meanwhile the service's
 * endpoints answer 503 at once. Nothing is lost with a thread: what it had
 * acknowledged is in the event store, and the new one's projectors resume from their
 * checkpoints, as after a restart of the process.
 */
async function superviseServiceThread(
  service: ServiceName,
  hub: InProcessBus,
  config: ServerConfig,
  log: Logger,
): Promise<ServiceThread & RunningService> {
  let current = await runServiceThread(service, hub, config, log);
  let restarts = 0;
  let stopping = false;
  let restarting: Promise<void> | undefined;
  let cancelWait: (() => void) | undefined;
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      cancelWait = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function restart(): Promise<void> {
    for (let delay = RESTART_DELAY_MS; ; delay = Math.min(2 * delay, RESTART_DELAY_MAX_MS)) {
      await pause(delay);
      if (stopping) return;
      try {
        current = await runServiceThread(service, hub, config, log);
      } catch (err) {
        log.error({ err, service }, `the ${service} thread could not be started again; retrying`);
        continue;
      }
      restarts++;
      log.warn({ service, restarts }, `the ${service} thread is serving again`);
      watch(current);
      return;
    }
  }

  function watch(run: ThreadRun): void {
    void run.lost.then((err) => {
      if (stopping) return;
      log.error({ err, service }, `the ${service} thread was lost; starting a new one`);
      restarting = restart();
    });
  }
  watch(current);

  return {
    service,
    get restarts() {
      return restarts;
    },
    kill: () => current.kill(),
    get resourceLimits() {
      return current.resourceLimits;
    },
    async stop() {
      stopping = true;
      cancelWait?.();
      await restarting;
      await current.stop();
    },
  };
}

/** One thread of a service: `lost` settles if it ends without being asked to. */
interface ThreadRun extends RunningService {
  lost: Promise<Error>;
  kill(): Promise<void>;
  readonly resourceLimits: ResourceLimits;
}

/** Starts one service on a worker thread (see service-thread.ts); resolves once it serves. */
function runServiceThread(service: ServiceName, hub: InProcessBus, config: ServerConfig, log: Logger): Promise<ThreadRun> {
  const { port1, port2 } = new MessageChannel();
  const bridge = bridgePort(hub, port1);
  const data: ServiceThreadData = { service, config, logLevel: log.level, busPort: port2, maxPayload: hub.maxPayload };
  const worker = new Worker(SERVICE_THREAD_SCRIPT, { workerData: data, transferList: [port2], resourceLimits: { maxYoungGenerationSizeMb: SERVICE_THREAD_YOUNG_GENERATION_MB } });
  let reportLoss: (err: Error) => void = () => undefined;
  const lost = new Promise<Error>((resolve) => (reportLoss = resolve));
  return new Promise((resolve, reject) => {
    let ready = false;
    let exited = false;
    let stopping = false;
    let stopped: (() => void) | undefined;
    let failed = false;
    // Requests to a thread that is gone fail at once (no responders) instead of timing out.
    const fail = (err: Error) => {
      if (failed) return; // an 'error' is followed by an 'exit'
      failed = true;
      void bridge.close();
      if (ready) reportLoss(err);
      else reject(err);
    };
    worker.on('error', fail);
    worker.once('exit', (code) => {
      exited = true;
      stopped?.();
      if (!stopping) fail(new Error(`the ${service} thread exited (${code})${ready ? '' : ' before serving'}`));
    });
    worker.on('message', (message) => {
      if (message === 'stopped') return stopped?.();
      if (message !== 'ready') return;
      ready = true;
      resolve({
        lost,
        get resourceLimits() {
          return worker.resourceLimits ?? {};
        },
        async kill() {
          await worker.terminate();
        },
        async stop() {
          stopping = true;
          if (!exited) {
            await new Promise<void>((done) => {
              stopped = done;
              worker.postMessage('stop');
            });
          }
          // Everything of the thread is closed by now; end it even if a handle lingers.
          await worker.terminate();
          await bridge.close();
        },
      });
    });
  });
}

/**
 * `listen`: an address to bind, or a port the caller bound already (main.ts binds it before
 * it writes anything). The port is held while the services start and handed to the HTTP
 * server at the end; a realm address derived from the listening address takes the port
 * actually bound (PORT=0).
 */
export async function startEmbeddedServer(
  config: ServerConfig,
  log: Logger,
  listen: ListenSettings | PortReservation,
  /** Told the address once the server listens, before its services are ready (see below). */
  onListening?: (url: string) => void,
): Promise<EmbeddedServer> {
  const reservation = 'release' in listen ? listen : await reservePort(listen);
  config = withListeningAddress(config, reservation.listen);
  let lock: DataDirLock | undefined;
  let services: Awaited<ReturnType<typeof startEmbeddedServices>> | undefined;
  let app: Awaited<ReturnType<typeof buildGateway>> | undefined;
  // The listener comes up before the services catch up with the store (minutes for a
  // rebuild of a large one): meanwhile the server answers, with 503 for what is not ready
  // (GET /health and /health/ready say what).
  const serving = Object.fromEntries(Object.keys(SERVICES).map((name) => [name, false])) as Record<ServiceName, boolean>;
  try {
    // One server per data directory, taken before anything in it is opened for writing.
    try {
      lock = lockDataDirectory(config.dataDir);
    } catch (err) {
      throw dataDirectoryError(config.dataDir, err);
    }
    let url = '';
    services = await startEmbeddedServices(config, log, {
      ready: (name) => {
        serving[name] = true;
      },
      beforeServices: async (bus) => {
        // One process, one disk: the files are under the data directory.
        const blobs = new DirectoryBlobStore(join(config.dataDir, 'uploads'));
        app = await buildGateway({
          bus,
          log: log.child({ service: 'gateway' }),
          heartbeatSeconds: config.heartbeatSeconds,
          checkReplies: config.checkReplies,
          http: config.http,
          outboxDir: developmentOutboxDir(config),
          blobs,
          uploads: config.uploads,
          realmUri: config.realmUri,
          webClientDir: config.webClientDir,
          // The one gateway: a write is answered once durable, and every later request waits
          // for it (GatewayPeers), so no thread's reply waits for its read models.
          waitForEveryWrite: true,
          readiness: () => serving,
        });
        await reservation.release();
        const gateway = app;
        url = await gateway.listen({ host: reservation.listen.host, port: reservation.listen.port }).catch(async (err: unknown) => {
          await gateway.close();
          app = undefined;
          throw listenError(reservation.listen, err);
        });
        onListening?.(url);
      },
    });
    if (config.mode === 'development') await seedDevelopmentOrganization(services.bus);
    const running = services;
    const held = lock;
    const gateway = app!;
    return {
      url,
      realmUri: config.realmUri,
      bus: running.bus,
      threads: running.threads,
      async stop() {
        await gateway.close();
        await running.stop();
        held.release();
      },
    };
  } catch (err) {
    await reservation.release();
    await (app as Awaited<ReturnType<typeof buildGateway>> | undefined)?.close().catch(() => undefined);
    await services?.stop().catch(() => undefined);
    lock?.release();
    throw err;
  }
}
