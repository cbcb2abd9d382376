/**
 * The gateway as its own process (distributed mode).
 *   NATS_URL   the bus; HOST, PORT   where to listen (default 127.0.0.1:9991)
 *   In development mode with the outbox, GET /emails lists the outbox of TEAMCHAT_DATA_DIR:
 *   the services that send mail must share that directory to appear there.
 *   TEAMCHAT_MONGODB_URL   where uploaded files go (GridFS); absent: <data dir>/uploads
 */
import { connectBus, createLogger, developmentOutboxDir, openBlobStore, exitOnStartupFailure, loadConfigOrExplain, loadEngineSettings, steadyHeapGrowth } from '@teamchat/platform';
import { buildGateway } from './server';

async function main() {
  steadyHeapGrowth();
  const log = createLogger('gateway');
  const config = loadConfigOrExplain();
  const bus = await connectBus(loadEngineSettings('gateway'), 'gateway');
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
  });
  const address = await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 9991) });
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
