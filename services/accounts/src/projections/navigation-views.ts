/**
 * Accounts' read model of navigation views: one document per user with their views in
 * the order they were added, set from each fact (a replayed fact writes the same values).
 */
import type { StoredNavigationView } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface NavigationViewsDoc extends Doc {
  _id: number;
  views: StoredNavigationView[];
}

export class NavigationViewsReadModel {
  private readonly collection: Collection<NavigationViewsDoc>;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<NavigationViewsDoc>('navigation_views');
  }

  private async change(userId: number, change: (views: StoredNavigationView[]) => StoredNavigationView[]): Promise<void> {
    await this.collection.put({ _id: userId, views: change(await this.of(userId)) });
  }

  readonly handlers = {
    NavigationViewAdded: (fact) =>
      this.change(fact.user_id, (views) => [...views.filter((v) => v.fragment !== fact.navigation_view.fragment), fact.navigation_view]),
    NavigationViewUpdated: (fact) => this.change(fact.user_id, (views) => views.map((v) => (v.fragment === fact.fragment ? { ...v, ...fact.data } : v))),
    NavigationViewRemoved: (fact) => this.change(fact.user_id, (views) => views.filter((v) => v.fragment !== fact.fragment)),
  } satisfies FactHandlers;

  async of(userId: number): Promise<StoredNavigationView[]> {
    return ((await this.collection.get(userId))?.views ?? []).map((v) => ({ ...v }));
  }
}
