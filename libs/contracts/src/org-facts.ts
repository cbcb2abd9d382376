/**
 * Facts of the organization's settings, user status and custom profile fields (accounts'
 * streams). Each carries its audience: every active user (named, audiences.ts), as Zulip
 * sends `realm`, `user_status` and `custom_profile_fields` events to the whole organization.
 */
import { z } from 'zod';
import { OrganizationAudience } from './audiences';
import { RealmSettingValue } from './realm-settings';

const int = () => z.number().int();
const audience = OrganizationAudience;

/** Streams of accounts' organization features. */
export const orgStreams = {
  /** The organization's settings changed by PATCH /realm. */
  realmSettings: 'realm_settings',
  /** One user's status. */
  userStatus: (userId: number) => `user_status-${userId}`,
  /** The custom profile fields and every user's values (deleting a field drops its values in the same stream). */
  customProfileFields: 'custom_profile_fields',
} as const;

export const RealmSettingsChanged = z.object({
  type: z.literal('RealmSettingsChanged'),
  /** Only the settings whose value changed, in stored form (a limit of `unlimited` is null). */
  changes: z.record(z.string(), RealmSettingValue),
  actor_id: int(),
  ...audience,
});

export const REACTION_TYPES = ['unicode_emoji', 'realm_emoji', 'service_extra_emoji'] as const;

/** A status as it stands after the change (empty strings: none). */
export const UserStatusChanged = z.object({
  type: z.literal('UserStatusChanged'),
  user_id: int(),
  status_text: z.string(),
  emoji_name: z.string(),
  emoji_code: z.string(),
  reaction_type: z.enum(REACTION_TYPES),
  /** What the request changed, for the event: Zulip's event names only those. */
  changed: z.array(z.enum(['status_text', 'emoji'])),
  ...audience,
});

/** Zulip's field types (`CustomProfileField.FIELD_TYPE_CHOICES`). */
export const PROFILE_FIELD_TYPE = {
  short_text: 1,
  long_text: 2,
  choice: 3,
  date: 4,
  link: 5,
  users: 6,
  external_account: 7,
  pronouns: 8,
} as const;

/** A custom profile field as clients see it (`field_data` is JSON text, as in Zulip). */
export const ApiProfileField = z.strictObject({
  id: int(),
  type: int(),
  order: int(),
  name: z.string(),
  hint: z.string(),
  field_data: z.string(),
  display_in_profile_summary: z.boolean().optional(),
  required: z.boolean(),
  editable_by_user: z.boolean(),
});
export type ApiProfileField = z.infer<typeof ApiProfileField>;

/** Every field after a change to the set (create, update, delete, reorder). */
export const CustomProfileFieldsChanged = z.object({
  type: z.literal('CustomProfileFieldsChanged'),
  fields: z.array(ApiProfileField),
  /** A deleted field: every user's value of it goes with it. */
  deleted_field_id: int().optional(),
  ...audience,
});

/** One user's values: JSON text for `users` fields, as Zulip stores them; null removes. */
export const CustomProfileDataChanged = z.object({
  type: z.literal('CustomProfileDataChanged'),
  user_id: int(),
  changes: z.array(z.object({ id: int(), value: z.string().nullable() })),
  ...audience,
});
