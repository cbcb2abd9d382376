/**
 * A service on a worker thread of the embedded server (see embedded.ts): a core of its
 * own, its own connections to the event store and to its read-model file, and the main
 * thread's bus through a PortBus. The main thread sends one message, "stop"; the thread
 * answers "ready" once serving and "stopped" once everything is closed.
 */
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { NotifyingEventStore, PortBus, createMailer, openEventStore, openReadModels, type ServerConfig } from '@teamchat/platform';
import pino from 'pino';
import { SERVICES, type ServiceName } from './services';

export interface ServiceThreadData {
  service: ServiceName;
  config: ServerConfig;
  logLevel: string;
  busPort: MessagePort;
  maxPayload: number;
}

async function run(data: ServiceThreadData, control: MessagePort): Promise<void> {
  const log = pino({ name: 'teamchat', level: data.logLevel }).child({ service: data.service });
  // The embedded hub passes replies by value (see PortBus `carriesBytes`).
  const bus = new PortBus(data.busPort, data.maxPayload, { carriesBytes: true });
  // The thread serves one service and no HTTP: a lone send's fsync runs here, without
  // the thread pool's two wake-ups (see WalSync).
  const store = await NotifyingEventStore.wrap(openEventStore(data.config, undefined, { syncLoneInline: true }), bus, { sharesRows: true });
  const readModels = openReadModels(data.config, data.service);
  const mailer = createMailer(data.config.mail, log);
  const service = await SERVICES[data.service]({ store, readModels, bus, log, config: data.config, mailer });
  control.once('message', () => {
    void (async () => {
      await service.stop();
      await bus.close();
      await store.close();
      await readModels.close();
      control.postMessage('stopped');
      control.close();
    })();
  });
  control.postMessage('ready');
}

if (parentPort) {
  const control = parentPort;
  run(workerData as ServiceThreadData, control).catch((err: unknown) => {
    // Uncaught, it ends the thread with an 'error' event, which the main thread reports.
    // Node rebuilds only plain Errors on that side (a SqliteError would arrive as an
    // object with nothing but its code), so the error travels as one.
    const { message, stack, code } = err as { message?: string; stack?: string; code?: string };
    const plain = Object.assign(new Error(message ?? String(err)), code === undefined ? {} : { code });
    if (stack) plain.stack = stack;
    setImmediate(() => {
      throw plain;
    });
  });
}
