/**
 * The gateway as its own process (distributed mode).
 *   NATS_URL   the bus; HOST, PORT   where to listen (default 127.0.0.1:9991)
 *   In development mode with the outbox, GET /emails lists the outbox of TEAMCHAT_DATA_DIR:
 *   the services that send mail must share that directory to appear there.
 *   TEAMCHAT_MONGODB_URL   where uploaded files go (GridFS); absent: <data dir>/uploads
 *
 * Its start refuses in one line: a bad setting, a port it cannot bind (checked before it
 * writes anything), another gateway answering under its TEAMCHAT_INSTANCE, or services of
 * the other mode (a development gateway would show a production outbox at /emails).
 */
import {
  announcePresence,
  checkDeploymentMode,
  connectBus,
  createLogger,
  developmentOutboxDir,
  exitOnStartupFailure,
  listenError,
  loadEngineSettings,
  loadSettingsOrExplain,
  maskUrl,
  openBlobStore,
  prepareDataDirectoryOrExplain,
  refuseDuplicateInstance,
  reservePort,
  steadyHeapGrowth,
} from '@teamchat/platform';
import { buildGateway } from './server';

async function main() {
  steadyHeapGrowth();
  const log = createLogger('gateway');
  const settings = loadSettingsOrExplain();
  const engines = loadEngineSettings('gateway');
  const port = await reservePort(settings.listen);
  const config = prepareDataDirectoryOrExplain(settings);
  const bus = await connectBus(engines, 'gateway', log);
  await refuseDuplicateInstance(bus, 'gateway', engines.instance);
  // The services check the store's mode; the gateway checks theirs (waiting for them a minute at most).
  await checkDeploymentMode(bus, config.mode, maskUrl(engines.natsUrl), 60_000, log);
  // GridFS where the read models are in MongoDB, else the data directory (shared by the processes of one machine).
  const blobs = await openBlobStore(config.dataDir);
  const app = await buildGateway({
    bus,
    log,
    heartbeatSeconds: config.heartbeatSeconds,
    checkReplies: config.checkReplies,
    http: config.http,
    sharedWrites: true,
    outboxDir: developmentOutboxDir(config),
    blobs,
    uploads: config.uploads,
    realmUri: config.realmUri,
    webClientDir: config.webClientDir,
  });
  await port.release();
  const address = await app.listen(port.listen).catch((err: unknown) => {
    throw listenError(port.listen, err);
  });
  await announcePresence(bus, 'gateway', engines.instance, config.mode);
  process.stdout.write(`READY gateway ${address}\n`);
  const stop = async () => {
    await app.close();
    await bus.close();
    await blobs.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((err: unknown) => exitOnStartupFailure('gateway', err));
