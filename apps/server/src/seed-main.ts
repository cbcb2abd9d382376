/**
 * Seeds the development organization into a distributed deployment over NATS
 * (NATS_URL); a no-op when the organization exists. The embedded server seeds itself.
 *
 * Never into production: the seed's accounts (owner@example.com and the others) are open to
 * anyone through the development key endpoint. It refuses when its own TEAMCHAT_MODE is
 * production and when the deployment's services answer that their store is.
 */
import { checkDeploymentMode, ConfigurationError, connectBus, exitOnStartupFailure, loadEngineSettings, loadMode, maskUrl } from '@teamchat/platform';
import { seedDevelopmentOrganization } from './seed';

async function main() {
  if (loadMode() === 'production') {
    throw new ConfigurationError('the development seed never runs in production (TEAMCHAT_MODE=production): create the organization with create-organization');
  }
  const engines = loadEngineSettings('seed');
  const bus = await connectBus(engines, 'seed');
  try {
    process.stdout.write(`seed: acting on the deployment on NATS at ${maskUrl(engines.natsUrl)}\n`);
    await checkDeploymentMode(bus, 'development', maskUrl(engines.natsUrl), 30_000);
    const seeded = await seedDevelopmentOrganization(bus);
    process.stdout.write(seeded ? 'seeded the development organization\n' : 'organization exists; nothing seeded\n');
  } finally {
    await bus.close();
  }
}

main().catch((err: unknown) => exitOnStartupFailure('seed', err));
