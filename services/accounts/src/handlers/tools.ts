/**
 * Command handlers of the personal and organization tools: load what a decider needs
 * (whom drafts address, who hears of a playground), decide on the command's own stream,
 * append. Reads answer from the read models (queries/tools.ts).
 */
import { streams, type Actor, type DraftInput } from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import type { AggregateRepository, AppendResult } from '@teamchat/platform';
import { channelAccess } from '@teamchat/policies';
import { decideAddAlertWords, decideRemoveAlertWords } from '../domain/alert-words';
import { decideRemoveBotStorage, decideUpdateBotStorage, type BotStorageState } from '../domain/bot-storage';
import { decideCreateDrafts, decideDeleteDraft, decideEditDraft, type Addressees } from '../domain/drafts';
import { decideAddPlayground, decideRemovePlayground, type PlaygroundsState } from '../domain/playgrounds';
import { decideCreateSavedSnippet, decideDeleteSavedSnippet, decideEditSavedSnippet } from '../domain/saved-snippets';
import type { UserDataState } from '../domain/user-data';
import { parseUrlTemplate } from './url-template';

export interface ToolsDeps {
  directory: Directory;
  userData: AggregateRepository<UserDataState>;
  botStorage: AggregateRepository<BotStorageState>;
  playgrounds: AggregateRepository<PlaygroundsState>;
  botStorageLimit: number;
}

const positionOf = (append: AppendResult | undefined) => append?.positions.at(-1);

/** Looks up every channel and user the drafts name, so that the decider can stay pure. */
async function addresseesOf(deps: ToolsDeps, actor: Actor, drafts: readonly DraftInput[]): Promise<Addressees> {
  const postableChannelIds = new Set<number>();
  const userIds = new Set<number>();
  for (const draft of drafts) {
    if (draft.type === 'stream' && draft.to.length === 1) {
      const channel = await deps.directory.channelById(draft.to[0]!);
      if (!channel || channel.is_archived) continue;
      const subscribed = await deps.directory.isSubscribed(channel._id, actor.user_id);
      if (channelAccess(channel, { role: actor.role, subscribed }).postOrMoveInto) postableChannelIds.add(channel._id);
    } else if (draft.type === 'private') {
      for (const id of draft.to) if (await deps.directory.userById(id)) userIds.add(id);
    }
  }
  return { postableChannelIds, userIds };
}

export async function createDrafts(deps: ToolsDeps, actor: Actor, drafts: DraftInput[]) {
  const addressees = await addresseesOf(deps, actor, drafts);
  const { result, append } = await deps.userData.execute(streams.userData(actor.user_id), (state) => {
    const { facts, ids } = decideCreateDrafts(state, { user_id: actor.user_id, drafts, addressees, now: Date.now() });
    return { facts, result: ids };
  });
  return { ids: result, position: positionOf(append) };
}

export async function editDraft(deps: ToolsDeps, actor: Actor, draftId: number, draft: DraftInput) {
  const addressees = await addresseesOf(deps, actor, [draft]);
  const { append } = await deps.userData.execute(streams.userData(actor.user_id), (state) => ({
    facts: decideEditDraft(state, { user_id: actor.user_id, draft_id: draftId, draft, addressees, now: Date.now() }),
    result: undefined,
  }));
  return positionOf(append);
}

export async function deleteDraft(deps: ToolsDeps, actor: Actor, draftId: number) {
  const { append } = await deps.userData.execute(streams.userData(actor.user_id), (state) => ({
    facts: decideDeleteDraft(state, { user_id: actor.user_id, draft_id: draftId }),
    result: undefined,
  }));
  return positionOf(append);
}

export async function createSavedSnippet(deps: ToolsDeps, actor: Actor, title: string, content: string) {
  const { result, append } = await deps.userData.execute(streams.userData(actor.user_id), (state) => {
    const { facts, id } = decideCreateSavedSnippet(state, { user_id: actor.user_id, title, content, now: Date.now() });
    return { facts, result: id };
  });
  return { saved_snippet_id: result, position: positionOf(append) };
}

export async function editSavedSnippet(deps: ToolsDeps, actor: Actor, params: { saved_snippet_id: number; title?: string | undefined; content?: string | undefined }) {
  const { append } = await deps.userData.execute(streams.userData(actor.user_id), (state) => ({
    facts: decideEditSavedSnippet(state, { user_id: actor.user_id, ...params }),
    result: undefined,
  }));
  return positionOf(append);
}

export async function deleteSavedSnippet(deps: ToolsDeps, actor: Actor, savedSnippetId: number) {
  const { append } = await deps.userData.execute(streams.userData(actor.user_id), (state) => ({
    facts: decideDeleteSavedSnippet(state, { user_id: actor.user_id, saved_snippet_id: savedSnippetId }),
    result: undefined,
  }));
  return positionOf(append);
}

export async function changeAlertWords(deps: ToolsDeps, actor: Actor, words: string[], op: 'add' | 'remove') {
  const decide = op === 'add' ? decideAddAlertWords : decideRemoveAlertWords;
  const { result, append } = await deps.userData.execute(streams.userData(actor.user_id), (state) => {
    const { facts, alert_words } = decide(state, { user_id: actor.user_id, alert_words: words });
    return { facts, result: alert_words };
  });
  return { alert_words: result, position: positionOf(append) };
}

export async function updateBotStorage(deps: ToolsDeps, actor: Actor, storage: Record<string, string>) {
  const { append } = await deps.botStorage.execute(streams.botStorage(actor.user_id), (state) => ({
    facts: decideUpdateBotStorage(state, { actor, storage, limit: deps.botStorageLimit }),
    result: undefined,
  }));
  return positionOf(append);
}

export async function removeBotStorage(deps: ToolsDeps, actor: Actor, keys: string[] | undefined) {
  const { append } = await deps.botStorage.execute(streams.botStorage(actor.user_id), (state) => ({
    facts: decideRemoveBotStorage(state, { actor, keys }),
    result: undefined,
  }));
  return positionOf(append);
}

export async function addPlayground(deps: ToolsDeps, actor: Actor, params: { name: string; lexer_language: string; url_template: string }) {
  const parsed_template = parseUrlTemplate(params.url_template);
  const { result, append } = await deps.playgrounds.execute(streams.playgrounds, (state) => {
      const { facts, id } = decideAddPlayground(state, { actor, ...params, parsed_template });
      return { facts, result: id };
    },
  );
  return { id: result, position: positionOf(append) };
}

export async function removePlayground(deps: ToolsDeps, actor: Actor, playgroundId: number) {
  const { append } = await deps.playgrounds.execute(streams.playgrounds, (state) => ({ facts: decideRemovePlayground(state, { actor, playground_id: playgroundId }), result: undefined }),
  );
  return positionOf(append);
}
