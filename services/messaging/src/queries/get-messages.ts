/**
 * GET /messages: a range of messages around an anchor, or exact ids, within a narrow,
 * limited to what the requester may see.
 *
 * The narrow is planned in narrow.ts: personal history, or the full history of a channel
 * the requester may read (so a user who subscribed late still sees it). What the store's
 * filter cannot check is tested here on candidates read in id order, a batch at a time,
 * until enough match or the range is exhausted: memory stays bounded by the batch
 * whatever the size of the channel.
 */
import {
  badRequest,
  cachedGravatarUrls,
  formatMessage,
  LARGER_THAN_MAX_MESSAGE_ID,
  MAX_MESSAGES_PER_FETCH,
  type Actor,
  type GetMessagesParams,
  type MessageObject,
  type MessageRange,
  type MessageView,
} from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import type { Filter } from '@teamchat/platform';
import { inIdRange, userMessageId, type IdRange, type MessageDoc, type MessagesReadModel, type UserMessageDoc } from '../projections/messages';
import { accessibleMessage, canReadChannelHistory } from './access';
import {
  expandWith,
  HISTORICAL_FLAGS,
  matches,
  needs,
  normalizeTerm,
  planNarrow,
  resolveNarrow,
  type Candidate,
  type Condition,
  type MatchContext,
  type Narrow,
  type Plan,
  type Term,
} from './narrow';

/** Candidates read per round when conditions are tested here. */
const SCAN_BATCH = 500;
/** The first round of a small request reads less: the first candidates often match. */
const FIRST_SCAN_BATCH_MIN = 20;

export interface GetMessagesDeps {
  directory: Directory;
  model: MessagesReadModel;
}

export type SelectParams = Omit<GetMessagesParams, 'client_gravatar' | 'apply_markdown' | 'allow_empty_topic_name'>;

type Anchor =
  | { kind: 'id'; id: number }
  | { kind: 'newest' }
  | { kind: 'oldest' }
  | { kind: 'first_unread' }
  | { kind: 'date'; timestamp: number };

/**
 * `anchor_date`: an ISO 8601 date (midnight UTC) or date and time, UTC unless it names a
 * zone. Returns the first whole second on or after it.
 */
export function parseAnchorDate(value: string): number | undefined {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i.exec(value.trim());
  if (!match) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '', zone = 'Z'] = match;
  const [y, mo, d, h, mi, s] = [year, month, day, hour, minute, second].map(Number) as [number, number, number, number, number, number];
  const date = new Date(0);
  // setUTCFullYear, unlike Date.UTC, keeps years 0–99 as written.
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, Number(fraction.padEnd(3, '0').slice(0, 3)));
  // Out-of-range fields (February 30th, 25 o'clock) roll over: refuse them instead.
  if (date.getUTCMonth() !== mo - 1 || date.getUTCDate() !== d || h > 23 || mi > 59 || s > 59) return undefined;
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const [, sign, zh, zm = '0'] = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
    if (Number(zh) > 23 || Number(zm) > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (Number(zh) * 60 + Number(zm));
  }
  return Math.ceil((date.getTime() - offsetMinutes * 60_000) / 1000);
}

function parseAnchor(params: SelectParams, narrow: Narrow): Anchor {
  if (params.use_first_unread_anchor) {
    if (params.anchor !== undefined) throw badRequest("Parameters 'anchor' and 'use_first_unread_anchor' are exclusive");
    return { kind: 'first_unread' };
  }
  const anchor = params.anchor ?? narrow.near;
  if (anchor === undefined) throw badRequest("Missing 'anchor' argument", { var_name: 'anchor' });
  if (typeof anchor === 'number') return { kind: 'id', id: anchor };
  if (anchor === 'newest' || anchor === 'oldest' || anchor === 'first_unread') return { kind: anchor };
  if (anchor === 'date') {
    if (params.anchor_date === undefined) throw badRequest("Missing 'anchor_date' argument", { var_name: 'anchor_date' });
    const timestamp = parseAnchorDate(params.anchor_date);
    if (timestamp === undefined) throw badRequest(`Invalid 'anchor_date': '${params.anchor_date}' is not an ISO 8601 date or date and time`);
    return { kind: 'date', timestamp };
  }
  if (/^-?\d+$/.test(anchor)) return { kind: 'id', id: Number(anchor) };
  throw badRequest(`Invalid anchor '${anchor}'`);
}

