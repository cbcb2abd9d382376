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
import { endpoints } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { runTool } from './accounts-link';

async function main() {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      'full-name': { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  const { name, email, 'full-name': fullName } = values;
  if (values.help || !name || !email || !fullName) {
    process.stdout.write('usage: create-organization --name <organization> --email <owner email> --full-name <owner name>\n');
    process.exit(values.help ? 0 : 2);
  }
  await runTool('create-organization', async (bus) => {
    const { value } = await callContract(bus, endpoints.accounts.createOrganization, {
      params: { name, owner_email: email, owner_full_name: fullName },
    });
    return `Organization created. Owner ${value.email} (user ${value.user_id})\nAPI key: ${value.api_key}\n`;
  });
}

void main();
