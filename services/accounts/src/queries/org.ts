/**
 * The organization features' parts of accounts' POST /register sections: the `realm_*`
 * settings as they stand, `user_status`, `custom_profile_fields` and each user's
 * `profile_data`, added to what accounts' other sections hold.
 */
import { REALM_SETTING_NAMES, REALM_SETTINGS, wantsState, type AccountsState, type RealmSettings, type StateParams } from '@teamchat/contracts';
import { PROFILE_FIELD_TYPES } from '../domain/profile-fields';
import type { OrgReadModel } from '../projections/org';

export interface OrgStateDeps {
  org: OrgReadModel;
  realmSettings: { current(): Promise<RealmSettings> };
}

/** Every setting as register names it: `realm_` and the setting's name. */
export const realmValuesOf = (settings: RealmSettings): Record<string, unknown> =>
  Object.fromEntries(REALM_SETTING_NAMES.map((name) => [`realm_${name}`, settings[name]]));

/** The groups the organization's group-settings name, directly or as subgroups of an anonymous group. */
export function realmSettingGroupIds(settings: RealmSettings): number[] {
  return REALM_SETTING_NAMES.flatMap((name) => {
    const value = settings[name];
    if (typeof value === 'number' && REALM_SETTINGS[name].type.kind === 'group') return [value];
    return typeof value === 'object' && value !== null ? value.direct_subgroups : [];
  });
}

export async function withOrgState(state: AccountsState, deps: OrgStateDeps, params: StateParams): Promise<AccountsState> {
  const want = (type: string) => wantsState(params, type);
  const result: AccountsState = { ...state };
  if (state.realm) {
    const settings = await deps.realmSettings.current();
    // A data directory older than the settings projection has the name only in the organization's record.
    result.realm = { ...state.realm, ...realmValuesOf(settings), ...(settings.name === '' ? { realm_name: state.realm.realm_name } : {}) };
  }
  if (want('user_status')) result.user_status = await deps.org.allStatuses();
  if (want('custom_profile_fields')) {
    result.custom_profile_fields = await deps.org.fields();
    result.custom_profile_field_types = PROFILE_FIELD_TYPES;
  }
  return result;
}