/** The response's fields, and `{"messages":[…]}` as UTF-8 JSON (see renderMessagesJson). */
export async function getMessages(deps: GetMessagesDeps, actor: Actor, params: GetMessagesParams) {
  const { ids, result, loaded } = await select(deps, actor, params);
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
  );
  return { result, messagesJson };
}

/** The ids a GET /messages request selects, ascending, with the found_* and anchor fields. */
export async function selectMessageIds(
  deps: GetMessagesDeps,
  actor: Actor,
  params: SelectParams,
): Promise<{ ids: number[]; result: MessageRange }> {
  const { ids, result } = await select(deps, actor, params);
  return { ids, result };
}

async function select(deps: GetMessagesDeps, actor: Actor, params: SelectParams) {
  const terms = await expandWith((params.narrow ?? []).map(normalizeTerm), (id) => conversationOf(deps, actor, id));
  const narrow = await resolveNarrow(deps.directory, actor, terms);
  const readable = narrow.channel ? await canReadChannelHistory(deps, actor, narrow.channel._id) : false;
  const reader = new Reader(deps, actor);

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

async function resolveAnchor(deps: GetMessagesDeps, reader: Reader, anchor: Anchor, narrow: Narrow, readable: boolean, plan: Plan): Promise<number> {
  switch (anchor.kind) {
    case 'newest':
      return LARGER_THAN_MAX_MESSAGE_ID;
    case 'oldest':
      return 0;
    case 'id':
      return anchor.id;
    case 'first_unread': {
      // Unread implies a personal-history row, so the narrow plus is:unread reads there.
      const unread = planNarrow({ ...narrow, conditions: [...narrow.conditions, { kind: 'is', operand: 'unread', negated: false }] }, readable);
      const [first] = await reader.scan(unread, { $gte: 0 }, 1, 1);
      return first?.id ?? LARGER_THAN_MAX_MESSAGE_ID;
    }
    case 'date': {
      // Ids follow commit order and timestamps the clock, so the first message sent on or
      // after the date starts the ids to look from; the anchor is the narrow's first from there.
      const [sent] = await deps.model.messages.find({ timestamp: { $gte: anchor.timestamp } }, { sort: ['timestamp', 1], limit: 1 });
      const [first] = sent ? await reader.scan(plan, { $gte: sent._id }, 1, 1) : [];
      return first?.id ?? LARGER_THAN_MAX_MESSAGE_ID;
    }
  }
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
  if (!channel || (channel.invite_only && !(await deps.directory.isSubscribed(channel._id, actor.user_id)))) return [term('id', messageId)];
  return [term('channel', recipient.channel_id), term('topic', recipient.topic)];
}

/**
 * Reads candidates for one request. What conditions look up besides the message — the
 * readability of channels, the requester's topic policies — is loaded once per request
 * and only when a condition asks for it.
 */
class Reader implements MatchContext {
  private readonly channelAccess = new Map<number, { readable: boolean; public: boolean; webPublic: boolean }>();
  private policies: Map<string, number> | undefined;

  constructor(
    private readonly deps: GetMessagesDeps,
    private readonly actor: Actor,
  ) {}

  topicPolicy(channelId: number, topicLc: string): number {
    return this.policies?.get(`${channelId}:${topicLc}`) ?? 0;
  }

  coveredByChannels(channelId: number, webPublic: boolean): boolean {
    const access = this.channelAccess.get(channelId);
    return !!access && access.readable && access.public && (!webPublic || access.webPublic);
  }

  private readable(channelId: number | null): boolean {
    return channelId !== null && !!this.channelAccess.get(channelId)?.readable;
  }

  /** Loads what `conditions` will look up for these candidates. */
  private async prepare(conditions: Condition[], candidates: Candidate[], visibility: boolean): Promise<void> {
    if (visibility || conditions.some((c) => c.kind === 'channels')) {
      for (const id of channelIdsOf(candidates)) {
        if (this.channelAccess.has(id)) continue;
        const channel = await this.deps.directory.channelById(id);
        this.channelAccess.set(id, {
          readable: await canReadChannelHistory(this.deps, this.actor, id),
          public: !!channel && !channel.invite_only,
          webPublic: !!channel?.is_web_public,
        });
      }
    }
    const usesTopics = conditions.some((c) => c.kind === 'in-home' || (c.kind === 'is' && (c.operand === 'followed' || c.operand === 'muted')));
    if (usesTopics && !this.policies) {
      const rows = await this.deps.model.userTopics.find({ user_id: this.actor.user_id });
      this.policies = new Map(rows.map((r) => [`${r.channel_id}:${r.topic_lc}`, r.visibility_policy]));
    }
  }

  /** Up to `limit` messages of the plan within `range`, nearest the range's start first. */
  async scan(plan: Plan, range: IdRange, direction: 1 | -1, limit: number): Promise<Candidate[]> {
    if (limit <= 0 || plan.source === 'none') return [];
    if (plan.source === 'ids') return this.scanIds(plan.ids, plan.conditions, range, direction, limit);
    const field = plan.source === 'messages' ? '_id' : 'message_id';
    const found: Candidate[] = [];
    let bound: IdRange = range;
    let batch = plan.residual.length === 0 ? limit : Math.min(SCAN_BATCH, Math.max(limit, FIRST_SCAN_BATCH_MIN));
    for (;;) {
      const filter: Filter = { ...plan.filter, [field]: bound };
      const candidates = await this.load(plan, filter, direction, batch);
      if (plan.residual.length === 0) return candidates;
      await this.prepare(plan.residual, candidates, false);
      for (const candidate of candidates) {
        if (!plan.residual.every((c) => matches(c, candidate, this))) continue;
        found.push(candidate);
        if (found.length === limit) return found;
      }
      if (candidates.length < batch) return found;
      const last = candidates.at(-1)!.id;
      bound = direction === 1 ? { ...without(bound, '$gte'), $gt: last } : { ...without(bound, '$lte'), $lt: last };
      batch = SCAN_BATCH;
    }
  }

  private async load(plan: Extract<Plan, { filter: Filter }>, filter: Filter, direction: 1 | -1, limit: number): Promise<Candidate[]> {
    const { model } = this.deps;
    const wants = new Set(plan.residual.map(needs));
    if (plan.source === 'messages') {
      // Ids from memory for a conversation's recent messages, else from the index; then
      // documents by id, recent ones from the cache.
      const ids =
        (await model.conversationIds(plan.filter, filter._id as IdRange, direction, limit)) ??
        ((await model.messages.findIds(filter, { sort: ['_id', direction], limit })) as number[]);
      const messages = await model.messages.getMany(ids);
      const rows = wants.has('row') ? await this.rows(ids) : undefined;
      const candidates: Candidate[] = [];
      for (const message of messages) candidates.push(fromMessage(message, rows && (rows.get(message._id) ?? null)));
      return candidates;
    }
    const rows = await model.userMessages.find({ ...filter, user_id: this.actor.user_id }, { sort: ['message_id', direction], limit });
    if (!wants.has('message')) return rows.map(fromRow);
    const messages = byId(await model.messages.getMany(rows.map((r) => r.message_id)));
    const candidates: Candidate[] = [];
    for (const row of rows) {
      const message = messages.get(row.message_id);
      // A row whose message is gone is a deletion still being projected: not a message.
      if (message) candidates.push(fromMessage(message, row));
    }
    return candidates;
  }

  private async rows(ids: number[]): Promise<Map<number, UserMessageDoc>> {
    const rows = await this.deps.model.userMessages.getMany(ids.map((id) => userMessageId(this.actor.user_id, id)));
    return new Map(rows.map((r) => [r.message_id, r]));
  }

  /** Exact ids: those that exist, that the requester may see and that meet every condition. */
  private async scanIds(ids: number[], conditions: Condition[], range: IdRange, direction: 1 | -1, limit: number): Promise<Candidate[]> {
    const wanted = [...new Set(ids)].filter((id) => inIdRange(id, range)).sort((a, b) => (a - b) * direction);
    if (wanted.length === 0) return [];
    const [messages, rows] = await Promise.all([this.deps.model.messages.getMany(wanted), this.rows(wanted)]);
    const candidates = messages.map((message) => fromMessage(message, rows.get(message._id) ?? null));
    await this.prepare(conditions, candidates, true);
    return candidates
      .filter((c) => (c.row !== null || this.readable(c.channel_id)) && conditions.every((condition) => matches(condition, c, this)))
      .slice(0, limit);
  }
}

function without(range: IdRange, key: keyof IdRange): IdRange {
  const { [key]: _dropped, ...rest } = range;
  return rest;
}

/** `row` as Candidate.row: absent when not read. */
function fromMessage(m: MessageDoc, row?: UserMessageDoc | null): Candidate {
  const candidate: Candidate = { id: m._id, channel_id: m.channel_id, topic_lc: m.topic_lc, dm_key: m.dm_key, sender_id: m.sender_id, message: m };
  if (row !== undefined) candidate.row = row;
  return candidate;
}

// Per-message loops below are plain loops, not flatMap: V8's flatMap costs about ten
// times as much, and these run for every message of every read.

function byId(messages: MessageDoc[]): Map<number, MessageDoc> {
  const map = new Map<number, MessageDoc>();
  for (const m of messages) map.set(m._id, m);
  return map;
}

function channelIdsOf(items: { channel_id: number | null }[]): Set<number> {
  const ids = new Set<number>();
  for (const item of items) if (item.channel_id !== null) ids.add(item.channel_id);
  return ids;
}

const fromRow = (r: UserMessageDoc): Candidate => ({
  id: r.message_id,
  channel_id: r.channel_id,
  topic_lc: r.topic_lc,
  dm_key: r.dm_key,
  sender_id: r.sender_id,
  row: r,
});

type MessageFormat = Parameters<typeof formatMessage>[1];

const avatarUrls = cachedGravatarUrls();

interface Prepared {
  docs: MessageDoc[];
  flagsById: Map<number, string[]>;
  senders: Map<number, { email: string; full_name: string }>;
  channelNames: Map<number, string>;
}

/**
 * What rendering needs: the documents, the requester's flags, and the names of senders
 * and channels as they are now. `loaded` may carry documents and rows a query already
 * read, which are not read again.
 */
async function prepare(deps: GetMessagesDeps, actor: Actor, ids: number[], loaded: Candidate[]): Promise<Prepared> {
  const known = new Map<number, MessageDoc>();
  const flagsById = new Map<number, string[]>();
  const rowsRead = new Set<number>();
  for (const c of loaded) {
    if (c.message) known.set(c.id, c.message);
    if (c.row === undefined) continue;
    rowsRead.add(c.id);
    if (c.row) flagsById.set(c.id, c.row.flags);
  }
  const missing = ids.filter((id) => !known.has(id));
  const rowsMissing = ids.filter((id) => !rowsRead.has(id));
  const [fetched, userMessages] = await Promise.all([
    missing.length ? deps.model.messages.getMany(missing) : Promise.resolve([]),
    rowsMissing.length ? deps.model.userMessages.getMany(rowsMissing.map((id) => userMessageId(actor.user_id, id))) : Promise.resolve([]),
  ]);
  for (const doc of fetched) known.set(doc._id, doc);
  const docs: MessageDoc[] = [];
  for (const id of ids) {
    const doc = known.get(id);
    if (doc) docs.push(doc);
  }
  for (const row of userMessages) flagsById.set(row.message_id, row.flags);
  const senders = new Map((await deps.directory.usersByIds([...new Set(docs.map((d) => d.sender_id))])).map((u) => [u._id, u]));
  const channelNames = new Map<number, string>();
  for (const id of channelIdsOf(docs)) {
    const channel = await deps.directory.channelById(id);
    if (channel) channelNames.set(id, channel.name);
  }
  return { docs, flagsById, senders, channelNames };
}

/** The message as the API shows it, without the requester's flags. */
function present(doc: MessageDoc, prepared: Prepared, format: MessageFormat): MessageObject {
  const sender = prepared.senders.get(doc.sender_id);
  // Names as they are now, not as they were when the message was sent.
  const recipient: MessageView['recipient'] =
    doc.recipient.type === 'channel'
      ? { ...doc.recipient, channel_name: prepared.channelNames.get(doc.recipient.channel_id) ?? doc.recipient.channel_name }
      : doc.recipient;
  return formatMessage(viewOf(doc, sender?.email ?? doc.sender_email, sender?.full_name ?? doc.sender_full_name, recipient), format, avatarUrls);
}

/** The messages as the API shows them, with the requester's flags. */
export async function renderMessages(
  deps: GetMessagesDeps,
  actor: Actor,
  ids: number[],
  format: MessageFormat,
  loaded: Candidate[] = [],
): Promise<MessageObject[]> {
  if (ids.length === 0) return [];
  const prepared = await prepare(deps, actor, ids, loaded);
  return prepared.docs.map((doc) => ({ ...present(doc, prepared, format), flags: [...(prepared.flagsById.get(doc._id) ?? HISTORICAL_FLAGS)] }));
}

interface Fragment {
  /** The message's JSON in UTF-8 without its closing brace, so the flags can follow. */
  open: Uint8Array;
  /** The names it was rendered with: a rename makes it stale. */
  senderEmail: string | undefined;
  senderName: string | undefined;
  channelName: string | undefined;
}

/**
 * Rendered JSON per document version and format. Cached documents are replaced, never
 * changed, when a message changes, so a WeakMap entry lives exactly as long as the
 * version it renders.
 */
const fragments = new WeakMap<MessageDoc, Map<string, Fragment>>();

/**
 * The end of a message's JSON for each flags list: `,"flags":[…]},` in UTF-8. Keyed by
 * the list itself: a user's rows are cached and shared, so their lists come back.
 */
const flagsTails = new WeakMap<readonly string[], Uint8Array>();

function flagsTail(flags: readonly string[]): Uint8Array {
  let tail = flagsTails.get(flags);
  if (!tail) flagsTails.set(flags, (tail = Buffer.from(`,"flags":${JSON.stringify(flags)}},`)));
  return tail;
}

const NOTHING_PREPARED: Prepared = { docs: [], flagsById: new Map(), senders: new Map(), channelNames: new Map() };

/**
 * The same messages as renderMessages, as a JSON array in UTF-8, with `before` and
 * `after` around it. Each message's JSON is rendered and encoded once per version and
 * format; a request only copies those bytes and its flags into one buffer. Bytes,
 * because a response is written as bytes: a page is never built up as a string, nor
 * encoded again. The buffer owns its memory (not a slice of Node's pool), so it can be
 * moved to another thread.
 */
export async function renderMessagesJson(
  deps: GetMessagesDeps,
  actor: Actor,
  ids: number[],
  format: MessageFormat,
  loaded: Candidate[] = [],
  wrap: { before: string; after: string } = { before: '', after: '' },
): Promise<Buffer> {
  const prepared = ids.length === 0 ? NOTHING_PREPARED : await prepare(deps, actor, ids, loaded);
  const formatKey = `${+format.apply_markdown}${+format.client_gravatar}${+format.allow_empty_topic_name}`;
  const head = Buffer.from(`${wrap.before}[`);
  const end = Buffer.from(`]${wrap.after}`);
  const pieces: Uint8Array[] = [head];
  let size = head.length + end.length;
  for (const doc of prepared.docs) {
    const sender = prepared.senders.get(doc.sender_id);
    const channelName = doc.channel_id === null ? undefined : prepared.channelNames.get(doc.channel_id);
    let byFormat = fragments.get(doc);
    if (!byFormat) fragments.set(doc, (byFormat = new Map()));
    let fragment = byFormat.get(formatKey);
    if (!fragment || fragment.senderEmail !== sender?.email || fragment.senderName !== sender?.full_name || fragment.channelName !== channelName) {
      const { flags: _none, ...message } = present(doc, prepared, format);
      const open = Buffer.from(JSON.stringify(message).slice(0, -1));
      fragment = { open, senderEmail: sender?.email, senderName: sender?.full_name, channelName };
      // Only documents the read model shares (frozen, cached) are worth remembering.
      if (Object.isFrozen(doc)) byFormat.set(formatKey, fragment);
    }
    const tail = flagsTail(prepared.flagsById.get(doc._id) ?? HISTORICAL_FLAGS);
    pieces.push(fragment.open, tail);
    size += fragment.open.length + tail.length;
  }
  if (prepared.docs.length > 0) {
    // No comma after the last message.
    pieces[pieces.length - 1] = pieces[pieces.length - 1]!.subarray(0, -1);
    size -= 1;
  }
  pieces.push(end);
  const out = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (const piece of pieces) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

function viewOf(doc: MessageDoc, senderEmail: string, senderFullName: string, recipient: MessageView['recipient']): MessageView {
  return {
    id: doc._id,
    sender_id: doc.sender_id,
    sender_email: senderEmail,
    sender_full_name: senderFullName,
    recipient,
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
