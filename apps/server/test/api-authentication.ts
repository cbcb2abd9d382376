/** The HTTP API suite (api-suite.ts): authentication: missing, wrong and deactivated credentials, the development and JWT key exchanges, and GET /server_settings without credentials. */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { SignJWT } from 'jose';
import type { ApiKit } from './api-kit';
import { Client } from './harness';

export function apiAuthenticationTests({ suite, clients, expectNothingSent }: ApiKit): void {
  describe('authentication', () => {
    let member: Client;
    let member2: Client;
    let owner: Client;
    let anonymous: Client;
    beforeAll(() => {
      ({ member, member2, owner, anonymous } = clients);
    });

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
}
