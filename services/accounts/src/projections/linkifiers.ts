/**
 * Accounts' read model of the organization's linkifiers: one document with the ordered
 * list, set (never merged) from each fact, so a replayed fact changes nothing.
 */
import type { StoredLinkifier } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface LinkifiersDoc extends Doc {
  _id: 'linkifiers';
  linkifiers: StoredLinkifier[];
}

export class LinkifiersReadModel {
  private readonly list: Collection<LinkifiersDoc>;

  constructor(readModels: ReadModelStore) {
    this.list = readModels.collection<LinkifiersDoc>('linkifiers');
  }

  private readonly put = (fact: { linkifiers: StoredLinkifier[] }) => this.list.put({ _id: 'linkifiers', linkifiers: fact.linkifiers });

  readonly handlers = {
    LinkifierAdded: this.put,
    LinkifierUpdated: this.put,
    LinkifierRemoved: this.put,
    LinkifiersReordered: this.put,
  } satisfies FactHandlers;

  async linkifiers(): Promise<StoredLinkifier[]> {
    return ((await this.list.get('linkifiers'))?.linkifiers ?? []).map((l) => ({ ...l }));
  }
}
