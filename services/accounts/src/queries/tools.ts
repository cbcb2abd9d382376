/** Reads of the personal and organization tools, from accounts' own read models. */
import { wantsState, type AccountsState, type Actor, type StateParams } from '@teamchat/contracts';
import { checkBot, readBotStorage } from '../domain/bot-storage';
import { byMostRecentEdit } from '../domain/drafts';
import type { ToolsReadModel } from '../projections/tools';

export async function getDrafts(model: ToolsReadModel, userId: number) {
  const drafts = [...(await model.userDataOf(userId)).drafts].sort(byMostRecentEdit);
  return { count: drafts.length, drafts };
}

export async function getSavedSnippets(model: ToolsReadModel, userId: number) {
  const snippets = [...(await model.userDataOf(userId)).saved_snippets].sort((a, b) => a.id - b.id);
  return { saved_snippets: snippets };
}

export async function getBotStorage(model: ToolsReadModel, actor: Actor, keys: string[] | undefined) {
  checkBot(actor);
  return { storage: readBotStorage(await model.botStorageOf(actor.user_id), keys) };
}

/** The implemented settings' current values, over the defaults register state starts from. */

/** Accounts' sections of POST /register for the tools. */
export async function toolsState(
  model: ToolsReadModel,
  userId: number,
  params: StateParams,
  video: { hasMeetingToken: boolean },
): Promise<Pick<AccountsState, 'drafts' | 'saved_snippets' | 'alert_words' | 'realm_playgrounds' | 'has_meeting_token'>> {
  const want = (type: string) => wantsState(params, type);
  const doc = await model.userDataOf(userId);
  return {
    ...(want('drafts') ? { drafts: [...doc.drafts].sort(byMostRecentEdit) } : {}),
    ...(want('saved_snippets') ? { saved_snippets: [...doc.saved_snippets].sort((a, b) => a.id - b.id) } : {}),
    ...(want('alert_words') ? { alert_words: [...doc.alert_words] } : {}),
    ...(want('realm_playgrounds') ? { realm_playgrounds: await model.playgrounds() } : {}),
    ...(want('has_meeting_token') ? { has_meeting_token: video.hasMeetingToken } : {}),
  };
}
