/**
 * GET /messages: a range of messages around an anchor, or exact ids, within a narrow,
 * limited to what the requester may see.
 *
 * Where a narrow names a channel whose history the requester may read in full, the
 * channel's messages are read directly (a user who subscribed late still sees the
 * history); everything else comes from the requester's personal history.
 */
import {
  ApiError,
  badRequest,
  formatMessage,
  LARGER_THAN_MAX_MESSAGE_ID,
  MAX_MESSAGES_PER_FETCH,
  type Actor,
  type GetMessagesParams,
  type MessageView,
  type NarrowTerm,
} from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import type { Filter } from '@teamchat/platform';
import { dmKey, userMessageId, type MessageDoc, type MessagesReadModel } from '../projections/messages';
import { canReadChannelHistory } from './access';

const badNarrow = (msg: string) => new ApiError('BAD_REQUEST', `Invalid narrow operator: ${msg}`, 400);

interface Term {
  operator: string;
  operand: string | number | (string | number)[];
  negated: boolean;
}

function normalizeTerm(term: NarrowTerm): Term {
  if (Array.isArray(term)) return { operator: term[0], operand: term[1], negated: false };
  return { operator: term.operator, operand: term.operand, negated: term.negated ?? false };
}

/** Legacy operator names, as clients still send them. */
const OPERATOR_ALIASES: Record<string, string> = { stream: 'channel', subject: 'topic', 'pm-with': 'dm' };

interface Plan {
  /** Read the channel's messages directly (full history) rather than personal history. */
  source: 'channel' | 'personal';
  filter: Filter;
}

async function planNarrow(directory: Directory, actor: Actor, narrow: NarrowTerm[]): Promise<Plan> {
  const filter: Filter = {};
  let channelHistoryReadable = false;
  let hasChannel = false;
  for (const raw of narrow) {
    const term = normalizeTerm(raw);
    const operator = OPERATOR_ALIASES[term.operator] ?? term.operator;
    if (term.negated) throw badNarrow(`negated '${term.operator}' is not supported`);
    switch (operator) {
      case 'channel': {
        if (hasChannel) throw badNarrow('only one channel operator is allowed');
        const operand = term.operand;
        const channel =
          typeof operand === 'number' || /^\d+$/.test(String(operand))
            ? await directory.channelById(Number(operand))
            : typeof operand === 'string'
              ? await directory.channelByName(operand)
              : undefined;
        if (!channel) throw badNarrow('unknown channel');
        const subscribed = await directory.isSubscribed(channel._id, actor.user_id);
        if (channel.invite_only && !subscribed) throw badNarrow('unknown channel');
        hasChannel = true;
        channelHistoryReadable = channel.history_public_to_subscribers;
        filter.channel_id = channel._id;
        break;
      }
      case 'topic': {
        if (typeof term.operand !== 'string') throw badNarrow('topic operand must be a string');
        filter.topic_lc = term.operand.toLowerCase();
        break;
      }
      case 'dm': {
        const operand = term.operand;
        const items = Array.isArray(operand)
          ? operand
          : typeof operand === 'number'
            ? [operand]
            : operand.split(',').map((s) => s.trim()).filter(Boolean);
        const ids: number[] = [];
        for (const item of items) {
          const user =
            typeof item === 'number' ? await directory.userById(item) : await directory.userByEmail(item);
          if (!user) throw badNarrow('unknown user in dm');
          ids.push(user._id);
        }
        filter.dm_key = dmKey([...ids, actor.user_id]);
        break;
      }
      default:
        throw badNarrow(`unknown operator '${term.operator}'`);
    }
  }
  if (filter.topic_lc !== undefined && !hasChannel) {
    // A topic without a channel spans every channel the user received it in.
    filter.channel_id = { $ne: null };
  }
  return { source: hasChannel && channelHistoryReadable ? 'channel' : 'personal', filter };
}

type Anchor = { kind: 'id'; id: number } | { kind: 'newest' } | { kind: 'oldest' } | { kind: 'first_unread' };

