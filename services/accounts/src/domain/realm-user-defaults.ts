/**
 * The organization's defaults for new users' settings (issue 17): administrators change
 * them; each change is its own fact (the `realm_user_settings_defaults` event's property
 * and value). A new user starts with them as their own settings. Pure.
 */
import { ACTIVE_USERS, badRequest, REALM_USER_SETTING_DEFAULTS, type Actor, type Fact, type RealmUserSettingName } from '@teamchat/contracts';
import { checkSetting } from './user-settings';
import { isAdministrator } from '@teamchat/policies';

type Value = boolean | number | string;

export interface RealmUserDefaultsState {
  /** Only the settings changed from Zulip's defaults. */
  changed: ReadonlyMap<string, Value>;
}

export const initialRealmUserDefaults = (): RealmUserDefaultsState => ({ changed: new Map() });

export function evolveRealmUserDefaults(state: RealmUserDefaultsState, fact: Fact): RealmUserDefaultsState {
  if (fact.type !== 'RealmUserSettingsDefaultChanged') return state;
  return { changed: new Map(state.changed).set(fact.property, fact.value) };
}

/** Every default as it stands. */
export function realmUserDefaults(state: RealmUserDefaultsState): Record<string, Value> {
  return { ...REALM_USER_SETTING_DEFAULTS, ...Object.fromEntries(state.changed) };
}

/** The settings a new user starts with that differ from Zulip's defaults. */
export function newUserSettings(state: RealmUserDefaultsState): [string, Value][] {
  return [...state.changed].filter(([name, value]) => REALM_USER_SETTING_DEFAULTS[name as RealmUserSettingName] !== value);
}

export function decideUpdateRealmUserDefaults(
  state: RealmUserDefaultsState,
  cmd: { actor: Actor; changes: Partial<Record<string, Value | undefined>> },
): Fact[] {
  if (!isAdministrator(cmd.actor.role)) throw badRequest('Must be an organization administrator');
  const current = realmUserDefaults(state);
  const facts: Fact[] = [];
  for (const [property, value] of Object.entries(cmd.changes)) {
    if (value === undefined || !Object.hasOwn(REALM_USER_SETTING_DEFAULTS, property)) continue;
    // Checked as PATCH /settings checks the user's own value: the same kinds and bounds.
    const checked = checkSetting(property as RealmUserSettingName, value);
    if (current[property] === checked) continue;
    facts.push({ type: 'RealmUserSettingsDefaultChanged', property, value: checked, audience: ACTIVE_USERS });
  }
  return facts;
}
