/**
 * Facts of the devices users log in from (issue 17 item 6; Zulip's `Device`, feature
 * levels 468-470): a logged-in mobile client registers itself, then registers for
 * end-to-end encrypted push notifications on that device. One stream for the organization
 * (`devices`), so device ids are allocated in order. Accounts appends them; the fan-out
 * tells the user's own clients (`device` events).
 *
 * No fact holds the push key itself (a secret for encrypting notifications) or the
 * encrypted registration meant for the push bouncer: push delivery is not built, and a
 * secret has no place in the event store. The key's id and the token's id are what
 * clients read back.
 */
import { z } from 'zod';

const int = () => z.number().int();

/** A device as register's `devices` section gives it (keyed by device id there). */
export const StoredDevice = z.object({
  push_key_id: int().nullable(),
  push_token_id: z.string().nullable(),
  pending_push_token_id: z.string().nullable(),
  /** Seconds since the epoch of the last token registration, null before one. */
  push_token_last_updated_timestamp: int().nullable(),
  push_registration_error_code: z.string().nullable(),
});
export type StoredDevice = z.infer<typeof StoredDevice>;

export const DeviceRegistered = z.object({ type: z.literal('DeviceRegistered'), user_id: int(), device_id: int() });
/** Only the properties that changed, as the `device` update event carries them. */
export const DevicePushRegistrationChanged = z.object({
  type: z.literal('DevicePushRegistrationChanged'),
  user_id: int(),
  device_id: int(),
  changes: StoredDevice.partial(),
});
export const DeviceRemoved = z.object({ type: z.literal('DeviceRemoved'), user_id: int(), device_id: int() });

/**
 * A user's push token (Zulip's `PushDeviceToken`): what FCM or APNs gave the app to reach
 * that phone, registered at the app's start-up. It is an address for the push service,
 * not a credential of this server; still it is never logged. Nothing delivers pushes
 * here (no bouncer), but the tokens are kept as Zulip keeps them without one, so a
 * bouncer added later has them. One stream per user (`push_tokens-<id>`).
 */
export const PushTokenKind = z.enum(['fcm', 'apns']);
export type PushTokenKind = z.infer<typeof PushTokenKind>;
export const PushTokenAdded = z.object({
  type: z.literal('PushTokenAdded'),
  user_id: int(),
  kind: PushTokenKind,
  token: z.string(),
  /** The iOS app's bundle id for an APNs token, null for FCM. */
  ios_app_id: z.string().nullable(),
  /** Seconds since the epoch. */
  timestamp: int(),
});
export const PushTokenRemoved = z.object({ type: z.literal('PushTokenRemoved'), user_id: int(), kind: PushTokenKind, token: z.string() });

export const DEVICE_FACTS = [DeviceRegistered, DevicePushRegistrationChanged, DeviceRemoved, PushTokenAdded, PushTokenRemoved] as const;