function parseAnchor(params: GetMessagesParams): Anchor {
  if (params.use_first_unread_anchor) {
    if (params.anchor !== undefined) throw badRequest("Parameters 'anchor' and 'use_first_unread_anchor' are exclusive");
    return { kind: 'first_unread' };
  }
  const anchor = params.anchor;
  if (anchor === undefined) throw badRequest("Missing 'anchor' argument", { var_name: 'anchor' });
  if (typeof anchor === 'number') return { kind: 'id', id: anchor };
  if (anchor === 'newest' || anchor === 'oldest' || anchor === 'first_unread') return { kind: anchor };
  if (/^-?\d+$/.test(anchor)) return { kind: 'id', id: Number(anchor) };
  throw badRequest(`Invalid anchor '${anchor}'`);
}

export interface GetMessagesDeps {
  directory: Directory;
  model: MessagesReadModel;
}

export type SelectParams = Omit<GetMessagesParams, 'client_gravatar' | 'apply_markdown' | 'allow_empty_topic_name'>;

export async function getMessages(deps: GetMessagesDeps, actor: Actor, params: GetMessagesParams) {
  const { ids, result } = await selectMessageIds(deps, actor, params);
  const messages = await renderMessages(deps, actor, ids, {
    apply_markdown: params.apply_markdown ?? true,
    client_gravatar: params.client_gravatar ?? true,
    allow_empty_topic_name: params.allow_empty_topic_name ?? false,
  });
  return { ...result, messages };
}

