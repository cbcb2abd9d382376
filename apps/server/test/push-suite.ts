/**
 * The HTTP suite for push notifications on a server without a push bouncer (issue 37
 * item 6), run against every mode: what the official mobile app calls at start-up and
 * logout, answered as Zulip answers it without a bouncer. POST /mobile_push/register is
 * refused (PUSH_SERVICE_NOT_CONFIGURED) and stores nothing; the older per-user tokens
 * (POST/DELETE /users/me/android_gcm_reg_id and /users/me/apns_device_token) are kept and
 * answered with success, every role but bots; register and /server_settings say push is
 * off. Each refusal is checked to leave the tokens and devices as they were.
 */
import { describe, expect, it } from '@jest/globals';
import type { Client } from './harness';
import type { RunningServer } from './harness';
import { authorizationMatrix, del, expectRefused, suiteServer, type MatrixRow, type Reply } from './suite-kit';

const ROLES = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'] as const;
type Role = (typeof ROLES)[number];
const HUMANS: readonly Role[] = ['owner', 'admin', 'moderator', 'member', 'guest'];

/** A push key as Zulip's clients make it: 0x31 (libsodium's secretbox) and a 32-byte key, base64. */
const PUSH_KEY = Buffer.concat([Buffer.from([0x31]), Buffer.alloc(32, 9)]).toString('base64');
const TOKEN_FIELDS = { token_kind: 'fcm', token_id: 'hGsEWGmyyfI=', bouncer_public_key: 'bouncer-public-key', encrypted_push_registration: 'encrypted-push-registration-data' };
const APP_ID = 'org.zulip.Zulip';
const NOT_CONFIGURED = { code: 'PUSH_SERVICE_NOT_CONFIGURED', status: 400, msg: 'Server is not configured to use push notification service.' };
const BOT_REFUSED = { msg: 'This endpoint does not accept bot requests.' };

let serial = 0;
/** A token no other test uses: FCM's are opaque text, APNs' hex. */
const fcmToken = () => `fcm:APA91b-${process.pid}-${++serial}`;
const apnsToken = () => `${(++serial).toString(16).padStart(8, '0')}${'ab'.repeat(28)}`;

