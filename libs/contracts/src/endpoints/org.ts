/**
 * Organization settings (PATCH /realm), user status (endpoint 9) and custom profile
 * fields, answered by accounts; and their sections of POST /register.
 */
import { z } from 'zod';
import { GroupSettingUpdate } from '../groups';
import { ApiProfileField, REACTION_TYPES } from '../org-facts';
import { REALM_SETTINGS, type RealmSettingName, type RealmSettingSpec } from '../realm-settings';
import { EmptyReply, endpoint } from './contract';

const int = () => z.number().int();

/** A setting's parameter form: limits take a number of seconds or `unlimited`, group-settings an update object. */
function paramOf(spec: RealmSettingSpec): z.ZodType {
  switch (spec.type.kind) {
    case 'text':
      return z.string();
    case 'boolean':
      return z.boolean();
    case 'count':
    case 'choice':
    case 'channel':
      return int();
    case 'limit':
      return z.union([int(), z.string()]);
    case 'group':
      return GroupSettingUpdate;
  }
}

export const UpdateRealmParams = z.object(
  Object.fromEntries(Object.entries(REALM_SETTINGS).map(([name, spec]) => [name, paramOf(spec).optional()])) as Record<RealmSettingName, z.ZodOptional<z.ZodType>>,
);
export type UpdateRealmParams = Partial<Record<RealmSettingName, unknown>>;

/** A status as GET /users/{id}/status and register's `user_status` give it: only what is set. */
export const ApiUserStatus = z.strictObject({
  away: z.boolean().optional(),
  status_text: z.string().optional(),
  emoji_name: z.string().optional(),
  emoji_code: z.string().optional(),
  reaction_type: z.enum(REACTION_TYPES).optional(),
});
export type ApiUserStatus = z.infer<typeof ApiUserStatus>;

export const UpdateStatusParams = z.object({
  status_text: z.string().optional(),
  emoji_name: z.string().optional(),
  emoji_code: z.string().optional(),
  reaction_type: z.string().optional(),
});
export type UpdateStatusParams = z.infer<typeof UpdateStatusParams>;

/** Zulip's `custom_profile_field_types`: each type's id and name, keyed by its constant name. */
export const CustomProfileFieldTypes = z.record(z.string(), z.object({ id: int(), name: z.string() }));

/** What the organization features add to accounts' register sections. */
export const OrgState = z.object({
  user_status: z.record(z.string(), ApiUserStatus).optional(),
  custom_profile_fields: z.array(ApiProfileField).optional(),
  custom_profile_field_types: CustomProfileFieldTypes.optional(),
});

const FieldData = z.record(z.string(), z.unknown());
const FieldSettings = {
  name: z.string().optional(),
  hint: z.string().optional(),
  field_data: FieldData.optional(),
  display_in_profile_summary: z.boolean().optional(),
  required: z.boolean().optional(),
  editable_by_user: z.boolean().optional(),
};
export const CreateProfileFieldParams = z.object({ field_type: int(), ...FieldSettings });
export type CreateProfileFieldParams = z.infer<typeof CreateProfileFieldParams>;
export const UpdateProfileFieldParams = z.object({ field_id: int(), ...FieldSettings });
export type UpdateProfileFieldParams = z.infer<typeof UpdateProfileFieldParams>;

/** A value: text, user ids for `users` fields, or null to remove it. */
export const ProfileDataValue = z.union([z.string(), z.array(int()), z.null()]);
export type ProfileDataValue = z.infer<typeof ProfileDataValue>;
export const ProfileDataItem = z.object({ id: int(), value: ProfileDataValue });
export type ProfileDataItem = z.infer<typeof ProfileDataItem>;

export const orgEndpoints = {
  updateRealm: endpoint({
    service: 'accounts',
    subject: 'accounts.update_realm',
    http: { method: 'PATCH', path: '/realm' },
    auth: true,
    params: UpdateRealmParams,
    reply: EmptyReply,
  }),
  updateOwnStatus: endpoint({
    service: 'accounts',
    subject: 'accounts.update_own_status',
    http: { method: 'POST', path: '/users/me/status' },
    auth: true,
    params: UpdateStatusParams,
    reply: EmptyReply,
  }),
  updateUserStatus: endpoint({
    service: 'accounts',
    subject: 'accounts.update_user_status',
    http: { method: 'POST', path: '/users/{user_id}/status' },
    auth: true,
    params: UpdateStatusParams.extend({ user_id: int() }),
    reply: EmptyReply,
  }),
  getUserStatus: endpoint({
    service: 'accounts',
    subject: 'accounts.get_user_status',
    http: { method: 'GET', path: '/users/{user_id}/status' },
    auth: true,
    params: z.object({ user_id: int() }),
    reply: z.object({ status: ApiUserStatus }),
  }),
  listProfileFields: endpoint({
    service: 'accounts',
    subject: 'accounts.list_profile_fields',
    http: { method: 'GET', path: '/realm/profile_fields' },
    auth: true,
    params: z.object({}),
    reply: z.object({ custom_fields: z.array(ApiProfileField) }),
  }),
  createProfileField: endpoint({
    service: 'accounts',
    subject: 'accounts.create_profile_field',
    http: { method: 'POST', path: '/realm/profile_fields' },
    auth: true,
    params: CreateProfileFieldParams,
    reply: z.object({ id: int() }),
  }),
  updateProfileField: endpoint({
    service: 'accounts',
    subject: 'accounts.update_profile_field',
    http: { method: 'PATCH', path: '/realm/profile_fields/{field_id}' },
    auth: true,
    params: UpdateProfileFieldParams,
    reply: EmptyReply,
  }),
  deleteProfileField: endpoint({
    service: 'accounts',
    subject: 'accounts.delete_profile_field',
    http: { method: 'DELETE', path: '/realm/profile_fields/{field_id}' },
    auth: true,
    params: z.object({ field_id: int() }),
    reply: EmptyReply,
  }),
  reorderProfileFields: endpoint({
    service: 'accounts',
    subject: 'accounts.reorder_profile_fields',
    http: { method: 'PATCH', path: '/realm/profile_fields' },
    auth: true,
    params: z.object({ order: z.array(int()) }),
    reply: EmptyReply,
  }),
  updateProfileData: endpoint({
    service: 'accounts',
    subject: 'accounts.update_profile_data',
    http: { method: 'PATCH', path: '/users/me/profile_data' },
    auth: true,
    params: z.object({ data: z.array(ProfileDataItem) }),
    reply: EmptyReply,
  }),
  removeProfileData: endpoint({
    service: 'accounts',
    subject: 'accounts.remove_profile_data',
    http: { method: 'DELETE', path: '/users/me/profile_data' },
    auth: true,
    params: z.object({ data: z.array(int()) }),
    reply: EmptyReply,
  }),
};
