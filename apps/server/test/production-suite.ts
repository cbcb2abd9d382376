/**
 * A distributed deployment in production mode: nothing is seeded, and the operator creates
 * the organization with the command-line tool, which reaches the running accounts service
 * over the bus (NATS_URL) instead of opening a store itself.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { Client, tempDataDir, type DistributedServer } from './harness';

export function productionSuite(start: () => Promise<DistributedServer>) {
  describe('production mode, distributed', () => {
    let server: DistributedServer;
    const toolDir = tempDataDir();
    beforeAll(async () => {
      server = await start();
    }, 120_000);
    afterAll(async () => {
      await server?.stop();
      rmSync(toolDir, { recursive: true, force: true });
    });

    const cli = join(__dirname, '..', 'dist', 'create-organization.js');
    const createOrganization = (email: string) =>
      execFileSync(process.execPath, [cli, '--name', 'Acme', '--email', email, '--full-name', 'Ada Boss'], {
        // A data directory of its own: only the bus reaches the deployment's store.
        env: { ...process.env, ...server.env, TEAMCHAT_DATA_DIR: toolDir, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
        stdio: 'pipe',
      });

    it('has no organization until the tool creates one over the bus; then its owner works and a second is refused', async () => {
      const anonymous = new Client(server.api);
      const before = await anonymous.post('/dev_fetch_api_key', { username: 'owner@example.com' });
      expect(before.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });

      const apiKey = /API key: (\S+)/.exec(createOrganization('boss@acme.test'))?.[1];
      expect(apiKey).toMatch(/^[A-Za-z0-9]{32}$/);
      const boss = new Client(server.api, 'boss@acme.test', apiKey);
      const me = await boss.get('/users/me');
      expect(me.body).toMatchObject({ result: 'success', email: 'boss@acme.test', role: 100, is_owner: true });
      // The owner can act at once: create a channel through the gateway.
      const created = await boss.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'launch' }]) });
      expect(created.body).toMatchObject({ result: 'success', subscribed: { [String(me.body.user_id)]: ['launch'] } });

      expect(() => createOrganization('again@acme.test')).toThrow(/exists|already/i);
    }, 60_000);
  });
}
