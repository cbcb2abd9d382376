/**
 * The operator's grant of a server-level permission, as Zulip's management command
 * change_user_role: today `can_change_user_emails`, which lets an organization owner change
 * other users' addresses (PATCH /users/{id} with new_email). No API request can give it.
 *
 *   npm run change-user-role -- owner@acme.test can_change_user_emails
 *   npm run change-user-role -- owner@acme.test can_change_user_emails --revoke
 */
import { parseArgs } from 'node:util';
import { endpoints } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { runTool } from './accounts-link';

const PERMISSIONS = ['can_change_user_emails'] as const;
type Permission = (typeof PERMISSIONS)[number];
const isPermission = (text: string | undefined): text is Permission => PERMISSIONS.includes(text as Permission);

async function main() {
  const { values, positionals } = parseArgs({ options: { revoke: { type: 'boolean' }, help: { type: 'boolean' } }, allowPositionals: true });
  const [email, permission] = positionals;
  if (values.help || positionals.length !== 2 || !email || !isPermission(permission)) {
    process.stdout.write(`usage: change-user-role <email> <${PERMISSIONS.join('|')}> [--revoke]\n`);
    process.exit(values.help ? 0 : 2);
  }
  const granted = !values.revoke;
  await runTool('change-user-role', async (bus) => {
    const { value } = await callContract(bus, endpoints.accounts.changeServerPermission, { params: { email, permission, granted } });
    const what = granted ? `now holds ${permission}` : `no longer holds ${permission}`;
    return `${value.changed ? '' : 'Unchanged: '}${email} (user ${value.user_id}) ${what}\n`;
  });
}

void main();
