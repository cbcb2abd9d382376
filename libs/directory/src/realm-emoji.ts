/**
 * The organization's custom emoji, projected from accounts' facts. Accounts answers
 * GET /realm/emoji and register from it; messaging keeps the same projection to render
 * `:name:` and to check reactions. One document, kept in memory once read: rendering
 * looks names up synchronously, and this process's projector is its only writer.
 */
import type { StoredRealmEmoji } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface RealmEmojiDoc extends Doc {
  _id: 'realm_emoji';
  emoji: StoredRealmEmoji[];
}

export class RealmEmojiBook {
  readonly collection: Collection<RealmEmojiDoc>;
  private loaded: readonly StoredRealmEmoji[] | undefined;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<RealmEmojiDoc>('dir_realm_emoji');
  }

  private async put(emoji: StoredRealmEmoji[]) {
    this.loaded = emoji;
    await this.collection.put({ _id: 'realm_emoji', emoji });
  }

  /** Each fact carries the whole set after it: a replay writes the same document again. */
  readonly handlers = {
    RealmEmojiAdded: (fact) => this.put(fact.realm_emoji.map((e) => ({ ...e }))),
    RealmEmojiDeactivated: (fact) => this.put(fact.realm_emoji.map((e) => ({ ...e }))),
  } satisfies FactHandlers;

  /** Every custom emoji, deactivated ones too, in the order they were added. */
  async all(): Promise<readonly StoredRealmEmoji[]> {
    this.loaded ??= (await this.collection.get('realm_emoji'))?.emoji ?? [];
    return this.loaded;
  }

  /** The set as last read (after `all()` once): for synchronous lookups while rendering. */
  known(): readonly StoredRealmEmoji[] {
    return this.loaded ?? [];
  }
}
