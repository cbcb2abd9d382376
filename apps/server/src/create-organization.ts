/**
 * Production setup: creates the organization and its first owner, and prints the
 * owner's API key (the operator's way in). Safe to run while the server is up: it
 * appends to the same event store, which the server picks up.
 *
 *   npm run create-organization -- --name "Acme" --email owner@acme.test --full-name "Ada Owner"
 */
import { parseArgs } from 'node:util';
import { endpoints, isApiError } from '@teamchat/contracts';
import { callContract, createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServices } from './embedded';

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
  const services = await startEmbeddedServices(loadConfig(), createLogger('create-organization'));
  try {
    const { value } = await callContract(services.bus, endpoints.accounts.createOrganization, {
      params: { name: values.name, owner_email: values.email, owner_full_name: values['full-name'] },
    });
    process.stdout.write(`Organization created. Owner ${value.email} (user ${value.user_id})\nAPI key: ${value.api_key}\n`);
  } catch (err) {
    process.stderr.write(`error: ${isApiError(err) ? err.msg : String(err)}\n`);
    process.exitCode = 1;
  } finally {
    await services.stop();
  }
}

void main();
