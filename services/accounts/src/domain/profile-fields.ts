/**
 * The custom profile fields decider: the fields and every user's values in one stream, so
 * that deleting a field drops its values and a value is always checked against the field
 * as it stands. Administrators manage fields; users set their own values where the field
 * is editable by users (administrators always). Values are checked per type as Zulip
 * checks them (zerver/lib/validator.py, CustomProfileField.FIELD_VALIDATORS). Pure: the
 * users come with the context.
 */
import { ACTIVE_USERS,
  badRequest,
  PROFILE_FIELD_TYPE,
  type Actor,
  type ApiProfileField,
  type CreateProfileFieldParams,
  type Fact,
  type FactOf,
  type ProfileDataItem,
  type UpdateProfileFieldParams,
} from '@teamchat/contracts';
import { codePointLength, isAdministrator } from '@teamchat/policies';
import type { RegisteredUser } from './organization';

/** Zulip's CustomProfileField.NAME_MAX_LENGTH and HINT_MAX_LENGTH; text values' limits (check_short_string, check_long_string). */
export const MAX_FIELD_NAME_LENGTH = 40;
export const MAX_FIELD_HINT_LENGTH = 80;
export const MAX_SHORT_VALUE_LENGTH = 50;
export const MAX_LONG_VALUE_LENGTH = 500;
/** At most this many fields show in the profile summary (Zulip's MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS). */
export const MAX_SUMMARY_FIELDS = 2;

/** The preset external accounts (Zulip's DEFAULT_EXTERNAL_ACCOUNTS) and the custom one. */
export const EXTERNAL_ACCOUNTS: Readonly<Record<string, { name: string; url_pattern: string } | null>> = {
  github: { name: 'GitHub', url_pattern: 'https://github.com/%(username)s' },
  twitter: { name: 'Twitter', url_pattern: 'https://twitter.com/%(username)s' },
  custom: null,
};

/**
 * The presets as register's `realm_default_external_accounts` gives them (the mobile app
 * requires the member): per subtype its label, the field's name and hint, and the URL.
 */
export function defaultExternalAccounts(): Record<string, { text: string; name: string; hint: string; url_pattern: string }> {
  return Object.fromEntries(
    Object.entries(EXTERNAL_ACCOUNTS).flatMap(([subtype, preset]) => (preset ? [[subtype, { text: preset.name, name: `${preset.name} username`, hint: '', url_pattern: preset.url_pattern }]] : [])),
  );
}

/** Zulip's `custom_profile_field_types` of POST /register. */
export const PROFILE_FIELD_TYPES = {
  SHORT_TEXT: { id: PROFILE_FIELD_TYPE.short_text, name: 'Text (short)' },
  LONG_TEXT: { id: PROFILE_FIELD_TYPE.long_text, name: 'Text (long)' },
  SELECT: { id: PROFILE_FIELD_TYPE.choice, name: 'List of options' },
  DATE: { id: PROFILE_FIELD_TYPE.date, name: 'Date picker' },
  URL: { id: PROFILE_FIELD_TYPE.link, name: 'Link' },
  USER: { id: PROFILE_FIELD_TYPE.users, name: 'Users' },
  EXTERNAL_ACCOUNT: { id: PROFILE_FIELD_TYPE.external_account, name: 'External account' },
  PRONOUNS: { id: PROFILE_FIELD_TYPE.pronouns, name: 'Pronouns' },
} as const;

export interface ProfileFieldsState {
  /** In display order. */
  fields: ApiProfileField[];
  lastFieldId: number;
  /** user id → field id → stored value (JSON text for `users` fields). */
  values: ReadonlyMap<number, ReadonlyMap<number, string>>;
}

export const initialProfileFields = (): ProfileFieldsState => ({ fields: [], lastFieldId: 0, values: new Map() });

