/**
 * Seeds the development organization into a distributed deployment over NATS
 * (NATS_URL); a no-op when the organization exists. The embedded server seeds itself.
 */
import { NatsBus } from '@teamchat/platform';
import { seedDevelopmentOrganization } from './seed';

async function main() {
  const bus = await NatsBus.connect(process.env.NATS_URL ?? 'nats://127.0.0.1:4222', 'seed');
  try {
    const seeded = await seedDevelopmentOrganization(bus);
    process.stdout.write(seeded ? 'seeded the development organization\n' : 'organization exists; nothing seeded\n');
  } finally {
    await bus.close();
  }
}

main().catch((err) => {
  process.stderr.write(`seeding failed: ${(err as Error).message ?? String(err)}\n`);
  process.exit(1);
});
