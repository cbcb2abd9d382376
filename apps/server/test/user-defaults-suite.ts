/**
 * The HTTP suite for the organization's defaults for new users' settings (issue 17 item
 * 6), run against every mode: register's realm_user_settings_defaults, PATCH
 * /realm/user_settings_defaults by administrators only, its events, and a user created
 * afterwards starting with the defaults.
 */
import { describe, expect, it } from '@jest/globals';
import { Client, type RunningServer } from './harness';
import { suiteServer } from './suite-kit';

export function userDefaultsSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`defaults for new users' settings (${mode})`, () => {
    const suite = suiteServer(start, ['owner', 'admin', 'moderator', 'member', 'guest', 'echo-bot']);
    const c: Record<string, Client> = suite.clients;

    const patch = (client: Client, params: Record<string, unknown>) => client.request('PATCH', '/realm/user_settings_defaults', params, { query: false });
    const defaultsOf = async (client: Client) => (await client.post('/register', { fetch_event_types: ['realm_user_settings_defaults'] })).body.realm_user_settings_defaults;

    it('administrators change them, everyone hears of it, and a user created afterwards starts with them', async () => {
      const { admin, owner, member } = c as Record<string, Client>;
      const before = await defaultsOf(admin!);
      expect(before).toMatchObject({ send_read_receipts: true, emojiset: 'google', enter_sends: false });
      expect(before.timezone).toBeUndefined();
      const queue = (await member!.post('/register', { event_types: ['realm_user_settings_defaults'] })).body.queue_id;
      expect((await patch(admin!, { send_read_receipts: 'false', emojiset: 'text', enter_sends: 'false' })).body.result).toBe('success');
      expect(await defaultsOf(admin!)).toEqual({ ...before, send_read_receipts: false, emojiset: 'text' });

      const deadline = Date.now() + 5000;
      let events: any[] = [];
      while (events.length < 2 && Date.now() < deadline) {
        events = ((await member!.get('/events', { queue_id: queue, last_event_id: -1, dont_block: true })).body.events as any[]).filter((e) => e.type !== 'heartbeat');
        if (events.length < 2) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // One event per changed setting (in no particular order); enter_sends did not change.
      expect(events.map(({ id: _id, ...e }) => e).sort((a, b) => a.property.localeCompare(b.property))).toEqual([
        { type: 'realm_user_settings_defaults', op: 'update', property: 'emojiset', value: 'text' },
        { type: 'realm_user_settings_defaults', op: 'update', property: 'send_read_receipts', value: false },
      ]);

      // Existing users keep their settings; a new one starts with the defaults.
      expect((await member!.post('/register', { fetch_event_types: ['user_settings'] })).body.user_settings).toMatchObject({ send_read_receipts: true, emojiset: 'google' });
      const email = `newcomer-${Date.now()}@example.com`;
      const created = await owner!.post('/users', { email, password: 'a long enough password 1', full_name: 'New Comer' });
      expect(created.body.result).toBe('success');
      const newcomer = await Client.login(suite.server.api, email);
      expect((await newcomer.post('/register', { fetch_event_types: ['user_settings'] })).body.user_settings).toMatchObject({ send_read_receipts: false, emojiset: 'text' });

      expect((await patch(owner!, { send_read_receipts: 'true', emojiset: 'google' })).body.result).toBe('success');
      expect(await defaultsOf(owner!)).toEqual(before);
    });

    it('authorization and bad input: only owners and administrators change them, with values of the right type; nothing changes otherwise', async () => {
      const before = await defaultsOf(c.owner!);
      for (const name of ['moderator', 'member', 'guest', 'echo-bot']) {
        const reply = await patch(c[name]!, { enter_sends: 'true' });
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'Must be an organization administrator' });
      }
      for (const params of [{ enter_sends: 'maybe' }, { web_font_size_px: '-3' }, { emojiset: 'x'.repeat(101) }]) {
        const reply = await patch(c.admin!, params);
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
      }
      expect(await defaultsOf(c.owner!)).toEqual(before);
    });
  });
}
