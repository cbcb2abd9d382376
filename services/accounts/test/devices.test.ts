/** Given facts / when command / then facts for the logged-in device deciders. */
import { describe, expect, it } from '@jest/globals';
import type { Fact } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { decideRegisterDevice, decideRemoveDevice, evolveDevices, initialDevices, MAX_DEVICES_PER_USER, type DevicesState } from '../src/domain/devices';

const spec = <C>(decide: (state: DevicesState, cmd: C) => Fact[]) =>
  deciderSpec<DevicesState, C>({ initial: initialDevices, evolve: evolveDevices, decide: (cmd, state) => decide(state, cmd) });
const register = spec<{ user_id: number }>((state, cmd) => decideRegisterDevice(state, cmd).facts);
const remove = spec<{ user_id: number; device_id: number }>((state, cmd) => decideRemoveDevice(state, cmd));

const device = (device_id: number, user_id = 4): Fact => ({ type: 'DeviceRegistered', user_id, device_id });
/** Stored by servers before POST /mobile_push/register was refused (there is no push bouncer). */
const registered: Fact = {
  type: 'DevicePushRegistrationChanged',
  user_id: 4,
  device_id: 1,
  changes: { push_key_id: 2408, push_token_id: 'hGsEWGmyyfI=', push_token_last_updated_timestamp: 1_700_000_000 },
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

  it('still folds a stored push registration: the device keeps it until removed', () => {
    const state = [device(1), registered].reduce(evolveDevices, initialDevices());
    expect(state.byId.get(1)).toMatchObject({ user_id: 4, push_key_id: 2408, push_token_id: 'hGsEWGmyyfI=' });
    remove.given([device(1), registered]).when({ user_id: 4, device_id: 1 }).then([{ type: 'DeviceRemoved', user_id: 4, device_id: 1 }]);
  });
});
