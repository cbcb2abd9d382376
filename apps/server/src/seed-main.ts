/**
 * Seeds the development organization into a distributed deployment over NATS
 * (NATS_URL); a no-op when the organization exists. The embedded server seeds itself.
 */
import { connectBus, exitOnStartupFailure, loadEngineSettings } from '@teamchat/platform';
import { seedDevelopmentOrganization } from './seed';

async function main() {
  const bus = await connectBus(loadEngineSettings('seed'), 'seed');
  try {
    const seeded = await seedDevelopmentOrganization(bus);
    process.stdout.write(seeded ? 'seeded the development organization\n' : 'organization exists; nothing seeded\n');
  } finally {
    await bus.close();
  }
}

main().catch((err: unknown) => exitOnStartupFailure('seed', err));
