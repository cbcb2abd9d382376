/**
 * Production setup: creates the organization and its first owner, and prints the
 * owner's API key (the operator's way in).
 *
 * It reaches the accounts service as every operator tool does (accounts-link.ts): over the
 * bus when NATS_URL is set, else by starting the embedded services on the same data directory.
 *
 *   npm run create-organization -- --name "Acme" --email owner@acme.test --full-name "Ada Owner"
 */
import { parseArgs } from 'node:util';
import { endpoints, isApiError } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { reachAccounts } from './accounts-link';

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
  const accounts = await reachAccounts('create-organization');
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
