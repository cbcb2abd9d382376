/**
 * The operator's grant of a server-level permission, as Zulip's management command
 * change_user_role: any permission the accounts contract names (`can_change_user_emails`:
 * an owner may change other users' addresses; `can_create_users`: POST /users). No API
 * request can give one.
 *
 *   npm run change-user-permission -- owner@acme.test can_create_users
 *   npm run change-user-permission -- owner@acme.test can_create_users --revoke
 *
 * `change-user-role` is the same tool under its earlier name.
 */
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { endpoints } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { runTool } from './accounts-link';

/** The contract's schema is the one list of permissions: a new one is grantable here at once. */
const permissionSchema = endpoints.accounts.changeServerPermission.params.shape.permission;

export function serverPermissions(): string[] {
  const schema = permissionSchema as unknown as { options?: readonly string[]; values?: Iterable<string>; value?: string };
  if (schema.options) return [...schema.options];
  if (schema.values) return [...schema.values];
  return schema.value ? [schema.value] : [];
}

async function main(tool: string) {
  const { values, positionals } = parseArgs({ options: { revoke: { type: 'boolean' }, help: { type: 'boolean' } }, allowPositionals: true });
  const [email, name] = positionals;
  const parsed = permissionSchema.safeParse(name);
  if (values.help || positionals.length !== 2 || !email || !parsed.success) {
    if (!values.help && name !== undefined && !parsed.success) process.stderr.write(`error: unknown permission ${JSON.stringify(name)}\n`);
    process.stdout.write(`usage: ${tool} <email> <${serverPermissions().join('|')}> [--revoke]\n`);
    process.exit(values.help ? 0 : 2);
  }
  const permission = parsed.data;
  const granted = !values.revoke;
  await runTool(tool, async (bus) => {
    const { value } = await callContract(bus, endpoints.accounts.changeServerPermission, { params: { email, permission, granted } });
    const what = granted ? `now holds ${permission}` : `no longer holds ${permission}`;
    return `${value.changed ? '' : 'Unchanged: '}${email} (user ${value.user_id}) ${what}\n`;
  });
}

if (basename(process.argv[1] ?? '') === 'change-user-permission.js') void main('change-user-permission');

export { main as changeUserPermission };
