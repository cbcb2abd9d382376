/**
 * The HTTP suite, run against every mode (embedded and distributed): the gateway's
 * conventions, authentication, sending and reading messages, and event queues. Every
 * refused request is checked to have changed nothing.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import { Client, type RunningServer } from './harness';
import { suiteServer } from './suite-kit';

const channelNarrow = (channel: string | number, topic?: string) => [
  { operator: 'channel', operand: channel },
  ...(topic !== undefined ? [{ operator: 'topic', operand: topic }] : []),
];

export function apiSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`HTTP API (${mode})`, () => {
    const suite = suiteServer(start, ['member', 'member2', 'owner', 'guest']);
    let member: Client;
    let member2: Client;
    let owner: Client;
    let guest: Client;
    let anonymous: Client;

    beforeAll(() => {
      anonymous = new Client(suite.server.api);
      ({ member, member2, owner, guest } = suite.clients);
    });

    /** The newest message id visible to `client` in `narrow` (0 when none). */
    async function newestId(client: Client, narrow: unknown[] = []): Promise<number> {
      const { body } = await client.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow });
      return body.messages.at(-1)?.id ?? 0;
    }

    async function expectNothingSent(action: () => Promise<void>) {
      const before = await newestId(member);
      await action();
      expect(await newestId(member)).toBe(before);
    }

    describe('conventions', () => {
      it('answers unknown routes with a JSON 404 and wrong methods with a JSON 405', async () => {
        const missing = await member.get('/no/such/endpoint');
        expect(missing.status).toBe(404);
        expect(missing.body).toMatchObject({ result: 'error', code: 'NOT_FOUND' });
        const wrong = await member.request('PUT', '/messages');
        expect(wrong.status).toBe(405);
        expect(wrong.body).toMatchObject({ result: 'error', code: 'METHOD_NOT_ALLOWED' });
        expect(wrong.headers.get('allow')).toContain('POST');
      });

      it('reports unsupported parameters in ignored_parameters_unsupported', async () => {
        const { body } = await member.post('/messages', { type: 'stream', to: 'general', topic: 'conv', content: 'x', bogus: '1', other: '2' });
        expect(body.result).toBe('success');
        expect(body.ignored_parameters_unsupported.sort()).toEqual(['bogus', 'other']);
        const clean = await member.post('/messages', { type: 'stream', to: 'general', topic: 'conv', content: 'y' });
        expect(clean.body).not.toHaveProperty('ignored_parameters_unsupported');
        const sneaky = await member.post('/messages', { type: 'stream', to: 'general', topic: 'conv', content: 'z', __proto__x: '1', constructor: '{}', toString: '1' });
        expect(sneaky.body.result).toBe('success');
        expect(sneaky.body.ignored_parameters_unsupported.sort()).toEqual(['__proto__x', 'constructor', 'toString']);
      });

      it('accepts parameters as multipart/form-data and in the query string of a POST', async () => {
        const form = new FormData();
        form.set('type', 'stream');
        form.set('to', 'general');
        form.set('topic', 'multipart');
        form.set('content', 'sent as multipart');
        const multipart = await member.request('POST', '/messages', {}, { rawBody: form });
        expect(multipart.status).toBe(200);
        const query = await member.request('POST', '/messages', { type: 'stream', to: 'general', topic: 'query', content: 'in the query' }, { query: true });
        expect(query.status).toBe(200);
        const { body } = await member.get('/messages', { message_ids: [multipart.body.id, query.body.id], apply_markdown: false });
        expect(body.messages.map((m: any) => m.content)).toEqual(['sent as multipart', 'in the query']);
      });

      it('gives BAD_REQUEST naming the parameter for missing, malformed and mistyped values', async () => {
        await expectNothingSent(async () => {
          const missing = await member.post('/messages', { type: 'stream', to: 'general', topic: 't' });
          expect(missing.status).toBe(400);
          expect(missing.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
          expect(missing.body.msg).toContain("'content'");

          const badJson = await member.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: '[{oops' });
          expect(badJson.status).toBe(400);
          expect(badJson.body.msg).toContain("'narrow'");

          const badInt = await member.get('/messages', { anchor: 'newest', num_before: 'many', num_after: 0 });
          expect(badInt.status).toBe(400);
          expect(badInt.body.msg).toContain("'num_before'");

          const badBool = await member.post('/messages', { type: 'stream', to: 'general', topic: 't', content: 'x', read_by_sender: 'yes' });
          expect(badBool.status).toBe(400);
          expect(badBool.body.msg).toContain("'read_by_sender'");

          const badEnum = await member.post('/messages', { type: 'carrier-pigeon', to: 'general', topic: 't', content: 'x' });
          expect(badEnum.status).toBe(400);
          expect(badEnum.body.msg).toContain("'type'");
        });
      });

      it('takes path parameters from the path, tolerating a copy in the query, and refuses a malformed one', async () => {
        const notAnId = await owner.request('DELETE', '/users/abc');
        expect(notAnId.status).toBe(400);
        expect(notAnId.body.msg).toContain("'user_id'");
        const target = await Client.login(suite.server.api, 'echo-bot@example.com');
        const botId = (await target.get('/users/me')).body.user_id as number;
        const removed = await owner.request('DELETE', `/users/${botId}`, { user_id: botId });
        expect(removed.body).toMatchObject({ result: 'success' });
        expect(removed.body).not.toHaveProperty('ignored_parameters_unsupported');
        expect((await owner.request('POST', `/users/${botId}/reactivate`, { user_id: 999 }, { query: true })).body.result).toBe('success');
      });

      it('accepts 5000 message ids in a query string, and answers an oversized one with a JSON error', async () => {
        const ids = Array.from({ length: 5000 }, (_, i) => 1_000_000 + i);
        const many = await member.get('/messages', { message_ids: ids });
        expect(many.body).toMatchObject({ result: 'success', messages: [] });
        const huge = await member.get('/messages', { narrow: 'x'.repeat(300 * 1024) });
        expect(huge.status).toBe(431);
        expect(huge.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
      });

      it('answers a malformed body with a JSON BAD_REQUEST, never a 500', async () => {
        await expectNothingSent(async () => {
          const res = await member.request('POST', '/messages', {}, { rawBody: '{"type":', headers: { 'content-type': 'application/json' } });
          expect(res.status).toBe(400);
          expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
          const form = await member.request('POST', '/messages', {}, { rawBody: '--x\r\nbroken', headers: { 'content-type': 'multipart/form-data; boundary=x' } });
          expect(form.status).toBe(400);
          expect(form.body.result).toBe('error');
        });
      });

      it('answers router refusals, unparseable multipart bodies and over-deep JSON with the envelope', async () => {
        for (const path of ['/messages/%ZZ', '/messages/%', '/messages/%C3']) {
          const res = await anonymous.request('GET', path);
          expect({ path, status: res.status, body: res.body }).toMatchObject({ path, status: 400, body: { result: 'error', code: 'BAD_REQUEST' } });
        }
        const longParam = await anonymous.request('GET', `/messages/${'1'.repeat(150)}`);
        expect(longParam.status).toBe(414);
        expect(longParam.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });

        const noBoundary = await anonymous.request('POST', '/dev_fetch_api_key', {}, { rawBody: 'x', headers: { 'content-type': 'multipart/form-data' } });
        expect(noBoundary.status).toBe(400);
        expect(noBoundary.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'The multipart/form-data body could not be parsed' });

        const deep = '['.repeat(5000) + ']'.repeat(5000);
        const form = await member.request('POST', '/register', {}, {
          rawBody: `client_capabilities=${encodeURIComponent(deep)}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        });
        expect(form.status).toBe(400);
        expect(form.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: expect.stringContaining("'client_capabilities' is nested too deeply") });
        const json = await member.request('POST', '/register', {}, {
          rawBody: `{"client_capabilities":${deep}}`,
          headers: { 'content-type': 'application/json' },
        });
        expect(json.status).toBe(400);
        expect(json.body.msg).toContain("'client_capabilities' is nested too deeply");
        // Nesting within the limit still reaches the service.
        const shallow = await member.request('POST', '/register', { client_capabilities: { notification_settings_null: true } });
        expect(shallow.body.result).toBe('success');
      });
    });

    describe('authentication', () => {
      it('asks for credentials with 401 UNAUTHORIZED and WWW-Authenticate', async () => {
        const res = await anonymous.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 });
        expect(res.status).toBe(401);
        expect(res.body).toMatchObject({ result: 'error', code: 'UNAUTHORIZED' });
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic/);
      });

      it('refuses a wrong key with 401 INVALID_API_KEY and sends nothing', async () => {
        await expectNothingSent(async () => {
          const wrong = new Client(suite.server.api, 'member@example.com', 'x'.repeat(32));
          const res = await wrong.post('/messages', { type: 'stream', to: 'general', topic: 't', content: 'forged' });
          expect(res.status).toBe(401);
          expect(res.body.code).toBe('INVALID_API_KEY');
          const unknown = new Client(suite.server.api, 'nobody@example.com', member.apiKey);
          expect((await unknown.get('/users/me')).body.code).toBe('INVALID_API_KEY');
          const garbled = await member.request('GET', '/users/me', {}, { headers: { authorization: 'Basic ???' } });
          expect(garbled.status).toBe(401);
        });
      });

      it('refuses a deactivated user with 401 USER_DEACTIVATED, and lets them back after reactivation', async () => {
        const target = await Client.login(suite.server.api, 'moderator@example.com');
        const me = await target.get('/users/me');
        const userId = me.body.user_id as number;
        expect((await member.request('DELETE', `/users/${userId}`)).body.result).toBe('error');
        expect((await owner.request('DELETE', `/users/${userId}`)).body.result).toBe('success');
        const refused = await target.get('/users/me');
        expect(refused.status).toBe(401);
        expect(refused.body.code).toBe('USER_DEACTIVATED');
        const key = await anonymous.post('/dev_fetch_api_key', { username: 'moderator@example.com' });
        expect(key.body.code).toBe('USER_DEACTIVATED');
        expect((await owner.post(`/users/${userId}/reactivate`)).body.result).toBe('success');
        expect((await target.get('/users/me')).status).toBe(200);
      });

      it('hands out the same key from /dev_fetch_api_key, with email and user_id, and ignores credentials there', async () => {
        const first = await anonymous.post('/dev_fetch_api_key', { username: 'member@example.com' });
        expect(first.body).toMatchObject({ result: 'success', email: 'member@example.com', api_key: member.apiKey });
        expect(typeof first.body.user_id).toBe('number');
        const withCredentials = await member.post('/dev_fetch_api_key', { username: 'member2@example.com' });
        expect(withCredentials.body.api_key).toBe(member2.apiKey);
        expect(member.apiKey).toMatch(/^[A-Za-z0-9]{32}$/);
        const unknown = await anonymous.post('/dev_fetch_api_key', { username: 'ghost@example.com' });
        expect(unknown.status).toBe(400);
        const missing = await anonymous.post('/dev_fetch_api_key', {});
        expect(missing.body.msg).toContain("'username'");
      });

      it('exchanges an HS256 JWT for the key, with the full profile on request', async () => {
        const secret = new TextEncoder().encode('dev-jwt-secret');
        const token = await new SignJWT({ email: 'member@example.com' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(secret);
        const plain = await anonymous.post('/jwt/fetch_api_key', { token });
        expect(plain.body).toMatchObject({ result: 'success', api_key: member.apiKey, email: 'member@example.com' });
        expect(plain.body).not.toHaveProperty('user');
        const full = await anonymous.post('/jwt/fetch_api_key', { token, include_profile: 'true' });
        const user = full.body.user;
        expect(user).toMatchObject({ email: 'member@example.com', full_name: 'Mark Member', role: 400, is_active: true, is_owner: false, is_admin: false, is_guest: false, is_bot: false, bot_type: null, bot_owner_id: null, is_imported_stub: false });
        expect(typeof user.user_id).toBe('number');
        expect(typeof user.delivery_email).toBe('string');
        expect(typeof user.date_joined).toBe('string');
        expect(typeof user.timezone).toBe('string');
        expect(typeof user.avatar_version).toBe('number');
        expect(user).toHaveProperty('avatar_url');
        expect(user).not.toHaveProperty('is_deleted');

        const forged = await new SignJWT({ email: 'owner@example.com' }).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode('wrong-secret'));
        expect((await anonymous.post('/jwt/fetch_api_key', { token: forged })).body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
        expect((await anonymous.post('/jwt/fetch_api_key', { token: 'not-a-jwt' })).status).toBe(400);
        const noEmail = await new SignJWT({}).setProtectedHeader({ alg: 'HS256' }).sign(secret);
        expect((await anonymous.post('/jwt/fetch_api_key', { token: noEmail })).status).toBe(400);
      });

      it('answers GET /server_settings without credentials, and with them', async () => {
        const res = await anonymous.get('/server_settings');
        expect(res.body).toMatchObject({ result: 'success', zulip_feature_level: expect.any(Number) });
        expect(res.body.zulip_feature_level).toBeGreaterThanOrEqual(496);
        expect((await member.get('/server_settings')).status).toBe(200);
      });
    });

    describe('sending and reading messages', () => {
      it('sends a channel message by name and by id, and reads it back with a channel+topic narrow', async () => {
        const byName = await member.post('/messages', { type: 'stream', to: 'general', topic: 'greetings', content: 'hello **world**' });
        expect(byName.body).toMatchObject({ result: 'success', id: expect.any(Number) });
        const generalId = (await member.get('/messages', { message_ids: [byName.body.id] })).body.messages[0].stream_id;
        const byId = await member.post('/messages', { type: 'channel', to: String(generalId), subject: 'greetings', content: 'second' });
        expect(byId.body.id).toBeGreaterThan(byName.body.id);

        const { body } = await member2.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: channelNarrow('general', 'greetings') });
        expect(body.messages.map((m: any) => m.id)).toEqual([byName.body.id, byId.body.id]);
        const [first] = body.messages;
        expect(first).toMatchObject({
          type: 'stream',
          display_recipient: 'general',
          subject: 'greetings',
          stream_id: generalId,
          content: '<p>hello <strong>world</strong></p>',
          content_type: 'text/html',
          sender_email: 'member@example.com',
          sender_full_name: 'Mark Member',
          is_me_message: false,
          reactions: [],
          avatar_url: null,
        });
        for (const field of ['recipient_id', 'timestamp', 'sender_id', 'client', 'flags']) expect(first).toHaveProperty(field);
        expect(first).not.toHaveProperty('edit_history');
        expect(first).not.toHaveProperty('last_edit_timestamp');
        const raw = await member2.get('/messages', { anchor: byName.body.id, num_before: 0, num_after: 0, apply_markdown: false, client_gravatar: false });
        expect(raw.body.messages[0]).toMatchObject({ content: 'hello **world**', content_type: 'text/x-markdown' });
        expect(raw.body.messages[0].avatar_url).toMatch(/^https:\/\//);
      });

      it('escapes raw HTML in message content', async () => {
        const sent = await member.post('/messages', { type: 'stream', to: 'general', topic: 'html', content: '<script>alert(1)</script>' });
        const { body } = await member.get('/messages', { message_ids: [sent.body.id] });
        expect(body.messages[0].content).not.toContain('<script>');
        expect(body.messages[0].content).toContain('&lt;script&gt;');
      });

      it('sends direct messages by ids and by emails, shared recipient_id, readable with a dm narrow', async () => {
        const me = (await member.get('/users/me')).body.user_id as number;
        const other = (await member2.get('/users/me')).body.user_id as number;
        const byIds = await member.post('/messages', { type: 'direct', to: [other], content: 'hi Mary' });
        const byEmails = await member2.post('/messages', { type: 'private', to: ['member@example.com', 'member2@example.com'], content: 'hi Mark' });
        expect(byIds.body.result).toBe('success');
        expect(byEmails.body.result).toBe('success');
        const { body } = await member.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: [{ operator: 'dm', operand: [other] }] });
        expect(body.messages.map((m: any) => m.id)).toEqual([byIds.body.id, byEmails.body.id]);
        const [a, b] = body.messages;
        expect(a.type).toBe('private');
        expect(a.recipient_id).toBe(b.recipient_id);
        expect(a.display_recipient.map((u: any) => u.id)).toEqual([me, other].sort((x, y) => x - y));
        expect(a.display_recipient[0]).toEqual({ id: expect.any(Number), email: expect.any(String), full_name: expect.any(String), is_mirror_dummy: false });
        // Someone outside the conversation sees none of it.
        const outsider = await owner.get('/messages', { message_ids: [byIds.body.id, byEmails.body.id] });
        expect(outsider.body.messages).toEqual([]);
      });

      it('refuses unknown channels and recipients, overlong content and topics, and stores nothing', async () => {
        await expectNothingSent(async () => {
          const noChannel = await member.post('/messages', { type: 'stream', to: 'no-such-channel', topic: 't', content: 'x' });
          expect(noChannel.status).toBe(400);
          expect(noChannel.body).toMatchObject({ code: 'STREAM_DOES_NOT_EXIST', stream: 'no-such-channel' });
          const noChannelId = await member.post('/messages', { type: 'stream', to: '99999', topic: 't', content: 'x' });
          expect(noChannelId.body.code).toBe('STREAM_DOES_NOT_EXIST');
          const noUser = await member.post('/messages', { type: 'direct', to: [99999], content: 'x' });
          expect(noUser.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
          const noEmail = await member.post('/messages', { type: 'direct', to: ['ghost@example.com'], content: 'x' });
          expect(noEmail.body.code).toBe('BAD_REQUEST');
          const noTopic = await member.post('/messages', { type: 'stream', to: 'general', content: 'x' });
          expect(noTopic.body.msg).toContain('topic');
          const longTopic = await member.post('/messages', { type: 'stream', to: 'general', topic: 't'.repeat(61), content: 'x' });
          expect(longTopic.body.code).toBe('BAD_REQUEST');
          const longContent = await member.post('/messages', { type: 'stream', to: 'general', topic: 't', content: 'x'.repeat(10001) });
          expect(longContent.body.code).toBe('BAD_REQUEST');
          const empty = await member.post('/messages', { type: 'stream', to: 'general', topic: 't', content: '   ' });
          expect(empty.body.code).toBe('BAD_REQUEST');
          const privateChannel = await member.post('/messages', { type: 'stream', to: 'leadership', topic: 't', content: 'x' });
          expect(privateChannel.body.result).toBe('error');
          const guestPost = await guest.post('/messages', { type: 'stream', to: 'engineering', topic: 't', content: 'x' });
          expect(guestPost.body.result).toBe('error');
          const halfEcho = await member.post('/messages', { type: 'stream', to: 'general', topic: 't', content: 'x', queue_id: 'q' });
          expect(halfEcho.body.msg).toContain('local_id');
          const otherHalf = await member.post('/messages', { type: 'stream', to: 'general', topic: 't', content: 'x', local_id: '1' });
          expect(otherHalf.body.msg).toContain('queue_id');
        });
        const atLimit = await member.post('/messages', { type: 'stream', to: 'general', topic: 't'.repeat(60), content: 'x'.repeat(10000) });
        expect(atLimit.body.result).toBe('success');
      });

      it('reads the empty-topic display name as the empty topic', async () => {
        const sent = await member.post('/messages', { type: 'stream', to: 'general', topic: 'general chat', content: 'in the empty topic' });
        const shown = await member.get('/messages', { message_ids: [sent.body.id] });
        expect(shown.body.messages[0].subject).toBe('general chat');
        const raw = await member.get('/messages', { message_ids: [sent.body.id], allow_empty_topic_name: true });
        expect(raw.body.messages[0].subject).toBe('');
      });

      it('pages with anchors and reports found_anchor/found_oldest/found_newest exactly', async () => {
        const topic = `paging-${Date.now()}`;
        const ids: number[] = [];
        for (let i = 0; i < 5; i++) {
          ids.push((await member.post('/messages', { type: 'stream', to: 'engineering', topic, content: `m${i}` })).body.id);
        }
        expect([...ids].sort((a, b) => a - b)).toEqual(ids);
        const narrow = channelNarrow('engineering', topic);
        const page = (params: Record<string, unknown>) => owner.get('/messages', { narrow, ...params }).then((r) => r.body);

        const newest = await page({ anchor: 'newest', num_before: 2, num_after: 0 });
        expect(newest.messages.map((m: any) => m.id)).toEqual(ids.slice(3));
        expect(newest).toMatchObject({ found_newest: true, found_oldest: false, found_anchor: false, history_limited: false });

        const oldest = await page({ anchor: 'oldest', num_before: 0, num_after: 2 });
        expect(oldest.messages.map((m: any) => m.id)).toEqual(ids.slice(0, 2));
        expect(oldest).toMatchObject({ found_oldest: true, found_newest: false });

        const middle = await page({ anchor: ids[2], num_before: 1, num_after: 1 });
        expect(middle.messages.map((m: any) => m.id)).toEqual(ids.slice(1, 4));
        expect(middle).toMatchObject({ anchor: ids[2], found_anchor: true, found_oldest: false, found_newest: false });

        const excluded = await page({ anchor: ids[2], num_before: 1, num_after: 1, include_anchor: false });
        expect(excluded.messages.map((m: any) => m.id)).toEqual([ids[1], ids[3]]);
        expect(excluded.found_anchor).toBe(false);

        const all = await page({ anchor: ids[0], num_before: 10, num_after: 10 });
        expect(all.messages.map((m: any) => m.id)).toEqual(ids);
        expect(all).toMatchObject({ found_anchor: true, found_oldest: true, found_newest: true });
      });

      it('rejects bad GET /messages requests clearly', async () => {
        const narrow = channelNarrow('general');
        const cases: [Record<string, unknown>, string][] = [
          [{ anchor: 'sideways', num_before: 1, num_after: 0 }, 'anchor'],
          [{ num_before: 1, num_after: 0 }, 'anchor'],
          [{ anchor: 'newest', num_after: 0 }, 'num_before'],
          [{ anchor: 'newest', num_before: -1, num_after: 0 }, 'num_before'],
          [{ anchor: 'newest', num_before: 4000, num_after: 1001 }, '5000'],
          [{ message_ids: [1], anchor: 'newest' }, 'anchor'],
          [{ message_ids: [1], num_before: 1 }, 'num_before'],
          [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel', operand: 'no-such-channel' }] }, 'channel'],
          [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'frobnicate', operand: 'x' }] }, 'operator'],
          [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: [{ operator: 'channel' }] }, 'narrow'],
          [{ anchor: 'newest', num_before: 1, num_after: 0, narrow: { operator: 'channel', operand: 'general' } }, 'narrow'],
        ];
        for (const [params, mention] of cases) {
          const res = await member.get('/messages', params);
          expect({ params, status: res.status, code: res.body.code }).toEqual({ params, status: 400, code: 'BAD_REQUEST' });
          expect(res.body.msg).toContain(mention);
        }
        // Private channels stay invisible to non-subscribers.
        const hidden = await member.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow: channelNarrow('leadership') });
        expect(hidden.status).toBe(400);
        expect((await owner.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow })).status).toBe(200);
      });

      it('gives strictly increasing ids to concurrent sends, each readable right after its response', async () => {
        const sends = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 ? member : member2).post('/messages', { type: 'stream', to: 'general', topic: 'race', content: `r${i}` }),
          ),
        );
        const ids = sends.map((s) => s.body.id as number);
        expect(new Set(ids).size).toBe(20);
        for (const s of sends) {
          const read = await owner.get('/messages', { message_ids: [s.body.id] });
          expect(read.body.messages).toHaveLength(1);
        }
        const { body } = await owner.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: channelNarrow('general', 'race') });
        const listed = body.messages.map((m: any) => m.id);
        expect(listed).toEqual([...ids].sort((a, b) => a - b));
      });
    });

    describe('event queues', () => {
      it('registers a queue with the limits and feature level', async () => {
        const { body } = await member.post('/register', { event_types: ['message'] });
        expect(body).toMatchObject({
          result: 'success',
          queue_id: expect.any(String),
          last_event_id: -1,
          max_message_length: 10000,
          max_topic_length: 60,
          max_stream_name_length: 60,
          max_stream_description_length: 1024,
          realm_empty_topic_display_name: 'general chat',
          event_queue_longpoll_timeout_seconds: expect.any(Number),
        });
        expect(body.zulip_feature_level).toBeGreaterThanOrEqual(496);
      });

      it('delivers a message event to every recipient, local_message_id only to the sending queue', async () => {
        const senderQueue = (await member.post('/register', { event_types: ['message'], apply_markdown: true })).body.queue_id;
        const otherQueue = (await member.post('/register', { event_types: ['message'] })).body.queue_id;
        const recipientQueue = (await member2.post('/register', { event_types: ['message'] })).body.queue_id;
        const outsiderQueue = (await guest.post('/register', { event_types: ['message'] })).body.queue_id;
        const sent = await member.post('/messages', { type: 'stream', to: 'engineering', topic: 'events', content: '**bold**', queue_id: senderQueue, local_id: 'echo-1' });
        const dm = await member.post('/messages', { type: 'direct', to: ['member2@example.com'], content: 'dm event' });

        const poll = async (client: Client, queue_id: string) =>
          (await client.get('/events', { queue_id, last_event_id: -1, dont_block: true })).body.events as any[];
        const mine = await poll(member, senderQueue);
        expect(mine.map((e) => e.message.id)).toEqual([sent.body.id, dm.body.id]);
        expect(mine[0]).toMatchObject({ type: 'message', local_message_id: 'echo-1', flags: expect.any(Array) });
        expect(mine[0].message.content).toBe('<p><strong>bold</strong></p>');
        expect(mine[1]).not.toHaveProperty('local_message_id');
        const other = await poll(member, otherQueue);
        expect(other[0]).not.toHaveProperty('local_message_id');
        expect(other[0].message.content).toBe('**bold**');
        // member2 is not in engineering: only the direct message reaches them.
        expect((await poll(member2, recipientQueue)).map((e) => e.message.id)).toEqual([dm.body.id]);
        expect(await poll(guest, outsiderQueue)).toEqual([]);
      });

      it('blocks until an event arrives, acknowledges by last_event_id, and heartbeats', async () => {
        const queue_id = (await member2.post('/register', { event_types: ['message'] })).body.queue_id;
        const waiting = member2.get('/events', { queue_id, last_event_id: -1 });
        await new Promise((r) => setTimeout(r, 200));
        const sent = await member.post('/messages', { type: 'direct', to: ['member2@example.com'], content: 'wake up' });
        const woke = (await waiting).body;
        expect(woke.events.map((e: any) => e.message?.id)).toEqual([sent.body.id]);
        const lastId = woke.events[0].id as number;
        const heartbeat = (await member2.get('/events', { queue_id, last_event_id: lastId })).body;
        expect(heartbeat.events).toHaveLength(1);
        expect(heartbeat.events[0]).toMatchObject({ type: 'heartbeat' });
        expect(heartbeat.events[0].id).toBeGreaterThan(lastId);
        const after = (await member2.get('/events', { queue_id, last_event_id: heartbeat.events[0].id, dont_block: true })).body;
        expect(after.events).toEqual([]);
      }, 15_000);

      it('queues only the message events matching the narrow the queue was registered with', async () => {
        const narrowed = (await member.post('/register', { event_types: ['message'], narrow: [['stream', 'engineering']] })).body.queue_id;
        const skipped = await member.post('/messages', { type: 'stream', to: 'general', topic: 'narrowed', content: 'not for the queue' });
        const kept = await member.post('/messages', { type: 'stream', to: 'engineering', topic: 'narrowed', content: 'for the queue' });
        const { events } = (await member.get('/events', { queue_id: narrowed, last_event_id: -1, dont_block: true })).body;
        expect(events.map((e: any) => e.message.id)).toEqual([kept.body.id]);
        expect(skipped.body.id).toBeLessThan(kept.body.id);
        const refused = await member.post('/register', { narrow: [{ operator: 'search', operand: 'x' }] });
        expect(refused.status).toBe(400);
        expect(refused.body.msg).toContain('narrow');
      });

      it('refuses malformed registration and polling parameters by name', async () => {
        const badTypes = await member.post('/register', { event_types: 'message' });
        expect(badTypes.status).toBe(400);
        expect(badTypes.body.msg).toContain("'event_types'");
        const badMarkdown = await member.post('/register', { apply_markdown: 'maybe' });
        expect(badMarkdown.body.msg).toContain("'apply_markdown'");
        const queue_id = (await member.post('/register', {})).body.queue_id;
        const badLast = await member.get('/events', { queue_id, last_event_id: 'latest', dont_block: true });
        expect(badLast.body).toMatchObject({ code: 'BAD_REQUEST' });
        expect(badLast.body.msg).toContain("'last_event_id'");
        const badBlock = await member.get('/events', { queue_id, dont_block: 'yes' });
        expect(badBlock.body.msg).toContain("'dont_block'");
        // The queue is untouched by the refused polls.
        expect((await member.get('/events', { queue_id, dont_block: true })).body).toMatchObject({ result: 'success', events: [] });
      });

      it('refuses unknown and foreign queues with BAD_EVENT_QUEUE_ID and deletes queues', async () => {
        const queue_id = (await member.post('/register', {})).body.queue_id;
        const foreign = await member2.get('/events', { queue_id, dont_block: true });
        expect(foreign.status).toBe(400);
        expect(foreign.body).toMatchObject({ code: 'BAD_EVENT_QUEUE_ID', queue_id });
        expect((await member.get('/events', { queue_id: 'nope', dont_block: true })).body.code).toBe('BAD_EVENT_QUEUE_ID');
        // Without a queue id a queue is registered (see queues-suite.ts).
        expect((await member.get('/events', { dont_block: true })).body).toMatchObject({ result: 'success', events: [], queue_id: expect.any(String) });
        expect((await member.request('DELETE', '/events', { queue_id })).body.result).toBe('success');
        expect((await member.get('/events', { queue_id, dont_block: true })).body.code).toBe('BAD_EVENT_QUEUE_ID');
      });
    });
  });
}
