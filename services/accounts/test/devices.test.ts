/** Given facts / when command / then facts for the logged-in device deciders. */
import { describe, expect, it } from '@jest/globals';
import type { Fact } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  decideRegisterDevice,
  decideRegisterPush,
  decideRemoveDevice,
  evolveDevices,
  initialDevices,
  MAX_DEVICES_PER_USER,
  type DevicesState,
  type RegisterPush,
} from '../src/domain/devices';

const spec = <C>(decide: (state: DevicesState, cmd: C) => Fact[]) =>
  deciderSpec<DevicesState, C>({ initial: initialDevices, evolve: evolveDevices, decide: (cmd, state) => decide(state, cmd) });
const register = spec<{ user_id: number }>((state, cmd) => decideRegisterDevice(state, cmd).facts);
const remove = spec<{ user_id: number; device_id: number }>((state, cmd) => decideRemoveDevice(state, cmd));
type Push = Omit<RegisterPush, 'now' | 'user_id' | 'device_id'> & { user_id?: number; device_id?: number };
const NOW = 1_700_000_000_000;
const push = spec<Push>((state, cmd) => decideRegisterPush(state, { user_id: 4, device_id: 1, now: NOW, ...cmd }));

const device = (device_id: number, user_id = 4): Fact => ({ type: 'DeviceRegistered', user_id, device_id });
/** A 0x31 prefix and a 32-byte key, base64. */
const KEY = Buffer.concat([Buffer.from([0x31]), Buffer.alloc(32, 7)]).toString('base64');
const keyFields = { push_key_id: 2408, push_key: KEY };
const tokenFields = { token_kind: 'fcm', token_id: 'hGsEWGmyyfI=', bouncer_public_key: 'bouncer-public-key', encrypted_push_registration: 'encrypted' };
const registered: Fact = {
  type: 'DevicePushRegistrationChanged',
  user_id: 4,
  device_id: 1,
  changes: { push_key_id: 2408, push_token_id: 'hGsEWGmyyfI=', push_token_last_updated_timestamp: NOW / 1000 },
};

describe('logged-in devices', () => {
  it('registers devices with ids in order, whoever registers them', () => {
    register.given([]).when({ user_id: 4 }).then([device(1)]);
    register.given([device(1), device(2, 5)]).when({ user_id: 5 }).then([device(3, 5)]);
    // A removed device's id is not given again.
    register.given([device(1), { type: 'DeviceRemoved', user_id: 4, device_id: 1 }]).when({ user_id: 4 }).then([device(2)]);
  });

  it('refuses a device past the per-user limit', () => {
    const many = Array.from({ length: MAX_DEVICES_PER_USER }, (_, i) => device(i + 1));
    register.given(many).when({ user_id: 4 }).thenThrows({ code: 'BAD_REQUEST', msg: /at most/ });
    register.given(many).when({ user_id: 5 }).then([device(MAX_DEVICES_PER_USER + 1, 5)]);
  });

  it("removes the user's own device, and refuses an unknown one or another user's", () => {
    remove.given([device(1)]).when({ user_id: 4, device_id: 1 }).then([{ type: 'DeviceRemoved', user_id: 4, device_id: 1 }]);
    remove.given([]).when({ user_id: 4, device_id: 1 }).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid device ID' });
    remove.given([device(1, 5)]).when({ user_id: 4, device_id: 1 }).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid device ID' });
  });

  it('registers push with both field groups first, then rotates either alone', () => {
    push.given([device(1)]).when({ ...keyFields, ...tokenFields }).then([registered]);
    push.given([device(1), registered]).when({ push_key_id: 9, push_key: KEY }).then([
      { type: 'DevicePushRegistrationChanged', user_id: 4, device_id: 1, changes: { push_key_id: 9 } },
    ]);
    push.given([device(1), registered]).when({ ...tokenFields, token_id: 'AAAAAAAAAAA=', token_kind: 'apns' }).then([
      { type: 'DevicePushRegistrationChanged', user_id: 4, device_id: 1, changes: { push_token_id: 'AAAAAAAAAAA=', push_token_last_updated_timestamp: NOW / 1000 } },
    ]);
    // The same key again changes nothing.
    push.given([device(1), registered]).when(keyFields).then([]);
  });

  it('refuses push registrations that are partial, malformed, first with one group, or for a device not the user’s', () => {
    const refused = (given: Fact[], cmd: Push, msg?: RegExp | string) => push.given(given).when(cmd).thenThrows({ code: 'BAD_REQUEST', ...(msg ? { msg } : {}) });
    refused([device(1)], keyFields, /first registration/);
    refused([device(1)], tokenFields, /first registration/);
    refused([device(1)], {}, /push key fields/);
    refused([device(1)], { ...tokenFields, push_key_id: 1 }, /together/);
    refused([device(1)], { ...keyFields, token_kind: 'fcm' }, /together/);
    refused([device(1)], { ...tokenFields, ...keyFields, push_key: 'not base64!' }, 'Invalid push_key');
    refused([device(1)], { ...tokenFields, ...keyFields, push_key: Buffer.alloc(33, 0x32).toString('base64') }, 'Invalid push_key');
    refused([device(1)], { ...tokenFields, ...keyFields, push_key_id: -1 }, /push_key_id/);
    refused([device(1)], { ...tokenFields, ...keyFields, push_key_id: 2 ** 32 }, /push_key_id/);
    refused([device(1)], { ...keyFields, ...tokenFields, token_kind: 'sms' }, /token_kind/);
    refused([device(1)], { ...keyFields, ...tokenFields, token_id: '' }, 'Invalid token_id');
    refused([device(1)], { ...keyFields, ...tokenFields, bouncer_public_key: ' ' }, 'Invalid bouncer_public_key');
    refused([], { ...keyFields, ...tokenFields }, 'Invalid device ID');
    refused([device(1, 5)], { ...keyFields, ...tokenFields }, 'Invalid device ID');
  });

  it('keeps no push key in the facts it decides', () => {
    const state = [device(1)].reduce(evolveDevices, initialDevices());
    expect(JSON.stringify(decideRegisterPush(state, { user_id: 4, device_id: 1, now: NOW, ...keyFields, ...tokenFields }))).not.toContain(KEY);
  });
});
