/**
 * Production setup: creates the organization, its first owner, its default channels and
 * welcome (new-organization.ts), and prints a one-time link where the owner sets a password
 * (the gateway's set-password page; valid for 24 hours, single use). The owner's API key is
 * printed only when asked (--print-api-key): a link is safer to hand over than a key, and
 * works the same in compose, where the tool's terminal is not the owner's.
 *
 * It reaches the accounts service as every operator tool does (accounts-link.ts): over the
 * bus when NATS_URL is set, else by starting the embedded services on the same data directory.
 *
 *   npm run create-organization -- --name "Acme" --email owner@acme.test --full-name "Ada Owner" [--print-api-key]
 */
import { parseArgs } from 'node:util';
import { endpoints } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { runTool } from './accounts-link';
import { DEFAULT_CHANNELS, setUpNewOrganization } from './new-organization';

async function main() {
  const { values } = parseArgs({
    options: {
      name: { type: 'string' },
      email: { type: 'string' },
      'full-name': { type: 'string' },
      'print-api-key': { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const { name, email, 'full-name': fullName } = values;
  if (values.help || !name || !email || !fullName) {
    process.stdout.write('usage: create-organization --name <organization> --email <owner email> --full-name <owner name> [--print-api-key]\n');
    process.exit(values.help ? 0 : 2);
  }
  await runTool('create-organization', async (bus) => {
    const { value, position } = await callContract(bus, endpoints.accounts.createOrganization, {
      params: { name, owner_email: email, owner_full_name: fullName },
    });
    // The link first: whatever happens next, the owner can get in.
    const { value: link, position: issued } = await callContract(bus, endpoints.accounts.issuePasswordLink, { params: { email: value.email }, ...(position !== undefined ? { after: position } : {}) });
    let channels: string;
    try {
      await setUpNewOrganization(bus, { name, owner_id: value.user_id, after: issued ?? position });
      channels = `Channels: ${DEFAULT_CHANNELS.map((c) => `#${c.name}`).join(', ')} (default for new users; the owner is subscribed)\n`;
    } catch (err) {
      process.exitCode = 1;
      channels = `warning: the default channels or the welcome message could not be created (${(err as Error).message}); create them from a Zulip app\n`;
    }
    return (
      `Organization created. Owner ${value.email} (user ${value.user_id})\n` +
      channels +
      `The owner sets a password at this link (one use, until ${new Date(link.expires_at * 1000).toISOString()}):\n${link.link}\n` +
      (values['print-api-key'] ? `API key: ${value.api_key}\n` : '')
    );
  });
}

void main();
