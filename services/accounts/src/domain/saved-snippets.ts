/** Saved snippets (spec endpoints 14 and 16): a user's reusable texts. Pure. */
import { badRequest, LIMITS, type Fact } from '@teamchat/contracts';
import { codePointLength } from '@teamchat/policies';
import { hasNullByte, type UserDataState } from './user-data';

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH. */
export const MAX_SNIPPET_TITLE_LENGTH = 60;

function checkTitle(title: string): string {
  const trimmed = title.trim();
  if (trimmed.length === 0) throw badRequest('Title cannot be empty.');
  if (hasNullByte(trimmed)) throw badRequest('Title must not contain null bytes');
  if (codePointLength(trimmed) > MAX_SNIPPET_TITLE_LENGTH) throw badRequest(`Title is too long (limit: ${MAX_SNIPPET_TITLE_LENGTH} characters)`);
  return trimmed;
}

function checkContent(content: string): string {
  if (content.trim().length === 0) throw badRequest('Content cannot be empty.');
  if (hasNullByte(content)) throw badRequest('Content must not contain null bytes');
  if (codePointLength(content) > LIMITS.max_message_length) throw badRequest(`Content is too long (limit: ${LIMITS.max_message_length} characters)`);
  return content;
}

export function decideCreateSavedSnippet(
  state: UserDataState,
  cmd: { user_id: number; title: string; content: string; now: number },
): { facts: Fact[]; id: number } {
  const id = state.lastSnippetId + 1;
  const saved_snippet = { id, title: checkTitle(cmd.title), content: checkContent(cmd.content), date_created: Math.floor(cmd.now / 1000) };
  return { facts: [{ type: 'SavedSnippetAdded', user_id: cmd.user_id, saved_snippet }], id };
}

export function decideEditSavedSnippet(
  state: UserDataState,
  cmd: { user_id: number; saved_snippet_id: number; title?: string | undefined; content?: string | undefined },
): Fact[] {
  const current = state.snippets.get(cmd.saved_snippet_id);
  if (!current) throw badRequest('Saved snippet does not exist.');
  if (cmd.title === undefined && cmd.content === undefined) throw badRequest('At least one of title or content must be given.');
  const updated = {
    ...current,
    ...(cmd.title !== undefined ? { title: checkTitle(cmd.title) } : {}),
    ...(cmd.content !== undefined ? { content: checkContent(cmd.content) } : {}),
  };
  if (updated.title === current.title && updated.content === current.content) return [];
  return [{ type: 'SavedSnippetUpdated', user_id: cmd.user_id, saved_snippet: updated }];
}

export function decideDeleteSavedSnippet(state: UserDataState, cmd: { user_id: number; saved_snippet_id: number }): Fact[] {
  if (!state.snippets.has(cmd.saved_snippet_id)) throw badRequest('Saved snippet does not exist.');
  return [{ type: 'SavedSnippetRemoved', user_id: cmd.user_id, saved_snippet_id: cmd.saved_snippet_id }];
}