export function evolveProfileFields(state: ProfileFieldsState, fact: Fact): ProfileFieldsState {
  switch (fact.type) {
    case 'CustomProfileFieldsChanged': {
      const lastFieldId = Math.max(state.lastFieldId, ...fact.fields.map((f) => f.id));
      if (fact.deleted_field_id === undefined) return { ...state, fields: fact.fields, lastFieldId };
      const gone = fact.deleted_field_id;
      const values = new Map([...state.values].map(([user, own]) => [user, new Map([...own].filter(([id]) => id !== gone))]));
      return { fields: fact.fields, lastFieldId, values };
    }
    case 'CustomProfileDataChanged': {
      const own = new Map(state.values.get(fact.user_id) ?? []);
      for (const { id, value } of fact.changes) {
        if (value === null) own.delete(id);
        else own.set(id, value);
      }
      return { ...state, values: new Map(state.values).set(fact.user_id, own) };
    }
    default:
      return state;
  }
}

export interface ProfileContext {
  users: ReadonlyMap<number, RegisteredUser>;
}

function requireAdministrator(ctx: ProfileContext, actor: Actor): void {
  const user = ctx.users.get(actor.user_id);
  if (!user || !user.is_active || !isAdministrator(user.role)) throw badRequest('Must be an organization administrator');
}

function fieldOf(state: ProfileFieldsState, id: number): ApiProfileField {
  const field = state.fields.find((f) => f.id === id);
  if (!field) throw badRequest(`Field id ${id} not found.`);
  return field;
}

type FieldData = Record<string, unknown>;

/** A field's `field_data` checked for its type, as the JSON text Zulip stores ('' for types without). */
function checkFieldData(type: number, data: FieldData | undefined): string {
  if (type === PROFILE_FIELD_TYPE.choice) {
    const choices = Object.entries(data ?? {});
    if (choices.length === 0) throw badRequest('Field must have at least one choice.');
    const texts = new Set<string>();
    for (const [key, choice] of choices) {
      const { text, order } = (choice ?? {}) as { text?: unknown; order?: unknown };
      if (typeof choice !== 'object' || typeof text !== 'string' || typeof order !== 'string' || Object.keys(choice as object).length !== 2) {
        throw badRequest(`field_data["${key}"] must have a "text" and an "order", both strings`);
      }
      if (text.trim().length === 0) throw badRequest('Label cannot be blank.');
      if (texts.has(text)) throw badRequest('Field must not have duplicate choices.');
      texts.add(text);
    }
    return JSON.stringify(data);
  }
  if (type === PROFILE_FIELD_TYPE.external_account) {
    const { subtype, url_pattern } = (data ?? {}) as { subtype?: unknown; url_pattern?: unknown };
    if (typeof subtype !== 'string' || !Object.hasOwn(EXTERNAL_ACCOUNTS, subtype)) throw badRequest('Invalid external account type');
    if (subtype !== 'custom') return JSON.stringify({ subtype });
    if (typeof url_pattern !== 'string') throw badRequest('Custom external account must define URL pattern');
    if (!/^https?:\/\/[^\s]*%\(username\)s[^\s]*$/.test(url_pattern) || url_pattern.split('%(username)s').length !== 2) {
      throw badRequest('Malformed URL pattern.');
    }
    return JSON.stringify({ subtype, url_pattern });
  }
  return '';
}

function checkName(state: ProfileFieldsState, name: string, self?: number): string {
  const trimmed = name.trim();
  if (trimmed.length === 0) throw badRequest('Label cannot be blank.');
  if (codePointLength(trimmed) > MAX_FIELD_NAME_LENGTH) throw badRequest(`name is too long (limit: ${MAX_FIELD_NAME_LENGTH} characters)`);
  if (state.fields.some((f) => f.id !== self && f.name === trimmed)) throw badRequest('A field with that label already exists.');
  return trimmed;
}

function checkHint(hint: string): string {
  if (codePointLength(hint) > MAX_FIELD_HINT_LENGTH) throw badRequest(`hint is too long (limit: ${MAX_FIELD_HINT_LENGTH} characters)`);
  return hint;
}

