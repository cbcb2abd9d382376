/**
 * The HTTP suite for logged-in devices (issue 17 item 6), run against every mode: POST
 * /register_client_device and /remove_client_device for every role, register's
 * `devices`, `device` events to the user's own clients only, and the refusals, each
 * leaving the devices as they were. Registering a device for push (POST
 * /mobile_push/register) is refused on this server, which has no push bouncer: that is
 * push-suite.ts.
 */
import { describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { eventsUntil, expectRefused, suiteServer, type Reply } from './suite-kit';

export function devicesSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`logged-in devices (${mode})`, () => {
    const { clients: c } = suiteServer(start, ['owner', 'admin', 'moderator', 'member', 'member2', 'guest', 'echo-bot']);

    const refusedWith = (reply: Reply, msg?: RegExp | string) => expectRefused(reply, { msg });
    const devicesOf = async (client: Client) => (await client.post('/register', { fetch_event_types: ['device'] })).body.devices;

    it('every role registers a device, sees it in register and removes it, with device events to its own clients only', async () => {
      for (const name of ['owner', 'admin', 'moderator', 'member', 'guest', 'echo-bot'] as const) {
        const me = c[name]!;
        const other = c[name === 'member' ? 'member2' : 'member']!;
        const mine = (await me.post('/register', { event_types: ['device'] })).body.queue_id;
        const theirs = (await other.post('/register', { event_types: ['device'] })).body.queue_id;
        const added = await me.post('/register_client_device', {});
        expect(added.body).toMatchObject({ result: 'success', device_id: expect.any(Number) });
        const device_id = added.body.device_id as number;
        expect(await devicesOf(me)).toEqual({
          [device_id]: {
            push_key_id: null,
            push_token_id: null,
            pending_push_token_id: null,
            push_token_last_updated_timestamp: null,
            push_registration_error_code: null,
          },
        });
        // Another user's register does not list it.
        expect(await devicesOf(other)).toEqual({});
        expect((await me.post('/remove_client_device', { device_id })).body.result).toBe('success');
        expect(await devicesOf(me)).toEqual({});
        const events = await eventsUntil(me, mine, (e) => e.length >= 2);
        expect(events.map(({ id: _id, ...e }) => e)).toEqual([
          { type: 'device', op: 'add', device_id },
          { type: 'device', op: 'remove', device_id },
        ]);
        expect(await eventsUntil(other, theirs, () => true)).toEqual([]);
      }
    });

    it("refuses unknown and other users' devices and bad parameters, changing nothing", async () => {
      const member = c.member!;
      const { device_id } = (await member.post('/register_client_device', {})).body;
      const before = await devicesOf(member);
      refusedWith(await member.post('/remove_client_device', { device_id: device_id + 1000 }), 'Invalid device ID');
      refusedWith(await c.member2!.post('/remove_client_device', { device_id }), 'Invalid device ID');
      refusedWith(await member.post('/remove_client_device', {}));
      refusedWith(await member.post('/remove_client_device', { device_id: 'one' }));
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
