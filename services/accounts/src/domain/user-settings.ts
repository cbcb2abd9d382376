/**
 * PATCH /settings' personal settings: each changed setting is its own UserSettingChanged
 * fact on the user's own data stream (the `user_settings` event's property/value). Values
 * are checked against USER_SETTINGS before anything is decided, so a request with one bad
 * value changes nothing, and the refusal names the parameter and the value.
 */
import {
  ACTIVE_USERS,
  badRequest,
  isTimezone,
  LANGUAGES,
  NOTIFICATION_SOUNDS,
  USER_SETTING_DEFAULTS,
  USER_SETTINGS,
  type Fact,
  type FactOf,
  type UserSettingName,
  type UserSettingValue,
} from '@teamchat/contracts';
import type { UserDataState } from './user-data';

export { USER_SETTING_DEFAULTS, type UserSettingName };

export function settingOf<N extends UserSettingName>(state: Pick<UserDataState, 'settings'>, name: N): UserSettingValue {
  return state.settings.get(name) ?? USER_SETTING_DEFAULTS[name];
}

export type SettingChanges = Partial<Record<UserSettingName, UserSettingValue>>;

/** Before feature level 454 the recent conversations view was `recent_topics`; older clients still send it. */
const LEGACY_HOME_VIEWS: Readonly<Record<string, string>> = { recent_topics: 'recent' };

/** One value checked against its setting's kind, in stored form. */
export function checkSetting(name: UserSettingName, raw: UserSettingValue): UserSettingValue {
  const spec = USER_SETTINGS[name].type;
  const invalid = () => badRequest(`Invalid ${name}: ${JSON.stringify(raw)}`);
  switch (spec.kind) {
    case 'boolean':
      if (typeof raw !== 'boolean') throw invalid();
      return raw;
    case 'choice':
      if (typeof raw !== 'number' || !spec.values.includes(raw)) throw invalid();
      return raw;
    case 'range':
      if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < spec.min || raw > spec.max) throw invalid();
      return raw;
    case 'word': {
      const value = name === 'web_home_view' && typeof raw === 'string' ? (LEGACY_HOME_VIEWS[raw] ?? raw) : raw;
      if (typeof value !== 'string' || !spec.values.includes(value)) throw invalid();
      return value;
    }
    case 'language':
      if (typeof raw !== 'string' || !Object.hasOwn(LANGUAGES, raw)) throw invalid();
      return raw;
    case 'timezone':
      if (typeof raw !== 'string' || !isTimezone(raw)) throw invalid();
      return raw;
    case 'sound':
      if (typeof raw !== 'string' || !(NOTIFICATION_SOUNDS as readonly string[]).includes(raw)) throw invalid();
      return raw;
  }
}

/** Every requested value checked, in stored form; the first bad one refuses the whole request. */
export function checkSettings(changes: SettingChanges): SettingChanges {
  const checked: SettingChanges = {};
  for (const [name, raw] of Object.entries(changes) as [UserSettingName, UserSettingValue | undefined][]) {
    if (raw === undefined) continue;
    if (!Object.hasOwn(USER_SETTINGS, name)) throw badRequest(`Unknown setting ${name}`);
    checked[name] = checkSetting(name, raw);
  }
  return checked;
}

export interface UpdateSettings {
  user_id: number;
  changes: SettingChanges;
  /** An administrator changing another user's settings (target_users); absent: the user. */
  acting_user_id?: number;
  /** target_users' skip_if_already_edited: leave a setting the user changed themselves. */
  skip_if_already_edited?: boolean;
  /** A time zone is also part of the profile: who hears the realm_user update, and the email it shows. */
  profile?: { email: string };
  /**
   * For email_address_visibility: the active viewers, the user's addresses, and who may
   * see the real one under a given own setting (the organization's setting applied).
   */
  emailViewers?: {
    viewer_ids: number[];
    email: string;
    dummy: string;
    maySee: (viewerId: number, own: number) => boolean;
  };
}

/** The viewers whose view of the address changes from `before` to `after`, grouped by what they now see. */
function emailViewsOf(viewers: NonNullable<UpdateSettings['emailViewers']>, before: number, after: number) {
  const gained = viewers.viewer_ids.filter((id) => !viewers.maySee(id, before) && viewers.maySee(id, after));
  const lost = viewers.viewer_ids.filter((id) => viewers.maySee(id, before) && !viewers.maySee(id, after));
  return [
    ...(gained.length ? [{ user_ids: gained, email: viewers.email, delivery_email: viewers.email }] : []),
    ...(lost.length ? [{ user_ids: lost, email: viewers.dummy, delivery_email: null }] : []),
  ];
}

/** Only values that change are recorded (Zulip sends no event for an unchanged setting). */
export function decideUpdateSettings(state: UserDataState, cmd: UpdateSettings): Fact[] {
  const facts: Fact[] = [];
  const byOther = cmd.acting_user_id !== undefined && cmd.acting_user_id !== cmd.user_id;
  for (const [name, value] of Object.entries(checkSettings(cmd.changes)) as [UserSettingName, UserSettingValue][]) {
    if (settingOf(state, name) === value) continue;
    if (byOther && cmd.skip_if_already_edited && state.selfEdited.has(name)) continue;
    const changed: FactOf<'UserSettingChanged'> = {
      type: 'UserSettingChanged',
      user_id: cmd.user_id,
      property: name,
      value,
      ...(byOther ? { acting_user_id: cmd.acting_user_id } : {}),
      ...(name === 'timezone' && cmd.profile ? { audience: ACTIVE_USERS, email: cmd.profile.email } : {}),
      ...(name === 'email_address_visibility' && cmd.emailViewers
        ? { email_views: emailViewsOf(cmd.emailViewers, Number(settingOf(state, name)), Number(value)) }
        : {}),
    };
    facts.push(changed);
    // The spec's transition: with synchronization off the server keeps no drafts.
    if (name === 'enable_drafts_synchronization' && value === false && state.drafts.size > 0) {
      facts.push({ type: 'DraftsCleared', user_id: cmd.user_id, draft_ids: [...state.drafts.keys()].sort((a, b) => a - b) });
    }
  }
  return facts;
}
