/** Navigation views' bus endpoints: each command decides on the user's own stream. */
import { navigationViewsEndpoints as api, streams, wantsState, type AccountsState, type StateParams } from '@teamchat/contracts';
import type { AggregateRepository, BusSubscription, contractServer } from '@teamchat/platform';
import {
  decideAddNavigationView,
  decideRemoveNavigationView,
  decideUpdateNavigationView,
  type NavigationViewsState,
} from '../domain/navigation-views';
import type { NavigationViewsReadModel } from '../projections/navigation-views';

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
