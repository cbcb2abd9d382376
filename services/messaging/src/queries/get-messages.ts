/**
 * GET /messages: a range of messages around an anchor, or exact ids, within a narrow,
 * limited to what the requester may see.
 *
 * The narrow is planned in narrow-plan.ts: personal history, or the full history of a
 * channel the requester may read (so a user who subscribed late still sees it); the
 * plan's candidates are read and tested in reader.ts, and rendered in render-messages.ts.
 */
import { badRequest, LARGER_THAN_MAX_MESSAGE_ID, MAX_MESSAGES_PER_FETCH, type Actor, type GetMessagesParams, type MessageRange } from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import type { RequestBudget } from '@teamchat/platform';
import type { MessagesReadModel } from '../projections/messages';
import { accessibleMessage, canReadChannelHistory, channelAccessOf } from './access';
import { parseAnchor, resolveAnchor } from './anchors';
import type { Term } from './narrow';
import { expandWith, normalizeTerm, resolveNarrow, searchTermsOf } from './narrow-parse';
import { planNarrow } from './narrow-plan';
import { Reader } from './reader';
import { renderMessagesJson } from './render-messages';

export type SelectParams = Omit<GetMessagesParams, 'client_gravatar' | 'apply_markdown' | 'allow_empty_topic_name'>;

export interface GetMessagesDeps {
  directory: Directory;
  model: MessagesReadModel;
}


/** The response's fields, and `{"messages":[…]}` as UTF-8 JSON (see renderMessagesJson). */
export async function getMessages(deps: GetMessagesDeps, actor: Actor, params: GetMessagesParams, budget?: RequestBudget) {
  const { ids, result, loaded } = await select(deps, actor, params, budget);
  const messagesJson = await renderMessagesJson(
    deps,
    actor,
    ids,
    {
      apply_markdown: params.apply_markdown ?? true,
      client_gravatar: params.client_gravatar ?? true,
      allow_empty_topic_name: params.allow_empty_topic_name ?? false,
    },
    loaded,
    { before: '{"messages":', after: '}' },
    searchTermsOf(params.narrow ?? []),
  );
  return { result, messagesJson };
}

/** The ids a GET /messages request selects, ascending, with the found_* and anchor fields. */
export async function selectMessageIds(
  deps: GetMessagesDeps,
  actor: Actor,
  params: SelectParams,
  budget?: RequestBudget,
): Promise<{ ids: number[]; result: MessageRange }> {
  const { ids, result } = await select(deps, actor, params, budget);
  return { ids, result };
}

async function select(deps: GetMessagesDeps, actor: Actor, params: SelectParams, budget?: RequestBudget) {
  const terms = await expandWith((params.narrow ?? []).map(normalizeTerm), (id) => conversationOf(deps, actor, id));
  const narrow = await resolveNarrow(deps.directory, actor, terms);
  const readable = narrow.channel ? await canReadChannelHistory(deps, actor, narrow.channel._id) : false;
  const reader = new Reader(deps, actor, budget);

  if (params.message_ids !== undefined) {
    const mixed = (['anchor', 'include_anchor', 'use_first_unread_anchor', 'num_before', 'num_after'] as const).filter(
      (name) => params[name] !== undefined,
    );
    if (mixed.length) throw badRequest(`Parameter 'message_ids' cannot be combined with '${mixed[0]}'`);
    if (params.message_ids.length > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    const plan = planNarrow(narrow, readable);
    const found =
      plan.source === 'none' ? [] : await reader.scan({ source: 'ids', ids: params.message_ids, conditions: narrow.conditions }, {}, 1, MAX_MESSAGES_PER_FETCH);
    return {
      ids: found.map((c) => c.id),
      loaded: found,
      result: { found_newest: false, found_oldest: false, found_anchor: false, history_limited: false },
    };
  }

  const numBefore = params.num_before;
  const numAfter = params.num_after;
  if (numBefore === undefined) throw badRequest("Missing 'num_before' argument", { var_name: 'num_before' });
  if (numAfter === undefined) throw badRequest("Missing 'num_after' argument", { var_name: 'num_after' });
  if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
  const includeAnchor = params.include_anchor ?? true;
  const anchor = parseAnchor(params, narrow);
  const plan = planNarrow(narrow, readable);
  const anchorId = await resolveAnchor(deps, reader, anchor, narrow, readable, plan);

  // One extra on each side tells whether the edge of the narrow was reached. Past the
  // newest id there is nothing to look for.
  const pastNewest = anchorId >= LARGER_THAN_MAX_MESSAGE_ID;
  const before = (await reader.scan(plan, { $lt: anchorId }, -1, numBefore + 1)).reverse();
  const atAnchor = includeAnchor && !pastNewest ? await reader.scan(plan, { $gte: anchorId, $lte: anchorId }, 1, 1) : [];
  const after = pastNewest ? [] : await reader.scan(plan, { $gt: anchorId }, 1, numAfter + 1);
  const foundOldest = before.length <= numBefore;
  const foundNewest = after.length <= numAfter;
  const selected = [...(foundOldest ? before : before.slice(1)), ...atAnchor, ...(foundNewest ? after : after.slice(0, numAfter))];
  return {
    ids: selected.map((c) => c.id),
    loaded: selected,
    result: {
      anchor: anchorId,
      found_anchor: atAnchor.length > 0,
      found_oldest: foundOldest || anchor.kind === 'oldest',
      found_newest: foundNewest || anchor.kind === 'newest',
      history_limited: false,
    },
  };
}

/** `with:<id>`: the terms naming the conversation the message is in, if the requester may see it. */
async function conversationOf(deps: GetMessagesDeps, actor: Actor, messageId: number): Promise<Term[] | undefined> {
  const access = await accessibleMessage(deps, actor, messageId).catch(() => undefined);
  if (!access) return undefined;
  const { recipient } = access.message;
  const term = (operator: string, operand: Term['operand']): Term => ({ operator, written: 'with', operand, negated: false });
  if (recipient.type === 'direct') return [term('dm', recipient.users.map((u) => u.id))];
  const channel = await deps.directory.channelById(recipient.channel_id);
  // Received in a private channel the requester has since left: the channel cannot be
  // named, but the message they hold still can.
  if (!(await channelAccessOf(deps.directory, actor, channel)).seeMetadata) return [term('id', messageId)];
  return [term('channel', recipient.channel_id), term('topic', recipient.topic)];
}