/** The ids a GET /messages request selects, ascending, with the found_* and anchor fields. */
export async function selectMessageIds(
  deps: GetMessagesDeps,
  actor: Actor,
  params: SelectParams,
): Promise<{ ids: number[]; result: Record<string, unknown> }> {
  const { directory, model } = deps;
  const plan = await planNarrow(directory, actor, params.narrow ?? []);

  const personal = (extra: Filter): Filter => ({ ...plan.filter, ...extra, user_id: actor.user_id });
  const idField = plan.source === 'channel' ? '_id' : 'message_id';
  const find = async (range: Filter, sort: 1 | -1, limit: number): Promise<number[]> => {
    if (limit <= 0) return [];
    if (plan.source === 'channel') {
      const docs = await model.messages.find({ ...plan.filter, ...range }, { sort: ['_id', sort], limit });
      return docs.map((d) => d._id);
    }
    const docs = await model.userMessages.find(personal(range), { sort: ['message_id', sort], limit });
    return docs.map((d) => d.message_id);
  };

  let ids: number[];
  let result: Record<string, unknown>;
  if (params.message_ids !== undefined) {
    const mixed = (['anchor', 'include_anchor', 'use_first_unread_anchor', 'num_before', 'num_after'] as const).filter(
      (name) => params[name] !== undefined,
    );
    if (mixed.length) throw badRequest(`Parameter 'message_ids' cannot be combined with '${mixed[0]}'`);
    if (params.message_ids.length > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    ids = await accessibleIds(deps, actor, plan.filter, params.message_ids);
    result = { found_newest: false, found_oldest: false, found_anchor: false, history_limited: false };
  } else {
    const numBefore = params.num_before;
    const numAfter = params.num_after;
    if (numBefore === undefined) throw badRequest("Missing 'num_before' argument", { var_name: 'num_before' });
    if (numAfter === undefined) throw badRequest("Missing 'num_after' argument", { var_name: 'num_after' });
    if (numBefore + numAfter > MAX_MESSAGES_PER_FETCH) throw badRequest(`Too many messages requested (maximum ${MAX_MESSAGES_PER_FETCH}).`);
    const includeAnchor = params.include_anchor ?? true;
    const anchor = parseAnchor(params);

    let anchorId: number;
    if (anchor.kind === 'newest') anchorId = LARGER_THAN_MAX_MESSAGE_ID;
    else if (anchor.kind === 'oldest') anchorId = 0;
    else if (anchor.kind === 'id') anchorId = anchor.id;
    else {
      const [firstUnread] = await model.userMessages.find(
        personal({ unread: true }),
        { sort: ['message_id', 1], limit: 1 },
      );
      anchorId = firstUnread?.message_id ?? LARGER_THAN_MAX_MESSAGE_ID;
    }

    // One extra on each side tells whether the edge of the narrow was reached.
    const before = (await find({ [idField]: { $lt: anchorId } }, -1, numBefore + 1)).reverse();
    const atAnchor = includeAnchor ? await find({ [idField]: anchorId }, 1, 1) : [];
    const after = await find({ [idField]: { $gt: anchorId } }, 1, numAfter + 1);
    const foundOldest = before.length <= numBefore;
    const foundNewest = after.length <= numAfter;
    ids = [...(foundOldest ? before : before.slice(1)), ...atAnchor, ...(foundNewest ? after : after.slice(0, numAfter))];
    result = {
      anchor: anchorId,
      found_anchor: atAnchor.length > 0,
      found_oldest: foundOldest || anchor.kind === 'oldest',
      found_newest: foundNewest || anchor.kind === 'newest',
      history_limited: false,
    };
  }

  return { ids, result };
}

/**
 * `message_ids`: those of the ids that exist, that the user may see (personal history or
 * readable channel history) and that match the narrow's keys.
 */
async function accessibleIds(deps: GetMessagesDeps, actor: Actor, filter: Filter, wanted: number[]): Promise<number[]> {
  if (wanted.length === 0) return [];
  const unique = [...new Set(wanted)];
  const [docs, rows] = await Promise.all([
    deps.model.messages.getMany(unique),
    deps.model.userMessages.getMany(unique.map((id) => userMessageId(actor.user_id, id))),
  ]);
  const received = new Set(rows.map((r) => r.message_id));
  const ids: number[] = [];
  for (const doc of docs) {
    if (!matchesKeys(doc, filter)) continue;
    const visible =
      received.has(doc._id) || (doc.channel_id !== null && (await canReadChannelHistory(deps, actor, doc.channel_id)));
    if (visible) ids.push(doc._id);
  }
  return ids.sort((a, b) => a - b);
}

/** The narrow's keys (equality, or `$ne: null`) checked against a message document. */
function matchesKeys(doc: MessageDoc, filter: Filter): boolean {
  return Object.entries(filter).every(([field, condition]) => {
    const value = (doc as Record<string, unknown>)[field];
    if (condition !== null && typeof condition === 'object' && '$ne' in condition) return value !== condition.$ne;
    return value === condition;
  });
}

export async function renderMessages(
  deps: GetMessagesDeps,
  actor: Actor,
  ids: number[],
  format: Parameters<typeof formatMessage>[1],
): Promise<Record<string, unknown>[]> {
  if (ids.length === 0) return [];
  const [docs, userMessages] = await Promise.all([
    deps.model.messages.getMany(ids),
    deps.model.userMessages.getMany(ids.map((id) => userMessageId(actor.user_id, id))),
  ]);
  const flagsById = new Map(userMessages.map((um) => [um.message_id, um.flags]));
  const senders = new Map((await deps.directory.usersByIds([...new Set(docs.map((d) => d.sender_id))])).map((u) => [u._id, u]));
  const channelNames = new Map<number, string>();
  for (const id of new Set(docs.flatMap((d) => (d.channel_id === null ? [] : [d.channel_id])))) {
    const channel = await deps.directory.channelById(id);
    if (channel) channelNames.set(id, channel.name);
  }
  return docs.map((doc) => {
    const sender = senders.get(doc.sender_id);
    const view: MessageView = {
      ...viewOf(doc),
      sender_email: sender?.email ?? doc.sender_email,
      sender_full_name: sender?.full_name ?? doc.sender_full_name,
    };
    if (view.recipient.type === 'channel') {
      view.recipient = { ...view.recipient, channel_name: channelNames.get(view.recipient.channel_id) ?? view.recipient.channel_name };
    }
    // A message outside the user's personal history (channel history read before they
    // subscribed) is reported read and historical, as Zulip does.
    return { ...formatMessage(view, format), flags: flagsById.get(doc._id) ?? ['read', 'historical'] };
  });
}

function viewOf(doc: MessageDoc): MessageView {
  return {
    id: doc._id,
    sender_id: doc.sender_id,
    sender_email: doc.sender_email,
    sender_full_name: doc.sender_full_name,
    recipient: doc.recipient,
    recipient_id: doc.recipient_id,
    content: doc.content,
    rendered_content: doc.rendered_content,
    client: doc.client,
    timestamp: doc.timestamp,
    is_me_message: doc.is_me_message,
    reactions: doc.reactions,
    edit_history: doc.edit_history,
    last_edit_timestamp: doc.last_edit_timestamp,
    last_moved_timestamp: doc.last_moved_timestamp,
  };
}
