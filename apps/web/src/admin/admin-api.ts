/**
 * The administration requests added for linkifier editing, default channels, profile
 * fields, resending invitations and editing a person (issue 41, item 6); the earlier ones
 * are adminApi in channel-api.ts.
 */
import { json } from '../api';

export const moreAdminApi = {
  updateLinkifier: (id: number, pattern: string, urlTemplate: string) => json<unknown>('PATCH', `/realm/filters/${id}`, { pattern, url_template: urlTemplate }),
  reorderLinkifiers: (ids: number[]) => json<unknown>('PATCH', '/realm/linkifiers', { ordered_linkifier_ids: ids }),
  addDefaultChannel: (streamId: number) => json<unknown>('POST', '/default_streams', { stream_id: streamId }),
  removeDefaultChannel: (streamId: number) => json<unknown>('DELETE', '/default_streams', { stream_id: streamId }),
  resendInvite: (id: number) => json<unknown>('POST', `/invites/${id}/resend`),
  setFullName: (userId: number, fullName: string) => json<unknown>('PATCH', `/users/${userId}`, { full_name: fullName }),
  setBotOwner: (botId: number, ownerId: number) => json<unknown>('PATCH', `/bots/${botId}`, { bot_owner_id: ownerId }),
  createProfileField: (field: ProfileFieldSettings & { field_type: number }) => json<{ id: number }>('POST', '/realm/profile_fields', { ...field }),
  updateProfileField: (id: number, field: ProfileFieldSettings) => json<unknown>('PATCH', `/realm/profile_fields/${id}`, { ...field }),
  deleteProfileField: (id: number) => json<unknown>('DELETE', `/realm/profile_fields/${id}`),
  reorderProfileFields: (ids: number[]) => json<unknown>('PATCH', '/realm/profile_fields', { order: ids }),
  setOwnProfileData: (data: { id: number; value: string | number[] | null }[]) => json<unknown>('PATCH', '/users/me/profile_data', { data }),
  setProfileData: (userId: number, data: { id: number; value: string | number[] | null }[]) => json<unknown>('PATCH', `/users/${userId}`, { profile_data: data }),
  setEmail: (userId: number, email: string) => json<unknown>('PATCH', `/users/${userId}`, { new_email: email }),
};

export interface ProfileFieldSettings {
  name?: string;
  hint?: string;
  field_data?: Record<string, unknown>;
  required?: boolean;
  editable_by_user?: boolean;
  display_in_profile_summary?: boolean;
}

/** A custom profile field as the registration gives it (custom_profile_fields). */
export interface ProfileField {
  id: number;
  type: number;
  name: string;
  hint: string;
  field_data: string;
  order: number;
  required?: boolean;
  editable_by_user?: boolean;
  display_in_profile_summary?: boolean;
}

/** Zulip's field types (custom_profile_field_types), in the order its settings list them. */
export const FIELD_TYPES: { id: number; label: string }[] = [
  { id: 1, label: 'Text (short)' },
  { id: 2, label: 'Text (long)' },
  { id: 3, label: 'List of options' },
  { id: 4, label: 'Date' },
  { id: 5, label: 'Link' },
  { id: 6, label: 'Users' },
  { id: 7, label: 'External account' },
  { id: 8, label: 'Pronouns' },
];

/** A list-of-options field's choices, in their order, from its field_data text. */
export function choicesOf(field: Pick<ProfileField, 'field_data'>): { key: string; text: string }[] {
  try {
    const data = JSON.parse(field.field_data || '{}') as Record<string, { text?: string; order?: string }>;
    return Object.entries(data)
      .map(([key, v]) => ({ key, text: String(v?.text ?? key), order: Number(v?.order ?? 0) }))
      .sort((a, b) => a.order - b.order)
      .map(({ key, text }) => ({ key, text }));
  } catch {
    return [];
  }
}

/** Choices typed one per line → field_data (keys and orders "0", "1", … as Zulip's settings make them). */
export const choicesData = (lines: string) =>
  Object.fromEntries(
    lines
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l !== '')
      .map((text, i) => [String(i), { text, order: String(i) }]),
  );

/** `ids` with the one at `index` moved by `step` (−1 up, +1 down); the same list when it cannot move. */
export function moved<T>(ids: readonly T[], index: number, step: -1 | 1): T[] {
  const to = index + step;
  if (to < 0 || to >= ids.length) return [...ids];
  const next = [...ids];
  [next[index], next[to]] = [next[to]!, next[index]!];
  return next;
}
