/** The HTTP API suite (api-suite.ts): the gateway's conventions: unknown routes and methods, unsupported parameters, the ways parameters arrive, and the error envelope for what cannot be parsed. */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { ApiKit } from './api-kit';
import { Client } from './harness';

export function apiConventionsTests({ suite, clients, expectNothingSent }: ApiKit): void {
  describe('conventions', () => {
    let member: Client;
    let owner: Client;
    let anonymous: Client;
    beforeAll(() => {
      ({ member, owner, anonymous } = clients);
    });

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
}
