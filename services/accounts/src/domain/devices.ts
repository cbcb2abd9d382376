/**
 * Logged-in devices (issue 17 item 6): a mobile client registers itself and gets an id,
 * then registers for end-to-end encrypted push notifications on it (a push key, and the
 * FCM/APNs token meant for the push bouncer), and removes itself when the user logs out.
 * Only a device's own user may change or remove it: anyone else's id answers as an
 * unknown one. Pure.
 *
 * There is no push bouncer here, so a token registration completes at once: the token's
 * id becomes `push_token_id` (Zulip keeps it in `pending_push_token_id` until the bouncer
 * answers), and the bouncer's fields are checked for shape only and not kept.
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

export interface RegisterPush {
  user_id: number;
  device_id: number;
  push_key_id?: number | undefined;
  push_key?: string | undefined;
  token_kind?: string | undefined;
  token_id?: string | undefined;
  bouncer_public_key?: string | undefined;
  encrypted_push_registration?: string | undefined;
  /** Milliseconds since the epoch. */
  now: number;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** Zulip's push key: a prefix byte naming the cryptosystem (0x31: libsodium's secretbox) and its 32-byte key. */
const PUSH_KEY_PREFIX = 0x31;
const PUSH_KEY_BYTES = 33;
const MAX_FIELD_LENGTH = 4096;

function checkPushKey(key: string): void {
  const bytes = BASE64.test(key) ? Buffer.from(key, 'base64') : undefined;
  if (!bytes || bytes.length !== PUSH_KEY_BYTES || bytes[0] !== PUSH_KEY_PREFIX) throw badRequest('Invalid push_key');
}

/**
 * Registers or rotates a device's push key and/or token. A first registration needs both
 * groups of fields; later, either group alone rotates it. A field group given in part is
 * refused as a whole, so a half-rotated key never exists.
 */
export function decideRegisterPush(state: DevicesState, cmd: RegisterPush): Fact[] {
  const device = ownDevice(state, cmd.user_id, cmd.device_id);
  const keyFields = [cmd.push_key_id, cmd.push_key];
  const tokenFields = [cmd.token_kind, cmd.token_id, cmd.bouncer_public_key, cmd.encrypted_push_registration];
  const hasKey = keyFields.some((f) => f !== undefined);
  const hasToken = tokenFields.some((f) => f !== undefined);
  if (hasKey && keyFields.some((f) => f === undefined)) throw badRequest('push_key and push_key_id must be given together');
  if (hasToken && tokenFields.some((f) => f === undefined)) {
    throw badRequest('token_kind, token_id, bouncer_public_key and encrypted_push_registration must be given together');
  }
  if (!hasKey && !hasToken) throw badRequest('Give the push key fields, the token fields, or both');
  const registered = device.push_key_id !== null || device.push_token_id !== null;
  if (!registered && !(hasKey && hasToken)) throw badRequest('A first registration needs both the push key and the token fields');
  const changes: Partial<StoredDevice> = {};
  if (hasKey) {
    const id = cmd.push_key_id!;
    if (id < 0 || id > 0xffff_ffff) throw badRequest('Invalid push_key_id: it must be an unsigned 32-bit integer');
    checkPushKey(cmd.push_key!);
    if (id !== device.push_key_id) changes.push_key_id = id;
  }
  if (hasToken) {
    if (cmd.token_kind !== 'fcm' && cmd.token_kind !== 'apns') throw badRequest('Invalid token_kind: it must be "fcm" or "apns"');
    const tokenId = cmd.token_id!;
    if (tokenId.length === 0 || tokenId.length > 200 || !BASE64.test(tokenId)) throw badRequest('Invalid token_id');
    for (const [name, value] of [
      ['bouncer_public_key', cmd.bouncer_public_key!],
      ['encrypted_push_registration', cmd.encrypted_push_registration!],
    ] as const) {
      if (value.trim().length === 0 || value.length > MAX_FIELD_LENGTH) throw badRequest(`Invalid ${name}`);
    }
    if (tokenId !== device.push_token_id) changes.push_token_id = tokenId;
    if (device.pending_push_token_id !== null) changes.pending_push_token_id = null;
    if (device.push_registration_error_code !== null) changes.push_registration_error_code = null;
    // Every token registration is dated: clients re-register when it grows old.
    changes.push_token_last_updated_timestamp = Math.floor(cmd.now / 1000);
  }
  if (Object.keys(changes).length === 0) return [];
  return [{ type: 'DevicePushRegistrationChanged', user_id: cmd.user_id, device_id: cmd.device_id, changes }];
}