function checkSummary(state: ProfileFieldsState, field: Pick<ApiProfileField, 'id' | 'type'>): void {
  if (field.type === PROFILE_FIELD_TYPE.long_text || field.type === PROFILE_FIELD_TYPE.users) {
    throw badRequest('Field type not supported for display in profile summary.');
  }
  const others = state.fields.filter((f) => f.id !== field.id && f.display_in_profile_summary).length;
  if (others >= MAX_SUMMARY_FIELDS) throw badRequest(`Only ${MAX_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
}

export function decideCreateField(state: ProfileFieldsState, ctx: ProfileContext, cmd: { actor: Actor; params: CreateProfileFieldParams }): FactOf<'CustomProfileFieldsChanged'>[] {
  requireAdministrator(ctx, cmd.actor);
  const { params } = cmd;
  const type = params.field_type;
  if (!Object.values(PROFILE_FIELD_TYPE).includes(type as never)) throw badRequest('Invalid field type.');
  const field_data = checkFieldData(type, params.field_data);
  let name = params.name ?? '';
  // A preset external account is named after its service when no name is given, as in Zulip.
  if (type === PROFILE_FIELD_TYPE.external_account && name.trim() === '') {
    const preset = EXTERNAL_ACCOUNTS[(JSON.parse(field_data) as { subtype: string }).subtype];
    if (preset) name = preset.name;
  }
  const id = state.lastFieldId + 1;
  const field: ApiProfileField = {
    id,
    type,
    order: Math.max(0, ...state.fields.map((f) => f.order + 1)),
    name: checkName(state, name),
    hint: checkHint(params.hint ?? ''),
    field_data,
    display_in_profile_summary: params.display_in_profile_summary ?? false,
    required: params.required ?? false,
    editable_by_user: params.editable_by_user ?? true,
  };
  if (field.display_in_profile_summary) checkSummary(state, field);
  return [{ type: 'CustomProfileFieldsChanged', fields: [...state.fields, field], audience: ACTIVE_USERS }];
}

export function decideUpdateField(state: ProfileFieldsState, ctx: ProfileContext, cmd: { actor: Actor; params: UpdateProfileFieldParams }): FactOf<'CustomProfileFieldsChanged'>[] {
  requireAdministrator(ctx, cmd.actor);
  const { params } = cmd;
  const current = fieldOf(state, params.field_id);
  const next: ApiProfileField = { ...current };
  if (params.name !== undefined) next.name = checkName(state, params.name, current.id);
  if (params.hint !== undefined) next.hint = checkHint(params.hint);
  if (params.field_data !== undefined) next.field_data = checkFieldData(current.type, params.field_data);
  if (params.required !== undefined) next.required = params.required;
  if (params.editable_by_user !== undefined) next.editable_by_user = params.editable_by_user;
  if (params.display_in_profile_summary !== undefined) {
    if (params.display_in_profile_summary) checkSummary(state, current);
    next.display_in_profile_summary = params.display_in_profile_summary;
  }
  if (JSON.stringify(next) === JSON.stringify(current)) return [];
  const fields = state.fields.map((f) => (f.id === current.id ? next : f));
  return [{ type: 'CustomProfileFieldsChanged', fields, audience: ACTIVE_USERS }];
}

export function decideDeleteField(state: ProfileFieldsState, ctx: ProfileContext, cmd: { actor: Actor; field_id: number }): FactOf<'CustomProfileFieldsChanged'>[] {
  requireAdministrator(ctx, cmd.actor);
  const field = fieldOf(state, cmd.field_id);
  const fields = state.fields.filter((f) => f.id !== field.id);
  return [{ type: 'CustomProfileFieldsChanged', fields, deleted_field_id: field.id, audience: ACTIVE_USERS }];
}

export function decideReorderFields(state: ProfileFieldsState, ctx: ProfileContext, cmd: { actor: Actor; order: number[] }): FactOf<'CustomProfileFieldsChanged'>[] {
  requireAdministrator(ctx, cmd.actor);
  // Zulip's rule: the order names every field exactly once.
  const ids = new Set(state.fields.map((f) => f.id));
  if (cmd.order.length !== ids.size || new Set(cmd.order).size !== ids.size || cmd.order.some((id) => !ids.has(id))) {
    throw badRequest('Invalid order mapping.');
  }
  const fields = cmd.order.map((id, order) => ({ ...state.fields.find((f) => f.id === id)!, order }));
  if (fields.every((f, i) => f.id === state.fields[i]!.id && f.order === state.fields[i]!.order)) return [];
  return [{ type: 'CustomProfileFieldsChanged', fields, audience: ACTIVE_USERS }];
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

function isUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.host.length > 0;
  } catch {
    return false;
  }
}

/**
 * A value checked against its field, in stored form; null removes it (as does an empty
 * text or list). Exposed so that PATCH /users/{id}'s profile_data checks values the same way.
 */
export function storedProfileValue(field: ApiProfileField, value: ProfileDataItem['value'], ctx: ProfileContext): string | null {
  if (value === null) return null;
  if (field.type === PROFILE_FIELD_TYPE.users) {
    if (!Array.isArray(value)) throw badRequest(`${field.name} is not a list`);
    if (value.length === 0) return null;
    for (const id of value) {
      const user = ctx.users.get(id);
      if (!user || !user.is_active) throw badRequest(`Invalid user ID: ${id}`);
    }
    return JSON.stringify([...new Set(value)].sort((a, b) => a - b));
  }
  if (typeof value !== 'string') throw badRequest(`${field.name} is not a string`);
  const text = value.trim();
  if (text.length === 0) return null;
  switch (field.type) {
    case PROFILE_FIELD_TYPE.long_text:
      if (codePointLength(text) > MAX_LONG_VALUE_LENGTH) throw badRequest(`${field.name} is too long (limit: ${MAX_LONG_VALUE_LENGTH} characters)`);
      return text;
    case PROFILE_FIELD_TYPE.date:
      if (!isDate(text)) throw badRequest(`${field.name} is not a date`);
      return text;
    case PROFILE_FIELD_TYPE.link:
      if (!isUrl(text)) throw badRequest(`${field.name} is not a URL`);
      return text;
    case PROFILE_FIELD_TYPE.choice: {
      const choices = JSON.parse(field.field_data || '{}') as Record<string, unknown>;
      if (!Object.hasOwn(choices, text)) throw badRequest(`'${text}' is not a valid choice for '${field.name}'.`);
      return text;
    }
    default:
      if (codePointLength(text) > MAX_SHORT_VALUE_LENGTH) throw badRequest(`${field.name} is too long (limit: ${MAX_SHORT_VALUE_LENGTH} characters)`);
      return text;
  }
}

export interface UpdateProfileData {
  actor: Actor;
  /** Whose values (the actor's own for PATCH /users/me/profile_data). */
  user_id: number;
  items: ProfileDataItem[];
}

export function decideUpdateProfileData(state: ProfileFieldsState, ctx: ProfileContext, cmd: UpdateProfileData): FactOf<'CustomProfileDataChanged'>[] {
  const actor = ctx.users.get(cmd.actor.user_id);
  const admin = actor !== undefined && isAdministrator(actor.role);
  if (cmd.user_id !== cmd.actor.user_id && !admin) throw badRequest('Insufficient permission');
  const target = ctx.users.get(cmd.user_id);
  if (!target || !target.is_active) throw badRequest('No such user');
  const own = state.values.get(target.user_id) ?? new Map<number, string>();
  const next = new Map<number, string | null>();
  for (const item of cmd.items) {
    const field = fieldOf(state, item.id);
    if (!field.editable_by_user && !admin) throw badRequest('You are not allowed to change this field. Contact an administrator to update it.');
    next.set(field.id, storedProfileValue(field, item.value, ctx));
  }
  const changes = [...next].filter(([id, value]) => (own.get(id) ?? null) !== value).map(([id, value]) => ({ id, value }));
  if (changes.length === 0) return [];
  return [{ type: 'CustomProfileDataChanged', user_id: target.user_id, changes, audience: ACTIVE_USERS }];
}

/** DELETE /users/me/profile_data: the values of these fields removed (unknown fields refused). */
export function decideRemoveProfileData(state: ProfileFieldsState, ctx: ProfileContext, cmd: { actor: Actor; field_ids: number[] }): FactOf<'CustomProfileDataChanged'>[] {
  return decideUpdateProfileData(state, ctx, { actor: cmd.actor, user_id: cmd.actor.user_id, items: cmd.field_ids.map((id) => ({ id, value: null })) });
}
