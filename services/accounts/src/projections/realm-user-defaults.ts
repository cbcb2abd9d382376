/** Accounts' read model of the defaults for new users' settings: one document of the changed ones. */
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface RealmUserDefaultsDoc extends Doc {
  _id: 'defaults';
  changed: Record<string, boolean | number | string>;
}

export class RealmUserDefaultsReadModel {
  private readonly collection: Collection<RealmUserDefaultsDoc>;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<RealmUserDefaultsDoc>('realm_user_defaults');
  }

  readonly handlers = {
    RealmUserSettingsDefaultChanged: async (fact) => {
      await this.collection.put({ _id: 'defaults', changed: { ...(await this.changed()), [fact.property]: fact.value } });
    },
  } satisfies FactHandlers;

  async changed(): Promise<Record<string, boolean | number | string>> {
    return { ...((await this.collection.get('defaults'))?.changed ?? {}) };
  }
}
