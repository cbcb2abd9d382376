/**
 * The embedded mode: every service and the gateway in one process, with one SQLite event
 * store file and one read-model file per service, all under the data directory.
 * Restarting resumes each projector from its checkpoint.
 *
 * Messaging, the service that does most of the work of sending and reading messages,
 * runs on a worker thread so that the process uses two cores: the main thread serves
 * HTTP and the other services. The threads share the in-process bus (through a
 * PortBus) and the event store file (each with its own connection, as the processes of
 * the distributed mode do, and told of each other's appends over the bus).
 */
import { join } from 'node:path';
import { MessageChannel, Worker } from 'node:worker_threads';
import { buildGateway } from '@teamchat/gateway';
import {
  InProcessBus,
  NotifyingEventStore,
  bridgePort,
  openEventStore,
  openReadModels,
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
  bus: InProcessBus;
  stop(): Promise<void>;
}

/** The services that get a thread of their own. */
const THREADED: ReadonlySet<ServiceName> = new Set(['messaging']);

/**
 * The compiled worker script. Tests run this module from its TypeScript source; the
 * thread runs the output of `tsc -b` in either case.
 */
const SERVICE_THREAD_SCRIPT = join(__dirname, '..', 'dist', 'service-thread.js');

/** Starts the services (no HTTP): used by the server and the command-line tool. */
export async function startEmbeddedServices(config: ServerConfig, log: Logger) {
  // Nothing crosses a wire in one process: allow the largest GET /messages (5000
  // messages of maximum length) rather than NATS's default 1 MiB, and hand replies over
  // without a JSON copy (every endpoint builds a fresh reply; requests are still copied).
  const bus = new InProcessBus({ maxPayload: 256 * 1024 * 1024, copyReplies: false });
  const store = await NotifyingEventStore.wrap(openEventStore(config), bus);
  const stores: SqliteReadModelStore[] = [];
  const running: RunningService[] = [];
  const names = Object.keys(SERVICES) as ServiceName[];
  // Threads boot (load their modules, catch up) while the main thread's services do.
  const threads = names.filter((name) => THREADED.has(name)).map((name) => startServiceThread(name, bus, config, log));
  let failure: unknown;
  try {
    for (const name of names.filter((n) => !THREADED.has(n))) {
      const readModels = openReadModels(config, name);
      stores.push(readModels);
      running.push(await SERVICES[name]({ store, readModels, bus, log: log.child({ service: name }), config }));
    }
  } catch (err) {
    failure = err;
  }
  // Every thread is waited for, even after a failure here: one that started must be stopped too.
  for (const outcome of await Promise.allSettled(threads)) {
    if (outcome.status === 'fulfilled') running.push(outcome.value);
    else failure ??= outcome.reason;
  }
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
  return { bus, stop: stopAll };
}

/** Runs one service on a worker thread (see service-thread.ts); resolves once it serves. */
function startServiceThread(service: ServiceName, hub: InProcessBus, config: ServerConfig, log: Logger): Promise<RunningService> {
  const { port1, port2 } = new MessageChannel();
  const bridge = bridgePort(hub, port1);
  const data: ServiceThreadData = { service, config, logLevel: log.level, busPort: port2, maxPayload: hub.maxPayload };
  const worker = new Worker(SERVICE_THREAD_SCRIPT, { workerData: data, transferList: [port2] });
  return new Promise((resolve, reject) => {
    let ready = false;
    let exited = false;
    let stopping = false;
    let stopped: (() => void) | undefined;
    let failed = false;
    // Requests to a thread that is gone fail at once (no responders) instead of timing out.
    const lost = (err: Error) => {
      if (failed) return; // an 'error' is followed by an 'exit'
      failed = true;
      log.fatal({ err, service }, `the ${service} thread failed`);
      void bridge.close();
      if (!ready) reject(err);
    };
    worker.on('error', lost);
    worker.once('exit', (code) => {
      exited = true;
      stopped?.();
      if (!stopping) lost(new Error(`the ${service} thread exited (${code})${ready ? '' : ' before serving'}`));
    });
    worker.on('message', (message) => {
      if (message === 'stopped') return stopped?.();
      if (message !== 'ready') return;
      ready = true;
      resolve({
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
