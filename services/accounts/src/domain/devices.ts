/**
 * Logged-in devices (issue 17 item 6): a mobile client registers itself and gets an id,
 * and removes itself when the user logs out. Only a device's own user may remove it:
 * anyone else's id answers as an unknown one. Pure.
 *
 * The next step, registering the device for end-to-end encrypted push notifications
 * (POST /mobile_push/register), needs a push bouncer, which this server does not have: it
 * is refused as Zulip refuses it without one (handlers/devices.ts), so nothing decides it
 * here. `DevicePushRegistrationChanged` is still folded, for the facts that servers before
 * that refusal stored.
 */
import { badRequest, type Fact, type StoredDevice } from '@teamchat/contracts';

export interface DeviceEntry extends StoredDevice {
  user_id: number;
}

export interface DevicesState {
  byId: ReadonlyMap<number, DeviceEntry>;
  lastId: number;
}

export const initialDevices = (): DevicesState => ({ byId: new Map(), lastId: 0 });

export const NEW_DEVICE: StoredDevice = {
  push_key_id: null,
  push_token_id: null,
  pending_push_token_id: null,
  push_token_last_updated_timestamp: null,
  push_registration_error_code: null,
};

export function evolveDevices(state: DevicesState, fact: Fact): DevicesState {
  switch (fact.type) {
    case 'DeviceRegistered': {
      const byId = new Map(state.byId);
      byId.set(fact.device_id, { user_id: fact.user_id, ...NEW_DEVICE });
      return { byId, lastId: Math.max(state.lastId, fact.device_id) };
    }
    case 'DevicePushRegistrationChanged': {
      const current = state.byId.get(fact.device_id);
      if (!current) return state;
      const byId = new Map(state.byId);
      byId.set(fact.device_id, { ...current, ...fact.changes });
      return { ...state, byId };
    }
    case 'DeviceRemoved': {
      const byId = new Map(state.byId);
      byId.delete(fact.device_id);
      return { ...state, byId };
    }
    default:
      return state;
  }
}

/** A user may keep this many devices registered (Zulip sets no limit; an unbounded list is a way to fill the store). */
export const MAX_DEVICES_PER_USER = 100;

export function decideRegisterDevice(state: DevicesState, cmd: { user_id: number }): { facts: Fact[]; device_id: number } {
  let owned = 0;
  for (const device of state.byId.values()) if (device.user_id === cmd.user_id) owned += 1;
  if (owned >= MAX_DEVICES_PER_USER) throw badRequest(`You may register at most ${MAX_DEVICES_PER_USER} devices; remove one first`);
  const device_id = state.lastId + 1;
  return { facts: [{ type: 'DeviceRegistered', user_id: cmd.user_id, device_id }], device_id };
}

function ownDevice(state: DevicesState, userId: number, deviceId: number): DeviceEntry {
  const device = state.byId.get(deviceId);
  // Another user's device answers as a missing one: its existence is not theirs to learn.
  if (!device || device.user_id !== userId) throw badRequest('Invalid device ID');
  return device;
}

export function decideRemoveDevice(state: DevicesState, cmd: { user_id: number; device_id: number }): Fact[] {
  ownDevice(state, cmd.user_id, cmd.device_id);
  return [{ type: 'DeviceRemoved', user_id: cmd.user_id, device_id: cmd.device_id }];
}
