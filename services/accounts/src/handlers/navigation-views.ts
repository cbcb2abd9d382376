/**
 * Navigation views' bus endpoints (each command decides on the user's own stream), and
 * the organization's defaults for new users' settings.
 */
import { navigationViewsEndpoints as api, REALM_USER_SETTING_DEFAULTS, streams, wantsState, type AccountsState, type StateParams } from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import type { AggregateRepository, BusSubscription, contractServer } from '@teamchat/platform';
import {
  decideAddNavigationView,
  decideRemoveNavigationView,
  decideUpdateNavigationView,
  type NavigationViewsState,
} from '../domain/navigation-views';
import type { NavigationViewsReadModel } from '../projections/navigation-views';
import { decideUpdateRealmUserDefaults, newUserSettings, type RealmUserDefaultsState } from '../domain/realm-user-defaults';
import type { UserDataState } from '../domain/user-data';
import type { RealmUserDefaultsReadModel } from '../projections/realm-user-defaults';

type Serve = ReturnType<typeof contractServer>;

export interface NavigationViewDeps {
  navigationViews: AggregateRepository<NavigationViewsState>;
  model: NavigationViewsReadModel;
}

export async function navigationViewsState(model: NavigationViewsReadModel, userId: number, params: StateParams): Promise<Pick<AccountsState, 'navigation_views'>> {
  return wantsState(params, 'navigation_view') ? { navigation_views: await model.of(userId) } : {};
}

export function navigationViewEndpoints(serve: Serve, deps: NavigationViewDeps): Promise<BusSubscription>[] {
  const change = async (userId: number, decide: (state: NavigationViewsState) => ReturnType<typeof decideRemoveNavigationView>) => {
    const { append } = await deps.navigationViews.execute(streams.navigationViews(userId), (state) => ({ facts: decide(state), result: undefined }));
    return { value: {}, position: append?.positions.at(-1) };
  };
  return [
    serve(api.getNavigationViews, async (_params, { actor }) => ({ value: { navigation_views: await deps.model.of(actor.user_id) } })),
    serve(api.addNavigationView, (params, { actor }) => change(actor.user_id, (state) => decideAddNavigationView(state, { user_id: actor.user_id, ...params }))),
    serve(api.updateNavigationView, (params, { actor }) => change(actor.user_id, (state) => decideUpdateNavigationView(state, { user_id: actor.user_id, ...params }))),
    serve(api.removeNavigationView, (params, { actor }) => change(actor.user_id, (state) => decideRemoveNavigationView(state, { user_id: actor.user_id, fragment: params.fragment }))),
  ];
}

export interface RealmUserDefaultsDeps {
  directory: Pick<Directory, 'activeUsers'>;
  defaults: AggregateRepository<RealmUserDefaultsState>;
  userData: AggregateRepository<UserDataState>;
  model: RealmUserDefaultsReadModel;
}

/** Register's realm_user_settings_defaults: every default as it stands. */
export async function realmUserDefaultsState(model: RealmUserDefaultsReadModel, params: StateParams): Promise<Pick<AccountsState, 'realm_user_settings_defaults'>> {
  return wantsState(params, 'realm_user_settings_defaults') ? { realm_user_settings_defaults: { ...REALM_USER_SETTING_DEFAULTS, ...(await model.changed()) } } : {};
}

/**
 * A new user starts with the organization's defaults as their own settings: recorded on
 * their own stream right after they are created (a second stream, so not atomic with the
 * creation; a failure here leaves Zulip's defaults, which the user can still change).
 */
export async function applyRealmUserDefaults(deps: Pick<RealmUserDefaultsDeps, 'defaults' | 'userData'>, userId: number): Promise<number | undefined> {
  const { state } = await deps.defaults.load(streams.realmUserDefaults);
  const settings = newUserSettings(state);
  if (settings.length === 0) return undefined;
  const { append } = await deps.userData.execute(streams.userData(userId), () => ({
    facts: settings.map(([property, value]) => ({ type: 'UserSettingChanged' as const, user_id: userId, property, value })),
    result: undefined,
  }));
  return append?.positions.at(-1);
}

export function realmUserDefaultsEndpoints(serve: Serve, deps: RealmUserDefaultsDeps): Promise<BusSubscription>[] {
  return [
    serve(api.updateRealmUserDefaults, async (params, { actor }) => {
      const { append } = await deps.defaults.execute(streams.realmUserDefaults, (state) => ({ facts: decideUpdateRealmUserDefaults(state, { actor, changes: params }), result: undefined }),
      );
      return { value: {}, position: append?.positions.at(-1) };
    }),
  ];
}
