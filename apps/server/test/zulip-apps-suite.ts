/**
 * The official Zulip apps start against the server (issue 37, items 1, 7 and 8): the
 * mobile app's GET /server_settings and POST /register and the terminal app's register,
 * each exactly as the app sends it, for every kind of user, decoded by the apps' required
 * fields (zulip-app-fields.ts, which harness.ts applies to every reply of every suite); the
 * events the apps handle; and what newer clients rely on (unknown event types and
 * capabilities ignored, the feature level the mobile app requires).
 */
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { AppFieldsError, Client, type RunningServer } from './harness';
import { suiteServer } from './suite-kit';
import {
  checkAppFields,
  FLUTTER_REGISTER,
  FLUTTER_REGISTER_PARAMS,
  FLUTTER_SERVER_SETTINGS,
  TERMINAL_REGISTER,
  TERMINAL_REGISTER_PARAMS,
  violationsOf,
} from './zulip-app-fields';

/** The mobile app's lowest supported server (zulip-flutter lib/api/core.dart). */
const FLUTTER_MIN_FEATURE_LEVEL = 371;
const FLUTTER_USER_AGENT = 'ZulipFlutter/30.0.263 (Android 15)';

export function zulipAppsSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`the official Zulip apps (${mode})`, () => {
    const users = ['owner', 'member', 'member2', 'guest', 'bot'] as const;
    const { clients, ids } = suiteServer(start, users);

    it('GET /server_settings is complete for the mobile app, and is_incompatible follows the User-Agent', async () => {
      const anonymous = new Client(clients.member.api);
      const settings = await anonymous.request('GET', '/server_settings', {}, { headers: { 'user-agent': FLUTTER_USER_AGENT } });
      expect(settings.status).toBe(200);
      expect(violationsOf(settings.body, { object: FLUTTER_SERVER_SETTINGS }, 'server_settings')).toEqual([]);
      expect(settings.body).toMatchObject({ is_incompatible: false, external_authentication_methods: [], realm_web_public_access_enabled: false });
      expect(settings.body.authentication_methods).toMatchObject({ password: true, email: true, ldap: false, remoteuser: false, github: false, saml: false, 'openid connect': false });
      expect(settings.body.zulip_feature_level).toBeGreaterThanOrEqual(FLUTTER_MIN_FEATURE_LEVEL);
      expect(settings.body.zulip_merge_base).toBe(settings.body.zulip_version);
      // Zulip's rule: only the reserved test client is told it cannot connect, whatever a client sends as a parameter.
      const invalid = await anonymous.request('GET', '/server_settings', { user_agent: FLUTTER_USER_AGENT }, { headers: { 'user-agent': 'ZulipInvalid/1.0' } });
      expect(invalid.body.is_incompatible).toBe(true);
      expect((await anonymous.request('GET', '/server_settings', { user_agent: 'ZulipInvalid/1.0' }, { headers: { 'user-agent': 'ZulipMobile/27.1' } })).body.is_incompatible).toBe(false);
    });

    it.each(users)("the mobile app's POST /register is complete for the %s", async (user) => {
      const { status, body } = await clients[user].post('/register', FLUTTER_REGISTER_PARAMS);
      expect(status).toBe(200);
      expect(violationsOf(body, { object: Object.fromEntries(Object.entries(FLUTTER_REGISTER).map(([key, [, field]]) => [key, field])) }, 'register')).toEqual([]);
      expect(body.zulip_feature_level).toBeGreaterThanOrEqual(FLUTTER_MIN_FEATURE_LEVEL);
      expect(body.realm_default_external_accounts).toMatchObject({ github: expect.objectContaining({ url_pattern: expect.stringContaining('%(username)s') }) });
      expect(body.server_emoji_data_url).toMatch(/^https?:\/\/.+\.json$/);
      expect(body.realm_enable_read_receipts).toBe(true);
      expect(body.user_id).toBe(ids[user]);
    });

    it.each(users)("the terminal app's POST /register is complete for the %s, its unknown fetch type ignored", async (user) => {
      const { status, body } = await clients[user].post('/register', TERMINAL_REGISTER_PARAMS);
      expect(status).toBe(200);
      expect(violationsOf(body, { object: Object.fromEntries(Object.entries(TERMINAL_REGISTER).map(([key, [, field]]) => [key, field])) }, 'register')).toEqual([]);
    });

    it('ignores unknown event types and client capabilities, as Zulip does', async () => {
      const registered = await clients.member.post('/register', {
        event_types: ['message', 'no_such_event'],
        fetch_event_types: ['realm_userz', 'message'],
        client_capabilities: { bulk_message_deletion: true, a_future_capability: true, another_one: { nested: 1 } },
      });
      expect(registered.status).toBe(200);
      expect(registered.body.max_message_id).toEqual(expect.any(Number));
      expect(registered.body).not.toHaveProperty('realm_users');
      // A known capability is still a flag.
      expect((await clients.member.post('/register', { client_capabilities: { bulk_message_deletion: 'yes' } })).status).toBe(400);
      // The queue works: a message reaches it.
      await clients.member2.post('/messages', { type: 'direct', to: [ids.member], content: 'to a newer client' });
      const { events } = (await clients.member.get('/events', { queue_id: registered.body.queue_id, last_event_id: -1 })).body;
      expect(events.map((e: { type: string }) => e.type)).toContain('message');
    });

    it('the events the mobile app handles decode, on its own queue', async () => {
      const queue = (await clients.member.post('/register', FLUTTER_REGISTER_PARAMS)).body;
      const sent = (await clients.member2.post('/messages', { type: 'stream', to: 'general', topic: 'apps', content: 'decode me' })).body.id as number;
      await clients.member.post(`/messages/${sent}/reactions`, { emoji_name: 'smile' });
      await clients.member2.request('PATCH', `/messages/${sent}`, { content: 'decoded' }, { query: false });
      await clients.member.post('/messages/flags', { messages: [sent], op: 'add', flag: 'starred' });
      await clients.member2.request('DELETE', `/messages/${sent}`);
      const seen = new Set<string>();
      let last = -1;
      for (let i = 0; i < 10 && !seen.has('update_message_flags'); i++) {
        // Each reply passes the harness's check of every event against the apps' table.
        const { events } = (await clients.member.get('/events', { queue_id: queue.queue_id, last_event_id: last })).body as { events: { id: number; type: string }[] };
        for (const event of events) {
          seen.add(event.type);
          last = Math.max(last, event.id);
        }
      }
      expect([...seen]).toEqual(expect.arrayContaining(['message', 'reaction', 'update_message', 'update_message_flags']));
      const page = await clients.member.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [], apply_markdown: true, client_gravatar: false });
      expect(page.status).toBe(200);
    });
  });

  describe(`the apps' table cannot pass vacuously (${mode})`, () => {
    let fake: http.Server;
    let api: string;
    beforeAll(async () => {
      // A server whose replies lack what the apps require: the client must refuse them.
      fake = http.createServer((req, res) => {
        res.setHeader('content-type', 'application/json');
        if (req.url?.startsWith('/api/v1/server_settings')) {
          res.end(JSON.stringify({ result: 'success', msg: '', zulip_feature_level: 496, zulip_version: '11.0', realm_uri: 'http://x' }));
        } else if (req.url?.startsWith('/api/v1/events')) {
          res.end(JSON.stringify({ result: 'success', msg: '', events: [{ id: 0, type: 'reaction', op: 'add', message_id: 1, user_id: 2, emoji_name: 'smile', reaction_type: 'unicode_emoji' }] }));
        } else {
          res.end(JSON.stringify({ result: 'success', msg: '', queue_id: 'q', last_event_id: -1, zulip_feature_level: 496 }));
        }
      });
      await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
      api = `http://127.0.0.1:${(fake.address() as { port: number }).port}/api/v1`;
    });
    afterAll(() => new Promise<void>((resolve) => fake.close(() => resolve())));

    it('a reply missing required members fails the request that got it', async () => {
      const client = new Client(api, 'someone@example.com', 'key');
      await expect(client.get('/server_settings')).rejects.toThrow(AppFieldsError);
      await expect(client.get('/server_settings')).rejects.toThrow(/realm_icon: missing/);
      await expect(client.post('/register', {})).rejects.toThrow(/register\(flutter\)\.subscriptions: missing/);
      await expect(client.get('/events', { queue_id: 'q', last_event_id: -1 })).rejects.toThrow(/emoji_code: missing/);
    });

    it('the check names wrong types and missing members, and passes a complete reply', () => {
      expect(violationsOf({ a: 1, b: 'x' }, { object: { a: 'string', b: 'string', c: 'bool' } }, 'r')).toEqual(['r.a: string expected, number found', 'r.c: missing']);
      expect(violationsOf({ a: null }, { object: { a: { optional: 'int' }, b: { optional: 'int' } } }, 'r')).toEqual([]);
      expect(violationsOf({}, { object: { a: { nullable: 'int' } } }, 'r')).toEqual(['r.a: missing']);
      expect(checkAppFields({ method: 'GET', path: '/messages', params: {} }, { result: 'success', anchor: 1, found_newest: true, found_oldest: true, found_anchor: true, history_limited: false, messages: [{ type: 'stream' }] }, new Map()).length).toBeGreaterThan(0);
    });
  });
}
