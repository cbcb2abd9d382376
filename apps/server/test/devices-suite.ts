/**
 * The HTTP suite for logged-in devices (issue 17 item 6), run against every mode: POST
 * /register_client_device, /mobile_push/register and /remove_client_device for every
 * role, register's `devices`, `device` events to the user's own clients only, and the
 * refusals, each leaving the devices as they were.
 */
import { describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { eventsUntil, expectRefused, suiteServer, type Reply } from './suite-kit';

const without = (params: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(params).filter(([k]) => k !== key));

/** A push key as Zulip's clients make it: 0x31 (libsodium's secretbox) and a 32-byte key, base64. */
const PUSH_KEY = Buffer.concat([Buffer.from([0x31]), Buffer.alloc(32, 9)]).toString('base64');
const TOKEN = { token_kind: 'fcm', token_id: 'hGsEWGmyyfI=', bouncer_public_key: 'bouncer-public-key', encrypted_push_registration: 'encrypted-push-registration-data' };

export function devicesSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`logged-in devices (${mode})`, () => {
    const { clients: c } = suiteServer(start, ['owner', 'admin', 'member', 'member2', 'guest', 'echo-bot']);

    const refusedWith = (reply: Reply, msg?: RegExp | string) => expectRefused(reply, { msg });
    const devicesOf = async (client: Client) => (await client.post('/register', { fetch_event_types: ['device'] })).body.devices;

    it('every role registers a device, registers it for push, sees it in register and removes it, with device events to its own clients only', async () => {
      for (const name of ['owner', 'admin', 'member', 'guest', 'echo-bot'] as const) {
        const me = c[name]!;
        const other = c[name === 'member' ? 'member2' : 'member']!;
        const mine = (await me.post('/register', { event_types: ['device'] })).body.queue_id;
        const theirs = (await other.post('/register', { event_types: ['device'] })).body.queue_id;
        const added = await me.post('/register_client_device', {});
        expect(added.body).toMatchObject({ result: 'success', device_id: expect.any(Number) });
        const device_id = added.body.device_id as number;
        const before = Math.floor(Date.now() / 1000);
        expect((await me.post('/mobile_push/register', { device_id, push_key_id: 2408, push_key: PUSH_KEY, ...TOKEN })).body.result).toBe('success');
        const devices = await devicesOf(me);
        expect(devices).toEqual({
          [device_id]: {
            push_key_id: 2408,
            push_token_id: TOKEN.token_id,
            pending_push_token_id: null,
            push_token_last_updated_timestamp: expect.any(Number),
            push_registration_error_code: null,
          },
        });
        expect(devices[device_id].push_token_last_updated_timestamp).toBeGreaterThanOrEqual(before - 1);
        // Another user's register does not list it.
        expect(await devicesOf(other)).toEqual({});
        expect((await me.post('/remove_client_device', { device_id })).body.result).toBe('success');
        expect(await devicesOf(me)).toEqual({});
        const events = await eventsUntil(me, mine, (e) => e.length >= 3);
        expect(events.map(({ id: _id, ...e }) => e)).toEqual([
          { type: 'device', op: 'add', device_id },
          {
            type: 'device',
            op: 'update',
            device_id,
            push_key_id: 2408,
            push_token_id: TOKEN.token_id,
            push_token_last_updated_timestamp: devices[device_id].push_token_last_updated_timestamp,
          },
          { type: 'device', op: 'remove', device_id },
        ]);
        expect(await eventsUntil(other, theirs, () => true)).toEqual([]);
      }
    });

    it('rotates the push key alone once registered', async () => {
      const member = c.member!;
      const { device_id } = (await member.post('/register_client_device', {})).body;
      await member.post('/mobile_push/register', { device_id, push_key_id: 1, push_key: PUSH_KEY, ...TOKEN });
      expect((await member.post('/mobile_push/register', { device_id, push_key_id: 2, push_key: PUSH_KEY })).body.result).toBe('success');
      expect((await devicesOf(member))[device_id]).toMatchObject({ push_key_id: 2, push_token_id: TOKEN.token_id });
      await member.post('/remove_client_device', { device_id });
    });

    it("refuses unknown and other users' devices, partial and malformed push fields, and bad parameters, changing nothing", async () => {
      const member = c.member!;
      const { device_id } = (await member.post('/register_client_device', {})).body;
      const before = await devicesOf(member);
      const full = { device_id, push_key_id: 7, push_key: PUSH_KEY, ...TOKEN };
      refusedWith(await member.post('/remove_client_device', { device_id: device_id + 1000 }), 'Invalid device ID');
      refusedWith(await c.member2!.post('/remove_client_device', { device_id }), 'Invalid device ID');
      refusedWith(await c.member2!.post('/mobile_push/register', full), 'Invalid device ID');
      refusedWith(await member.post('/remove_client_device', {}));
      refusedWith(await member.post('/remove_client_device', { device_id: 'one' }));
      refusedWith(await member.post('/mobile_push/register', { device_id, push_key_id: 7, push_key: PUSH_KEY }), /first registration/);
      refusedWith(await member.post('/mobile_push/register', { device_id, ...TOKEN }), /first registration/);
      refusedWith(await member.post('/mobile_push/register', { device_id }), /push key fields/);
      refusedWith(await member.post('/mobile_push/register', without(full, 'push_key')), /together/);
      refusedWith(await member.post('/mobile_push/register', without(full, 'encrypted_push_registration')), /together/);
      refusedWith(await member.post('/mobile_push/register', { ...full, push_key: 'c2hvcnQ=' }), 'Invalid push_key');
      refusedWith(await member.post('/mobile_push/register', { ...full, push_key_id: 2 ** 32 }), /push_key_id/);
      refusedWith(await member.post('/mobile_push/register', { ...full, token_kind: 'sms' }), /token_kind/);
      refusedWith(await member.post('/mobile_push/register', { ...full, token_id: 'not base64!' }), 'Invalid token_id');
      refusedWith(await member.post('/mobile_push/register', { ...full, bouncer_public_key: ' ' }), 'Invalid bouncer_public_key');
      refusedWith(await member.post('/mobile_push/register', { ...full, encrypted_push_registration: '' }), 'Invalid encrypted_push_registration');
      expect(await devicesOf(member)).toEqual(before);
      // The other user's refused attempts left the device in place.
      expect((await member.post('/remove_client_device', { device_id })).body.result).toBe('success');
      refusedWith(await member.post('/remove_client_device', { device_id }), 'Invalid device ID');
    });

    it('refuses a device past the per-user limit until one is removed', async () => {
      const admin = c.admin!;
      const ids: number[] = [];
      for (let i = 0; i < 100; i++) ids.push((await admin.post('/register_client_device', {})).body.device_id);
      expect(new Set(ids).size).toBe(100);
      refusedWith(await admin.post('/register_client_device', {}), /at most 100 devices/);
      expect(Object.keys(await devicesOf(admin))).toHaveLength(100);
      await admin.post('/remove_client_device', { device_id: ids.pop() });
      ids.push((await admin.post('/register_client_device', {})).body.device_id);
      for (const device_id of ids) expect((await admin.post('/remove_client_device', { device_id })).body.result).toBe('success');
    });
  });
}