export function pushSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`push notifications without a push bouncer (${mode})`, () => {
    const { clients: c } = suiteServer(start, ['owner', 'admin', 'moderator', 'member', 'member2', 'guest', 'bot']);

    const addFcm = (client: Client, token: string) => client.post('/users/me/android_gcm_reg_id', { token });
    const removeFcm = (client: Client, token: string) => del(client, '/users/me/android_gcm_reg_id', { token });
    const addApns = (client: Client, token: string, appid = APP_ID) => client.post('/users/me/apns_device_token', { token, appid });
    const removeApns = (client: Client, token: string) => del(client, '/users/me/apns_device_token', { token });
    const devicesOf = async (client: Client) => (await client.post('/register', { fetch_event_types: ['device'] })).body.devices;
    /** Whether the user holds the token: removing it succeeds (then it is added back) or answers "Token does not exist". */
    const holds = async (client: Client, kind: 'fcm' | 'apns', token: string): Promise<boolean> => {
      const removed = kind === 'fcm' ? await removeFcm(client, token) : await removeApns(client, token);
      if (removed.body.result !== 'success') {
        expectRefused(removed, { msg: 'Token does not exist' });
        return false;
      }
      expect((kind === 'fcm' ? await addFcm(client, token) : await addApns(client, token)).body.result).toBe('success');
      return true;
    };

    describe('POST /mobile_push/register', () => {
      it('is refused for every human role, whatever the fields, and the device keeps no registration', async () => {
        for (const role of HUMANS) {
          const me = c[role]!;
          const { device_id } = (await me.post('/register_client_device', {})).body;
          const full = { device_id, push_key_id: 2408, push_key: PUSH_KEY, ...TOKEN_FIELDS };
          // Zulip checks for a bouncer before the device and the fields: all of these get the same answer.
          for (const params of [full, { device_id, push_key_id: 1, push_key: PUSH_KEY }, { device_id }, { ...full, device_id: device_id + 10_000 }, { ...full, push_key: 'short' }, { ...full, token_kind: 'sms' }]) {
            expectRefused(await me.post('/mobile_push/register', params), NOT_CONFIGURED);
          }
          expect((await devicesOf(me))[device_id]).toEqual({
            push_key_id: null,
            push_token_id: null,
            pending_push_token_id: null,
            push_token_last_updated_timestamp: null,
            push_registration_error_code: null,
          });
          expect((await me.post('/remove_client_device', { device_id })).body.result).toBe('success');
        }
      });

      it('refuses a bot as a bot, and a request without device_id for its parameter', async () => {
        const { device_id } = (await c.bot!.post('/register_client_device', {})).body;
        expectRefused(await c.bot!.post('/mobile_push/register', { device_id, push_key_id: 1, push_key: PUSH_KEY, ...TOKEN_FIELDS }), BOT_REFUSED);
        expect((await c.bot!.post('/remove_client_device', { device_id })).body.result).toBe('success');
        expectRefused(await c.member!.post('/mobile_push/register', {}), { msg: "Missing 'device_id' argument" });
        expectRefused(await c.member!.post('/mobile_push/register', { device_id: 'one' }));
      });
    });

    describe('who may register push tokens', () => {
      const matrix: MatrixRow<Role>[] = [
        ['add an FCM token', (who) => addFcm(c[who]!, fcmToken()), HUMANS],
        ['add an APNs token', (who) => addApns(c[who]!, apnsToken()), HUMANS],
        [
          'remove an FCM token',
          async (who) => {
            const token = fcmToken();
            await addFcm(c[who]!, token);
            return removeFcm(c[who]!, token);
          },
          HUMANS,
        ],
        [
          'remove an APNs token',
          async (who) => {
            const token = apnsToken();
            await addApns(c[who]!, token);
            return removeApns(c[who]!, token);
          },
          HUMANS,
        ],
      ];
      authorizationMatrix(matrix, ROLES);

      it("refuses bots with Zulip's message", async () => {
        expectRefused(await addFcm(c.bot!, fcmToken()), BOT_REFUSED);
        expectRefused(await addApns(c.bot!, apnsToken()), BOT_REFUSED);
        expectRefused(await removeFcm(c.bot!, fcmToken()), BOT_REFUSED);
        expectRefused(await removeApns(c.bot!, apnsToken()), BOT_REFUSED);
      });
    });

    describe('push tokens', () => {
      it('keeps a token until it is removed, as the app does at start-up and logout; adding it again changes nothing', async () => {
        const member = c.member!;
        const fcm = fcmToken();
        const apns = apnsToken();
        expect((await addFcm(member, fcm)).body).toMatchObject({ result: 'success', msg: '' });
        expect((await addFcm(member, fcm)).body.result).toBe('success');
        expect((await addApns(member, apns)).body.result).toBe('success');
        // The app sends DELETE parameters in the body.
        expect((await member.request('DELETE', '/users/me/android_gcm_reg_id', { token: fcm }, { query: false })).body.result).toBe('success');
        expectRefused(await removeFcm(member, fcm), { msg: 'Token does not exist' });
        expect((await removeApns(member, apns)).body.result).toBe('success');
        expectRefused(await removeApns(member, apns), { msg: 'Token does not exist' });
      });

      it("keeps each user's tokens apart, and each kind apart", async () => {
        const token = 'abcdef0123456789';
        expect((await addFcm(c.member!, token)).body.result).toBe('success');
        expectRefused(await removeFcm(c.member2!, token), { msg: 'Token does not exist' });
        expectRefused(await removeApns(c.member!, token), { msg: 'Token does not exist' });
        // The same token for another user is that user's own registration.
        expect((await addFcm(c.member2!, token)).body.result).toBe('success');
        expect((await removeFcm(c.member2!, token)).body.result).toBe('success');
        expect(await holds(c.member!, 'fcm', token)).toBe(true);
        expect((await removeFcm(c.member!, token)).body.result).toBe('success');
      });

      it('refuses each bad token with a clear error and stores nothing', async () => {
        const member = c.member!;
        const tooLong = 'a'.repeat(4097);
        const cases: [what: string, attempt: () => Promise<Reply>, msg: string | RegExp, kind: 'fcm' | 'apns', token: string][] = [
          ['empty FCM token', () => addFcm(member, ''), 'Empty or invalid length token', 'fcm', ''],
          ['over-long FCM token', () => addFcm(member, tooLong), 'Empty or invalid length token', 'fcm', tooLong],
          ['empty APNs token', () => addApns(member, ''), 'Empty or invalid length token', 'apns', ''],
          ['over-long APNs token', () => addApns(member, tooLong), 'Empty or invalid length token', 'apns', tooLong],
          ['APNs token not hex', () => addApns(member, 'hGsEWGmyyfI='), 'Invalid APNS token', 'apns', 'hGsEWGmyyfI='],
          ['APNs token of odd length', () => addApns(member, 'abc'), 'Invalid APNS token', 'apns', 'abc'],
          ['APNs app id with a slash', () => addApns(member, 'abcd', 'org/zulip'), 'Invalid app ID', 'apns', 'abcd'],
          ['APNs app id empty', () => addApns(member, 'abcd', ''), 'Invalid app ID', 'apns', 'abcd'],
          ['APNs without app id', () => member.post('/users/me/apns_device_token', { token: 'abcd' }), "Missing 'appid' argument", 'apns', 'abcd'],
          ['FCM without token', () => member.post('/users/me/android_gcm_reg_id', {}), "Missing 'token' argument", 'fcm', ''],
          ['APNs without token', () => member.post('/users/me/apns_device_token', { appid: APP_ID }), "Missing 'token' argument", 'apns', ''],
        ];
        for (const [what, attempt, msg, kind, token] of cases) {
          const reply = await attempt();
          expect([what, reply.status]).toEqual([what, 400]);
          expectRefused(reply, { msg });
          // The reply never quotes the token.
          if (token.length > 8) expect(JSON.stringify(reply.body)).not.toContain(token);
          // Nothing stored: the token is not the user's (a valid-looking one is checked by removing it).
          if (token !== '' && token.length <= 4096 && (kind === 'fcm' || /^(?:[0-9a-fA-F]{2})+$/.test(token))) expect(await holds(member, kind, token)).toBe(false);
        }
      });

      it('refuses removing a bad or unknown token with a clear error', async () => {
        const member = c.member!;
        expectRefused(await removeFcm(member, ''), { msg: 'Empty or invalid length token' });
        expectRefused(await removeFcm(member, 'b'.repeat(4097)), { msg: 'Empty or invalid length token' });
        expectRefused(await removeApns(member, ''), { msg: 'Empty or invalid length token' });
        expectRefused(await removeApns(member, 'xyz!'), { msg: 'Invalid APNS token' });
        expectRefused(await removeFcm(member, fcmToken()), { msg: 'Token does not exist' });
        expectRefused(await removeApns(member, apnsToken()), { msg: 'Token does not exist' });
        expectRefused(await del(member, '/users/me/android_gcm_reg_id'), { msg: "Missing 'token' argument" });
        expectRefused(await del(member, '/users/me/apns_device_token'), { msg: "Missing 'token' argument" });
      });
    });

    describe('what the server says of push', () => {
      it('register and /server_settings say push notifications are off, for every role', async () => {
        for (const role of ROLES) {
          const state = (await c[role]!.post('/register', { fetch_event_types: ['realm'] })).body;
          expect(state.realm_push_notifications_enabled).toBe(false);
          expect(state).toHaveProperty('realm_push_notifications_enabled_end_timestamp', null);
        }
        const settings = (await c.member!.get('/server_settings')).body;
        expect(settings.push_notifications_enabled).toBe(false);
      });
    });
  });
}
