/**
 * Drafts (spec endpoints 12 and 20, the Draft resource and the Drafts transition). Pure:
 * whom a draft may address comes in resolved by the handler (`Addressees`), the clock
 * with the command.
 */
import { badRequest, LIMITS, type DraftInput, type Fact, type StoredDraft } from '@teamchat/contracts';
import { codePointLength } from '@teamchat/policies';
import { hasNullByte, type UserDataState } from './user-data';
import { settingOf } from './user-settings';

/** What the handler found out about the ids drafts name. */
export interface Addressees {
  /** Channels the user may post to (existing, not archived, with access). */
  postableChannelIds: ReadonlySet<number>;
  /** Users that exist in the organization. */
  userIds: ReadonlySet<number>;
}

const SYNC_DISABLED = 'User has disabled synchronizing drafts.';

/** The draft as stored: checked, with its addressing normalized and its timestamp. */
export function checkDraft(input: DraftInput, addressees: Addressees, id: number, nowMs: number): StoredDraft {
  if (hasNullByte(input.content)) throw badRequest('Content must not contain null bytes');
  if (hasNullByte(input.topic)) throw badRequest('Topic must not contain null bytes');
  if (codePointLength(input.content) > LIMITS.max_message_length) {
    throw badRequest(`Content is too long (limit: ${LIMITS.max_message_length} characters)`);
  }
  if (codePointLength(input.topic) > LIMITS.max_topic_length) throw badRequest(`Topic is too long (limit: ${LIMITS.max_topic_length} characters)`);
  let to: number[] = [];
  let topic = '';
  if (input.type === 'stream') {
    if (input.to.length !== 1) throw badRequest('Must specify exactly 1 channel ID for channel messages');
    if (!addressees.postableChannelIds.has(input.to[0]!)) throw badRequest('Invalid channel ID');
    to = [input.to[0]!];
    topic = input.topic;
  } else if (input.type === 'private') {
    to = [...new Set(input.to)].sort((a, b) => a - b);
    const unknown = to.find((id) => !addressees.userIds.has(id));
    if (unknown !== undefined) throw badRequest(`Invalid user ID ${unknown}`);
  }
  // An unaddressed draft's `to` and topic are ignored, as the Draft resource says.
  const timestamp = input.timestamp === undefined ? Math.floor(nowMs / 1000) : Math.floor(input.timestamp);
  return { id, type: input.type, to, topic, content: input.content, timestamp };
}

export interface CreateDrafts {
  user_id: number;
  drafts: DraftInput[];
  addressees: Addressees;
  now: number;
}

/** At most this many per request (Zulip does not bound it; a client saves one or a few at a time). */
export const MAX_DRAFTS_PER_REQUEST = 100;

export function decideCreateDrafts(state: UserDataState, cmd: CreateDrafts): { facts: Fact[]; ids: number[] } {
  if (!settingOf(state, 'enable_drafts_synchronization')) throw badRequest(SYNC_DISABLED);
  if (cmd.drafts.length > MAX_DRAFTS_PER_REQUEST) throw badRequest(`At most ${MAX_DRAFTS_PER_REQUEST} drafts at a time`);
  const drafts = cmd.drafts.map((input, i) => checkDraft(input, cmd.addressees, state.lastDraftId + 1 + i, cmd.now));
  const ids = drafts.map((d) => d.id);
  return { facts: drafts.length ? [{ type: 'DraftsAdded', user_id: cmd.user_id, drafts }] : [], ids };
}

export interface EditDraft {
  user_id: number;
  draft_id: number;
  draft: DraftInput;
  addressees: Addressees;
  now: number;
}

export function decideEditDraft(state: UserDataState, cmd: EditDraft): Fact[] {
  if (!settingOf(state, 'enable_drafts_synchronization')) throw badRequest(SYNC_DISABLED);
  // Another user's draft is in their own stream: here it simply does not exist.
  if (!state.drafts.has(cmd.draft_id)) throw badRequest('Draft does not exist');
  return [{ type: 'DraftUpdated', user_id: cmd.user_id, draft: checkDraft(cmd.draft, cmd.addressees, cmd.draft_id, cmd.now) }];
}

export function decideDeleteDraft(state: UserDataState, cmd: { user_id: number; draft_id: number }): Fact[] {
  if (!state.drafts.has(cmd.draft_id)) throw badRequest('Draft does not exist');
  return [{ type: 'DraftRemoved', user_id: cmd.user_id, draft_id: cmd.draft_id }];
}

/** GET /drafts's order: most recently edited first (then the newer draft first). */
export const byMostRecentEdit = (a: StoredDraft, b: StoredDraft): number => b.timestamp - a.timestamp || b.id - a.id;
