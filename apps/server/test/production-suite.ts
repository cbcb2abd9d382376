/**
 * A distributed deployment in production mode: nothing is seeded, and the operator creates
 * the organization with the command-line tool, which reaches the running accounts service
 * over the bus (NATS_URL) instead of opening a store itself.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { Client, PRODUCTION_REALM_URI, type DistributedServer } from './harness';
import { scratchDataDirs, suiteServer } from './suite-kit';

export function productionSuite(start: () => Promise<DistributedServer>) {
  describe('production mode, distributed', () => {
    const suite = suiteServer(start, [], 120_000);
    const toolDir = scratchDataDirs()();
    let bossKey: string | undefined;

    /** An operator's command-line tool (apps/server/dist/<name>.js) run against the deployment. */
    const tool = (name: string, args: string[]) =>
      execFileSync(process.execPath, [join(__dirname, '..', 'dist', `${name}.js`), ...args], {
        // A data directory of its own: only the bus reaches the deployment's store.
        env: { ...process.env, ...suite.server.env, TEAMCHAT_DATA_DIR: toolDir, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        stdio: 'pipe',
      });
    const createOrganization = (email: string) => tool('create-organization', ['--name', 'Acme', '--email', email, '--full-name', 'Ada Boss', '--print-api-key']);

    it('has no organization until the tool creates one over the bus; then its owner works and a second is refused', async () => {
      const anonymous = new Client(suite.server.api);
      const before = await anonymous.post('/dev_fetch_api_key', { username: 'owner@example.com' });
      expect(before.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });

      const output = createOrganization('boss@acme.test');
      const apiKey = /API key: (\S+)/.exec(output)?.[1];
      expect(apiKey).toMatch(/^[A-Za-z0-9]{32}$/);
      // The owner's one-time set-password link, on the configured address.
      expect(output).toContain(`${PRODUCTION_REALM_URI}/accounts/password/reset/`);
      bossKey = apiKey;
      const boss = new Client(suite.server.api, 'boss@acme.test', apiKey);
      const me = await boss.get('/users/me');
      expect(me.body).toMatchObject({ result: 'success', email: 'boss@acme.test', role: 100, is_owner: true });
      // The owner can act at once: create a channel through the gateway.
      const created = await boss.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'launch' }]) });
      expect(created.body).toMatchObject({ result: 'success', subscribed: { [String(me.body.user_id)]: ['launch'] } });

      // The README's example works on a fresh production store: general exists, with the notification bot's welcome.
      const sent = await boss.post('/messages', { type: 'stream', to: 'general', topic: 'hello', content: 'Hello **world**' });
      expect(sent.body.result).toBe('success');
      const general = await boss.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: JSON.stringify([{ operator: 'channel', operand: 'general' }]) });
      expect(general.body.messages.map((m: { sender_email: string; subject: string }) => [m.sender_email, m.subject])).toEqual([
        ['notification-bot@zulip.com', 'welcome'],
        ['boss@acme.test', 'hello'],
      ]);

      expect(() => createOrganization('again@acme.test')).toThrow(/exists|already/i);
    }, 60_000);

    it('has no development login: GET /login/dev_users and POST /login/dev answer 404 and set no cookie', async () => {
      const origin = suite.server.api.replace(/\/api\/v1$/, '');
      const list = await fetch(`${origin}/login/dev_users`);
      expect([list.status, ((await list.json()) as { code: string }).code]).toEqual([404, 'NOT_FOUND']);
      const login = await fetch(`${origin}/login/dev`, { method: 'POST', body: new URLSearchParams({ email: 'boss@acme.test' }) });
      expect(login.status).toBe(404);
      expect(login.headers.getSetCookie()).toEqual([]);
    });

    const changeUserRole = (...args: string[]) => tool('change-user-role', args);

    it("change-user-role gives the owner, over the bus, the permission to change users' addresses, and takes it back", async () => {
      // The owner the test above created with the tool.
      expect(bossKey).toBeDefined();
      const boss = new Client(suite.server.api, 'boss@acme.test', bossKey);
      // POST /users needs the server-level can_create_users, which only the operator gives.
      expect((await boss.post('/users', { email: 'worker@acme.test', full_name: 'Wes Worker' })).body).toMatchObject({ code: 'BAD_REQUEST', msg: 'User not authorized to create users' });
      expect(changeUserRole('boss@acme.test', 'can_create_users')).toMatch(/now holds can_create_users/);
      const created = await boss.post('/users', { email: 'worker@acme.test', full_name: 'Wes Worker' });
      expect(created.body.result).toBe('success');
      const move = (email: string) => boss.request('PATCH', `/users/${created.body.user_id}`, { new_email: email }, { query: false });
      expect((await move('wes@acme.test')).body).toMatchObject({ code: 'BAD_REQUEST', msg: 'User not authorized to change user emails' });

      expect(changeUserRole('boss@acme.test', 'can_change_user_emails')).toMatch(/boss@acme\.test \(user \d+\) now holds can_change_user_emails/);
      expect((await move('wes@acme.test')).body.result).toBe('success');
      expect((await boss.get(`/users/${created.body.user_id}`)).body.user.email).toBe('wes@acme.test');

      expect(changeUserRole('boss@acme.test', 'can_change_user_emails', '--revoke')).toMatch(/no longer holds/);
      expect((await move('wes2@acme.test')).body).toMatchObject({ msg: 'User not authorized to change user emails' });
      expect(() => changeUserRole('ghost@acme.test', 'can_change_user_emails')).toThrow(/No user with the email ghost@acme\.test/);
      expect(() => changeUserRole('boss@acme.test', 'can_forge_everything')).toThrow();
    }, 60_000);
  });
}
