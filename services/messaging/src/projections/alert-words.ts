/**
 * Messaging's own copy of each user's alert words, from accounts' AlertWordsChanged facts
 * (no service reads another's read models), for flagging messages as they are sent. Few
 * users keep alert words, so every list is held in memory once loaded, with its matcher.
 */
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';
import { alertWordMatcher } from '../domain/alert-words';

interface AlertWordsDoc extends Doc {
  _id: number;
  alert_words: string[];
}

export class AlertWordsBook {
  readonly collection: Collection<AlertWordsDoc>;
  private matchers: Map<number, RegExp> | undefined;


  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<AlertWordsDoc>('alert_words');
  }

  readonly handlers = {
    AlertWordsChanged: async (fact) => {
      await this.collection.put({ _id: fact.user_id, alert_words: fact.alert_words });
      if (!this.matchers) return;
      const matcher = alertWordMatcher(fact.alert_words);
      if (matcher) this.matchers.set(fact.user_id, matcher);
      else this.matchers.delete(fact.user_id);
    },
  } satisfies FactHandlers;

  /** Reads the lists as projected so far; called before the projector starts, which then keeps them current. */
  async load(): Promise<void> {
    const matchers = new Map<number, RegExp>();
    for (const doc of await this.collection.find({})) {
      const matcher = alertWordMatcher(doc.alert_words);
      if (matcher) matchers.set(doc._id, matcher);
    }
    this.matchers = matchers;
  }

  /** Every user's matcher, by user id (only users with alert words). */
  get matchersByUser(): ReadonlyMap<number, RegExp> {
    return this.matchers ?? new Map();
  }
}
