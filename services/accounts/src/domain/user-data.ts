/**
 * One user's own data, in one stream (`user_data-<id>`): their settings, drafts, saved
 * snippets and alert words. One stream because turning draft synchronization off must
 * delete the drafts in the same decision as the setting (the spec's Drafts transition),
 * and because nobody else writes a user's own data, so the stream never contends.
 * Ids of drafts and snippets are the user's own sequence: nobody else sees them.
 */
import type { Fact, StoredDraft, StoredSavedSnippet } from '@teamchat/contracts';

export interface UserDataState {
  /** Settings changed from their defaults (see user-settings.ts). */
  settings: ReadonlyMap<string, boolean | number | string>;
  /** The settings the user changed themselves (target_users' skip_if_already_edited leaves them). */
  selfEdited: ReadonlySet<string>;
  drafts: ReadonlyMap<number, StoredDraft>;
  lastDraftId: number;
  snippets: ReadonlyMap<number, StoredSavedSnippet>;
  lastSnippetId: number;
  alertWords: readonly string[];
}

export const initialUserData = (): UserDataState => ({
  settings: new Map(),
  selfEdited: new Set(),
  drafts: new Map(),
  lastDraftId: 0,
  snippets: new Map(),
  lastSnippetId: 0,
  alertWords: [],
});

export function evolveUserData(state: UserDataState, fact: Fact): UserDataState {
  switch (fact.type) {
    case 'UserSettingChanged':
      return {
        ...state,
        settings: new Map(state.settings).set(fact.property, fact.value),
        selfEdited: fact.acting_user_id === undefined || fact.acting_user_id === fact.user_id ? new Set(state.selfEdited).add(fact.property) : state.selfEdited,
      };
    case 'DraftsAdded': {
      const drafts = new Map(state.drafts);
      for (const draft of fact.drafts) drafts.set(draft.id, draft);
      return { ...state, drafts, lastDraftId: Math.max(state.lastDraftId, ...fact.drafts.map((d) => d.id)) };
    }
    case 'DraftUpdated':
      return { ...state, drafts: new Map(state.drafts).set(fact.draft.id, fact.draft) };
    case 'DraftRemoved': {
      const drafts = new Map(state.drafts);
      drafts.delete(fact.draft_id);
      return { ...state, drafts };
    }
    case 'DraftsCleared': {
      const drafts = new Map(state.drafts);
      for (const id of fact.draft_ids) drafts.delete(id);
      return { ...state, drafts };
    }
    case 'SavedSnippetAdded':
      return {
        ...state,
        snippets: new Map(state.snippets).set(fact.saved_snippet.id, fact.saved_snippet),
        lastSnippetId: Math.max(state.lastSnippetId, fact.saved_snippet.id),
      };
    case 'SavedSnippetUpdated':
      return { ...state, snippets: new Map(state.snippets).set(fact.saved_snippet.id, fact.saved_snippet) };
    case 'SavedSnippetRemoved': {
      const snippets = new Map(state.snippets);
      snippets.delete(fact.saved_snippet_id);
      return { ...state, snippets };
    }
    case 'AlertWordsChanged':
      return { ...state, alertWords: fact.alert_words };
    default:
      return state;
  }
}

/** No NUL characters: PostgreSQL-backed Zulip refuses them, and so does every client's storage. */
export const hasNullByte = (text: string): boolean => text.includes('\u0000');
