/**
 * Accounts' read models of the personal and organization tools: each user's own data
 * (settings, drafts, saved snippets, alert words) as one document, each bot's storage as
 * one, and the organization's playgrounds as one. This projector is their only writer,
 * and every case sets values rather than adding to them, so a replayed fact changes
 * nothing.
 */
import type { StoredDraft, StoredPlayground, StoredSavedSnippet } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

export interface UserDataDoc extends Doc {
  _id: number;
  settings: Record<string, boolean | number | string>;
  drafts: StoredDraft[];
  saved_snippets: StoredSavedSnippet[];
  alert_words: string[];
}

export interface BotStorageDoc extends Doc {
  _id: number;
  entries: Record<string, string>;
}

interface PlaygroundsDoc extends Doc {
  _id: 'playgrounds';
  playgrounds: StoredPlayground[];
}

const EMAIL_VISIBILITY = 'email_address_visibility';

const emptyUserData = (userId: number): UserDataDoc => ({ _id: userId, settings: {}, drafts: [], saved_snippets: [], alert_words: [] });

export class ToolsReadModel {
  private readonly userData: Collection<UserDataDoc>;
  private readonly botStorage: Collection<BotStorageDoc>;
  private readonly playgroundList: Collection<PlaygroundsDoc>;

  /**
   * Users' own email_address_visibility where they set it, read once from the documents and
   * then kept by this projector: register and GET /users ask it of every user (10,000 reads
   * per registration at 10,000 users otherwise).
   */
  private ownEmailVisibility: Map<number, number> | undefined;
  /** Counts changes of that setting, so that a read a change overtook is not kept. */
  private emailVisibilityChanges = 0;

  constructor(readModels: ReadModelStore) {
    this.userData = readModels.collection<UserDataDoc>('user_data', [], { cacheSize: 1000 });
    this.botStorage = readModels.collection<BotStorageDoc>('bot_storage');
    this.playgroundList = readModels.collection<PlaygroundsDoc>('playgrounds');
  }

  /** Documents read from a cache are frozen: changes go to a copy. */
  private async changeUserData(userId: number, change: (doc: UserDataDoc) => UserDataDoc): Promise<void> {
    const doc = (await this.userData.get(userId)) ?? emptyUserData(userId);
    await this.userData.put(change(doc));
  }

  /** Through a Map: a key such as `__proto__` is data here, never a property setter. */
  private async changeBotStorage(userId: number, change: (entries: Map<string, string>) => void): Promise<void> {
    const doc = await this.botStorage.get(userId);
    const entries = new Map(Object.entries(doc?.entries ?? {}));
    change(entries);
    await this.botStorage.put({ _id: userId, entries: Object.fromEntries(entries) });
  }

  readonly handlers = {
    UserSettingChanged: async (fact) => {
      if (fact.property !== EMAIL_VISIBILITY) return this.changeUserData(fact.user_id, (doc) => ({ ...doc, settings: { ...doc.settings, [fact.property]: fact.value } }));
      this.emailVisibilityChanges++;
      try {
        await this.changeUserData(fact.user_id, (doc) => ({ ...doc, settings: { ...doc.settings, [fact.property]: fact.value } }));
      } finally {
        this.emailVisibilityChanges++;
        if (typeof fact.value === 'number') this.ownEmailVisibility?.set(fact.user_id, fact.value);
        else this.ownEmailVisibility?.delete(fact.user_id);
      }
    },
    DraftsAdded: (fact) =>
      this.changeUserData(fact.user_id, (doc) => {
        const added = new Set(fact.drafts.map((d) => d.id));
        return { ...doc, drafts: [...doc.drafts.filter((d) => !added.has(d.id)), ...fact.drafts] };
      }),
    DraftUpdated: (fact) => this.changeUserData(fact.user_id, (doc) => ({ ...doc, drafts: doc.drafts.map((d) => (d.id === fact.draft.id ? fact.draft : d)) })),
    DraftRemoved: (fact) => this.changeUserData(fact.user_id, (doc) => ({ ...doc, drafts: doc.drafts.filter((d) => d.id !== fact.draft_id) })),
    DraftsCleared: (fact) => {
      const cleared = new Set(fact.draft_ids);
      return this.changeUserData(fact.user_id, (doc) => ({ ...doc, drafts: doc.drafts.filter((d) => !cleared.has(d.id)) }));
    },
    SavedSnippetAdded: (fact) =>
      this.changeUserData(fact.user_id, (doc) => ({
        ...doc,
        saved_snippets: [...doc.saved_snippets.filter((s) => s.id !== fact.saved_snippet.id), fact.saved_snippet],
      })),
    SavedSnippetUpdated: (fact) =>
      this.changeUserData(fact.user_id, (doc) => ({
        ...doc,
        saved_snippets: doc.saved_snippets.map((s) => (s.id === fact.saved_snippet.id ? fact.saved_snippet : s)),
      })),
    SavedSnippetRemoved: (fact) =>
      this.changeUserData(fact.user_id, (doc) => ({ ...doc, saved_snippets: doc.saved_snippets.filter((s) => s.id !== fact.saved_snippet_id) })),
    AlertWordsChanged: (fact) => this.changeUserData(fact.user_id, (doc) => ({ ...doc, alert_words: fact.alert_words })),
    BotStorageUpdated: (fact) =>
      this.changeBotStorage(fact.user_id, (entries) => {
        for (const [key, value] of Object.entries(fact.storage)) entries.set(key, value);
      }),
    BotStorageRemoved: (fact) =>
      this.changeBotStorage(fact.user_id, (entries) => {
        if (fact.keys === null) entries.clear();
        else for (const key of fact.keys) entries.delete(key);
      }),
    PlaygroundAdded: (fact) => this.playgroundList.put({ _id: 'playgrounds', playgrounds: fact.playgrounds }),
    PlaygroundRemoved: (fact) => this.playgroundList.put({ _id: 'playgrounds', playgrounds: fact.playgrounds }),
  } satisfies FactHandlers;

  /** Each user's own email_address_visibility, for those who set one. */
  async emailVisibilities(): Promise<ReadonlyMap<number, number>> {
    if (this.ownEmailVisibility) return this.ownEmailVisibility;
    const changes = this.emailVisibilityChanges;
    const own = new Map<number, number>();
    for (const doc of await this.userData.find({})) {
      const value = doc.settings[EMAIL_VISIBILITY];
      if (typeof value === 'number') own.set(doc._id, value);
    }
    if (changes === this.emailVisibilityChanges) this.ownEmailVisibility = own;
    return own;
  }

  async userDataOf(userId: number): Promise<UserDataDoc> {
    return (await this.userData.get(userId)) ?? emptyUserData(userId);
  }

  async botStorageOf(userId: number): Promise<ReadonlyMap<string, string>> {
    const doc = await this.botStorage.get(userId);
    return new Map(Object.entries(doc?.entries ?? {}));
  }

  async playgrounds(): Promise<StoredPlayground[]> {
    return [...((await this.playgroundList.get('playgrounds'))?.playgrounds ?? [])];
  }
}
