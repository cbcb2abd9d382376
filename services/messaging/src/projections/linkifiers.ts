/**
 * Messaging's own copy of the organization's linkifiers, from accounts' linkifier facts
 * (no service reads another's read models), compiled once per change: every message is
 * rendered, and its topic_links found, with the list as it is when it is sent or edited.
 */
import type { StoredLinkifier } from '@teamchat/contracts';
import { CompiledLinkifiers, topicLinks } from '@teamchat/markdown';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface LinkifiersDoc extends Doc {
  _id: 'linkifiers';
  linkifiers: StoredLinkifier[];
}

export class LinkifiersBook {
  readonly collection: Collection<LinkifiersDoc>;
  private current = new CompiledLinkifiers([]);

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<LinkifiersDoc>('linkifiers');
  }

  private readonly put = async (fact: { linkifiers: StoredLinkifier[] }) => {
    await this.collection.put({ _id: 'linkifiers', linkifiers: fact.linkifiers });
    this.current = new CompiledLinkifiers(fact.linkifiers);
  };

  readonly handlers = {
    LinkifierAdded: this.put,
    LinkifierUpdated: this.put,
    LinkifierRemoved: this.put,
    LinkifiersReordered: this.put,
  } satisfies FactHandlers;

  /** Reads the list as projected so far; called before the projector starts, which then keeps it current. */
  async load(): Promise<void> {
    this.current = new CompiledLinkifiers((await this.collection.get('linkifiers'))?.linkifiers ?? []);
  }

  get compiled(): CompiledLinkifiers {
    return this.current;
  }

  /** A topic's topic_links, as its messages carry them. */
  topicLinks(topic: string): { text: string; url: string }[] {
    return topicLinks(topic, this.current);
  }
}
