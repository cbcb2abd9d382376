/**
 * Production setup: creates the organization and its first owner, and prints the
 * owner's API key (the operator's way in).
 *
 * Embedded deployments (no NATS_URL): the tool starts the services on the same data
 * directory and appends to the same event store, which a running server picks up.
 * Distributed deployments (NATS_URL set, as in every service's environment): the tool asks
 * the running accounts service over the bus, like any gateway would, so it works on
 * whatever engines the services use (EventStoreDB and MongoDB included).
 *
 *   npm run create-organization -- --name "Acme" --email owner@acme.test --full-name "Ada Owner"
 */
import { parseArgs } from 'node:util';
import { endpoints, isApiError } from '@teamchat/contracts';
import { callContract, connectBus, createLogger, loadConfig, loadEngineSettings, type Bus } from '@teamchat/platform';
import { startEmbeddedServices } from './embedded';

/** The bus to the accounts service and how to let it go. */
async function reachAccounts(): Promise<{ bus: Bus; stop(): Promise<void> }> {
  if (process.env.NATS_URL) {
    const bus = await connectBus(loadEngineSettings('create-organization'), 'create-organization');
    return { bus, stop: () => bus.close() };
  }
  const services = await startEmbeddedServices(loadConfig(), createLogger('create-organization'));
  return { bus: services.bus, stop: () => services.stop() };
}

async function main() {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      'full-name': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help || !values.name || !values.email || !values['full-name']) {
    process.stdout.write('usage: create-organization --name <organization> --email <owner email> --full-name <owner name>\n');
    process.exit(values.help ? 0 : 2);
  }
  process.env.LOG_LEVEL ??= 'warn';
  const accounts = await reachAccounts();
  try {
    const { value } = await callContract(accounts.bus, endpoints.accounts.createOrganization, {
      params: { name: values.name, owner_email: values.email, owner_full_name: values['full-name'] },
    });
    process.stdout.write(`Organization created. Owner ${value.email} (user ${value.user_id})\nAPI key: ${value.api_key}\n`);
  } catch (err) {
    process.stderr.write(`error: ${isApiError(err) ? err.msg : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    await accounts.stop();
  }
}

void main();
