/**
 * Narrows, as GET /messages and POST /messages/flags/narrow take them: the `narrow`
 * parameter parsed into resolved conditions, a plan for reading them from the read
 * models, and the test of one message against a condition.
 *
 * A plan reads one collection in id order — the requester's personal history
 * (`user_messages`) or channel history (`messages`) — with a filter holding every
 * condition the store can check itself (equalities and negations of the narrow keys, the
 * sender, the personal flags and the link fields), the most selective of them on an
 * index. What is left (search, has:reaction, topic states, …) is tested here on the
 * candidates the filter yields (see get-messages.ts).
 */
import { ApiError, EMPTY_TOPIC_DISPLAY_NAME, type Actor, type NarrowTerm } from '@teamchat/contracts';
import type { ChannelDoc, UserDoc } from '@teamchat/directory';
import type { Filter } from '@teamchat/platform';
import { dmKey, RESOLVED_TOPIC_PREFIX, searchableText, type MessageDoc, type UserMessageDoc } from '../projections/messages';

export const badNarrow = (msg: string) => new ApiError('BAD_REQUEST', `Invalid narrow operator: ${msg}`, 400);

type Operand = string | number | (string | number)[];

export interface Term {
  /** Canonical name (legacy names translated). */
  operator: string;
  /** As the client wrote it, for error messages. */
  written: string;
  operand: Operand;
  negated: boolean;
}

/** Legacy operator names, as clients still send them. */
const OPERATOR_ALIASES: Record<string, string> = {
  stream: 'channel',
  streams: 'channels',
  subject: 'topic',
  'pm-with': 'dm',
  'group-pm-with': 'dm-including',
};

/** The operators Zulip lets a narrow negate ("-topic:x"). */
const NEGATABLE = new Set(['channel', 'topic', 'sender', 'is', 'has', 'search', 'dm-including']);

export function normalizeTerm(term: NarrowTerm): Term {
  const [written, operand, negated] = Array.isArray(term) ? [term[0], term[1], false] : [term.operator, term.operand, term.negated ?? false];
  const lower = written.toLowerCase();
  return { operator: OPERATOR_ALIASES[lower] ?? lower, written, operand, negated };
}

export const IS_OPERANDS = ['dm', 'unread', 'starred', 'mentioned', 'alerted', 'resolved', 'followed', 'muted'] as const;
export type IsOperand = (typeof IS_OPERANDS)[number];
const IS_ALIASES: Record<string, IsOperand> = { private: 'dm' };

export const HAS_OPERANDS = ['link', 'image', 'attachment', 'reaction'] as const;
export type HasOperand = (typeof HAS_OPERANDS)[number];

/** Words and phrases as searchableText() writes them: all must occur. */
export interface SearchQuery {
  words: string[];
  phrases: string[];
}

export type Condition =
  | { kind: 'channel'; channel_id: number; negated: boolean }
  /** channels:public (or web-public): every such channel whose history the requester may read. */
  | { kind: 'channels'; web_public: boolean }
  | { kind: 'topic'; topic_lc: string; negated: boolean }
  | { kind: 'dm'; dm_key: string }
  | { kind: 'dm-including'; user_id: number; negated: boolean }
  | { kind: 'sender'; user_id: number; negated: boolean }
  | { kind: 'search'; query: SearchQuery; negated: boolean }
  | { kind: 'is'; operand: IsOperand; negated: boolean }
  | { kind: 'has'; operand: HasOperand; negated: boolean }
  | { kind: 'id'; message_id: number }
  /** in:home: what the combined feed shows, i.e. not in muted topics. */
  | { kind: 'in-home' }
  /** In the requester's personal history: added by the planner, never written by clients. */
  | { kind: 'received' };

export interface Narrow {
  conditions: Condition[];
  /** The channel of the (positive) channel operator: it decides where history is read. */
  channel?: ChannelDoc;
  /** `near`: the anchor to use when the request names none; it filters nothing. */
  near?: number;
}

/** What resolving a narrow needs to know about users and channels (the Directory). */
export interface NarrowDirectory {
  channelById(id: number): Promise<ChannelDoc | undefined>;
  channelByName(name: string): Promise<ChannelDoc | undefined>;
  userById(id: number): Promise<UserDoc | undefined>;
  userByEmail(email: string): Promise<UserDoc | undefined>;
  isSubscribed(channelId: number, userId: number): Promise<boolean>;
}

const isDigits = (value: string) => /^\d+$/.test(value);

function integerOperand(term: Term): number {
  const { operand } = term;
  const value = typeof operand === 'number' ? operand : typeof operand === 'string' && isDigits(operand.trim()) ? Number(operand.trim()) : NaN;
  if (!Number.isSafeInteger(value) || value < 0) throw badNarrow(`'${term.written}' needs a message id`);
  return value;
}

function stringOperand(term: Term): string {
  // A JSON number is what some clients send for a numeric topic or search.
  if (typeof term.operand === 'number') return String(term.operand);
  if (typeof term.operand !== 'string') throw badNarrow(`'${term.written}' needs a string operand`);
  return term.operand;
}

async function resolveChannel(directory: NarrowDirectory, actor: Actor, term: Term): Promise<ChannelDoc> {
  const { operand } = term;
  let channel: ChannelDoc | undefined;
  if (typeof operand === 'number') channel = await directory.channelById(operand);
  else if (typeof operand === 'string') {
    // A name first: a channel may well be called "2024".
    channel = (await directory.channelByName(operand)) ?? (isDigits(operand) ? await directory.channelById(Number(operand)) : undefined);
  } else throw badNarrow(`'${term.written}' needs a channel name or id`);
  // A private channel the requester is not in reads exactly like one that does not exist.
  if (!channel || (channel.invite_only && !(await directory.isSubscribed(channel._id, actor.user_id)))) {
    throw badNarrow(`unknown channel '${String(operand)}'`);
  }
  return channel;
}

async function resolveUser(directory: NarrowDirectory, term: Term, item: string | number): Promise<UserDoc> {
  const text = typeof item === 'string' ? item.trim() : item;
  const user =
    typeof text === 'number' || isDigits(text) ? await directory.userById(Number(text)) : text ? await directory.userByEmail(text) : undefined;
  if (!user) throw badNarrow(`unknown user '${String(item)}' in '${term.written}'`);
  return user;
}

/** A `dm` operand: user ids or emails, as a list or as one comma-separated string. */
function dmItems(term: Term): (string | number)[] {
  const { operand } = term;
  const items = Array.isArray(operand) ? operand : typeof operand === 'number' ? [operand] : operand.split(',').filter((s) => s.trim());
  if (items.length === 0) throw badNarrow(`'${term.written}' needs at least one user`);
  return items;
}

/**
 * Quoted text is a phrase, the rest separate words; a word the normalization splits
 * ("e-mail", "snake_case") is searched as the phrase of its parts.
 */
export function parseSearch(operand: string): SearchQuery {
  const words = new Set<string>();
  const phrases = new Set<string>();
  for (const [, quoted, bare] of operand.matchAll(/"([^"]*)"?|([^\s"]+)/g)) {
    const normalized = searchableText(quoted ?? bare ?? '').trim();
    if (!normalized) continue;
    (normalized.includes(' ') ? phrases : words).add(normalized);
  }
  return { words: [...words], phrases: [...phrases] };
}

/**
 * Replaces `with:<message id>` by the conversation the message is in now (channel and
 * topic, or direct-message group), dropping the narrow's own conversation terms, as Zulip
 * does for message links that must keep working after a move. A message the requester
 * cannot see leaves the rest of the narrow as it is.
 */
export async function expandWith(
  terms: Term[],
  conversationOf: (messageId: number) => Promise<Term[] | undefined>,
): Promise<Term[]> {
  const withTerms = terms.filter((t) => t.operator === 'with');
  if (withTerms.length === 0) return terms;
  if (withTerms.length > 1) throw badNarrow("only one 'with' operator is allowed");
  const term = withTerms[0]!;
  if (term.negated) throw badNarrow(`'${term.written}' cannot be negated`);
  const conversation = await conversationOf(integerOperand(term));
  const rest = terms.filter((t) => t !== term);
  if (!conversation) return rest;
  return [...rest.filter((t) => !['channel', 'topic', 'dm'].includes(t.operator)), ...conversation];
}

/** Parses and resolves a narrow; every unknown operator, operand, user or channel is a BAD_REQUEST. */
export async function resolveNarrow(directory: NarrowDirectory, actor: Actor, terms: Term[]): Promise<Narrow> {
  const narrow: Narrow = { conditions: [] };
  const add = (condition: Condition) => narrow.conditions.push(condition);
  for (const term of terms) {
    const { negated } = term;
    if (negated && !NEGATABLE.has(term.operator)) throw badNarrow(`'${term.written}' cannot be negated`);
    switch (term.operator) {
      case 'channel': {
        const channel = await resolveChannel(directory, actor, term);
        if (!negated) {
          if (narrow.channel && narrow.channel._id !== channel._id) throw badNarrow('only one channel operator is allowed');
          narrow.channel = channel;
        }
        add({ kind: 'channel', channel_id: channel._id, negated });
        break;
      }
      case 'channels': {
        const operand = stringOperand(term).toLowerCase();
        if (operand !== 'public' && operand !== 'web-public') throw badNarrow(`unknown '${term.written}' operand '${operand}'`);
        add({ kind: 'channels', web_public: operand === 'web-public' });
        break;
      }
      case 'topic': {
        const topic = stringOperand(term);
        // The empty topic's display name stands for the empty topic, as when sending.
        add({ kind: 'topic', topic_lc: topic === EMPTY_TOPIC_DISPLAY_NAME ? '' : topic.toLowerCase(), negated });
        break;
      }
      case 'dm': {
        const ids: number[] = [];
        for (const item of dmItems(term)) ids.push((await resolveUser(directory, term, item))._id);
        add({ kind: 'dm', dm_key: dmKey([...ids, actor.user_id]) });
        break;
      }
      case 'dm-including':
      case 'sender': {
        const { operand } = term;
        if (Array.isArray(operand)) throw badNarrow(`'${term.written}' needs one user id or email`);
        const userId = term.operator === 'sender' && operand === 'me' ? actor.user_id : (await resolveUser(directory, term, operand))._id;
        add({ kind: term.operator, user_id: userId, negated });
        break;
      }
      case 'search': {
        const query = parseSearch(stringOperand(term));
        // Only punctuation: nothing to look for, so nothing to filter.
        if (query.words.length || query.phrases.length) add({ kind: 'search', query, negated });
        break;
      }
      case 'is': {
        const raw = stringOperand(term).toLowerCase();
        const operand = IS_ALIASES[raw] ?? raw;
        if (!(IS_OPERANDS as readonly string[]).includes(operand)) throw badNarrow(`unknown '${term.written}' operand '${raw}'`);
        add({ kind: 'is', operand: operand as IsOperand, negated });
        break;
      }
      case 'has': {
        const operand = stringOperand(term).toLowerCase();
        if (!(HAS_OPERANDS as readonly string[]).includes(operand)) throw badNarrow(`unknown '${term.written}' operand '${operand}'`);
        add({ kind: 'has', operand: operand as HasOperand, negated });
        break;
      }
      case 'in': {
        const operand = stringOperand(term).toLowerCase();
        if (operand === 'home') add({ kind: 'in-home' });
        else if (operand !== 'all') throw badNarrow(`unknown '${term.written}' operand '${operand}'`);
        break;
      }
      case 'id':
        add({ kind: 'id', message_id: integerOperand(term) });
        break;
      case 'near':
        narrow.near = integerOperand(term);
        break;
      default:
        throw badNarrow(`unknown operator '${term.written}'`);
    }
  }
  return narrow;
}

/** The facts of one message that conditions test; `message` and `row` are there when a condition needs them. */
export interface Candidate {
  id: number;
  channel_id: number | null;
  topic_lc: string | null;
  dm_key: string | null;
  sender_id: number;
  message?: MessageDoc;
  /** The requester's personal-history row: null when they never received the message, absent when not read. */
  row?: UserMessageDoc | null;
}

export interface MatchContext {
  /** The requester's visibility policy for a topic (0 when they set none). */
  topicPolicy(channelId: number, topicLc: string): number;
  /** Whether channels:public (or web-public) covers the channel for the requester. */
  coveredByChannels(channelId: number, webPublic: boolean): boolean;
}

/** What testing a condition reads besides the narrow keys. */
export function needs(condition: Condition): 'keys' | 'message' | 'row' {
  switch (condition.kind) {
    case 'search':
    case 'has':
      return 'message';
    case 'is':
      return ['unread', 'starred', 'mentioned', 'alerted'].includes(condition.operand) ? 'row' : 'keys';
    case 'received':
      return 'row';
    default:
      return 'keys';
  }
}

/** A message from channel history the requester never received reads as these flags. */
export const HISTORICAL_FLAGS: readonly string[] = ['read', 'historical'];

const IDEOGRAPHIC = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

/**
 * Words match at a word start (so "deploy" finds "deployment", as stemming would); in
 * scripts written without spaces between words, anywhere.
 */
function occurs(text: string, words: string): boolean {
  return IDEOGRAPHIC.test(words) ? text.includes(words) : text.includes(` ${words}`);
}

export function matchesSearch(searchText: string, query: SearchQuery): boolean {
  return query.words.every((w) => occurs(searchText, w)) && query.phrases.every((p) => occurs(searchText, p));
}

const VISIBILITY = { muted: 1, followed: 3 } as const;

function hasTest(operand: HasOperand, message: MessageDoc): boolean {
  switch (operand) {
    case 'link':
      return message.has_link;
    case 'image':
      return message.has_image;
    case 'attachment':
      return message.has_attachment;
    case 'reaction':
      return message.reactions.length > 0;
  }
}

function isTest(operand: IsOperand, c: Candidate, ctx: MatchContext): boolean {
  const flags = c.row?.flags ?? HISTORICAL_FLAGS;
  switch (operand) {
    case 'dm':
      return c.dm_key !== null;
    case 'unread':
      return !flags.includes('read');
    case 'starred':
      return flags.includes('starred');
    case 'mentioned':
      return flags.includes('mentioned') || flags.includes('wildcard_mentioned');
    case 'alerted':
      return flags.includes('has_alert_word');
    case 'resolved':
      return c.topic_lc !== null && c.topic_lc.startsWith(RESOLVED_TOPIC_PREFIX);
    case 'followed':
      return c.channel_id !== null && ctx.topicPolicy(c.channel_id, c.topic_lc!) === VISIBILITY.followed;
    case 'muted':
      return c.channel_id !== null && ctx.topicPolicy(c.channel_id, c.topic_lc!) === VISIBILITY.muted;
  }
}

function testPositive(condition: Condition, c: Candidate, ctx: MatchContext): boolean {
  switch (condition.kind) {
    case 'channel':
      return c.channel_id === condition.channel_id;
    case 'channels':
      return c.channel_id !== null && ctx.coveredByChannels(c.channel_id, condition.web_public);
    case 'topic':
      return c.topic_lc === condition.topic_lc;
    case 'dm':
      return c.dm_key === condition.dm_key;
    case 'dm-including':
      return c.dm_key !== null && c.dm_key.split(',').includes(String(condition.user_id));
    case 'sender':
      return c.sender_id === condition.user_id;
    case 'search':
      return matchesSearch(c.message!.search_text, condition.query);
    case 'has':
      return hasTest(condition.operand, c.message!);
    case 'is':
      return isTest(condition.operand, c, ctx);
    case 'id':
      return c.id === condition.message_id;
    case 'in-home':
      return c.channel_id === null || ctx.topicPolicy(c.channel_id, c.topic_lc!) !== VISIBILITY.muted;
    case 'received':
      return c.row !== null && c.row !== undefined;
  }
}

export function matches(condition: Condition, c: Candidate, ctx: MatchContext): boolean {
  const negated = 'negated' in condition && condition.negated;
  return testPositive(condition, c, ctx) !== negated;
}

export type Plan =
  /** The narrow contradicts itself (e.g. a channel and a direct-message operator): nothing matches. */
  | { source: 'none' }
  /** Exactly these messages, each checked for visibility and against every condition. */
  | { source: 'ids'; ids: number[]; conditions: Condition[] }
  /** `messages` is channel history, `user_messages` the requester's personal history. */
  | { source: 'messages' | 'user_messages'; filter: Filter; residual: Condition[] };

/** Equalities and negations per field, merged: a field cannot equal two values. */
class FilterBuilder {
  private readonly equal = new Map<string, string | number | boolean | null>();
  private readonly unequal = new Map<string, (string | number | boolean | null)[]>();
  contradiction = false;

  eq(field: string, value: string | number | boolean | null): void {
    if (this.equal.has(field) && this.equal.get(field) !== value) this.contradiction = true;
    this.equal.set(field, value);
  }

  ne(field: string, value: string | number | boolean | null): void {
    this.unequal.set(field, [...(this.unequal.get(field) ?? []), value]);
  }

  build(): Filter | undefined {
    const filter: Filter = Object.fromEntries(this.equal);
    for (const [field, values] of this.unequal) {
      if (this.equal.has(field)) {
        if (values.includes(this.equal.get(field)!)) return undefined;
      } else filter[field] = values.length === 1 ? { $ne: values[0]! } : { $nin: values };
    }
    return this.contradiction ? undefined : filter;
  }
}

/** Personal flags: only a personal-history row can have them set. */
const PERSONAL_FLAGS: Partial<Record<IsOperand, 'unread' | 'starred' | 'mentioned'>> = {
  unread: 'unread',
  starred: 'starred',
  mentioned: 'mentioned',
};

/** Conditions only a channel message can meet. */
function requiresChannelMessage(c: Condition): boolean {
  switch (c.kind) {
    case 'channels':
      return true;
    case 'channel':
    case 'topic':
      return !c.negated;
    case 'is':
      return !c.negated && ['resolved', 'followed', 'muted'].includes(c.operand);
    default:
      return false;
  }
}

/** Conditions only a direct message can meet. */
function requiresDirectMessage(c: Condition): boolean {
  switch (c.kind) {
    case 'dm':
      return true;
    case 'dm-including':
      return !c.negated;
    case 'is':
      return !c.negated && c.operand === 'dm';
    default:
      return false;
  }
}

/**
 * Chooses what to read. The messages collection, by its (channel, topic, id) and
 * (conversation, id) indexes, when the narrow names a channel, a direct-message
 * conversation or channels:public — for a channel whose full history the requester may
 * not read, only what they received (a personal-history row must exist), and a
 * conversation's participants received all of it. Personal history otherwise, or when a
 * personal flag must be set (only rows have those), so a narrow without a channel never
 * reaches beyond what the requester received. Rows carry few indexes: each message
 * writes one per recipient.
 */
export function planNarrow(narrow: Narrow, channelHistoryReadable: boolean): Plan {
  const { conditions } = narrow;
  if (conditions.some(requiresChannelMessage) && conditions.some(requiresDirectMessage)) return { source: 'none' };
  const ids = new Set(conditions.flatMap((c) => (c.kind === 'id' ? [c.message_id] : [])));
  if (ids.size > 1) return { source: 'none' };
  if (ids.size === 1) return { source: 'ids', ids: [...ids], conditions };

  const needsPersonalFlag = conditions.some((c) => c.kind === 'is' && !c.negated && needs(c) === 'row');
  const byMessages =
    !needsPersonalFlag && (narrow.channel !== undefined || conditions.some((c) => c.kind === 'dm' || c.kind === 'channels'));
  const source = byMessages ? 'messages' : 'user_messages';

  const filter = new FilterBuilder();
  const residual: Condition[] = byMessages && narrow.channel !== undefined && !channelHistoryReadable ? [{ kind: 'received' }] : [];
  const set = (field: string, value: string | number | boolean | null, negated: boolean) =>
    negated ? filter.ne(field, value) : filter.eq(field, value);
  // Without a dm operator's key to use, direct messages are read from the (channel,
  // topic) index at its null key, where they sit in id order.
  const directMessagesOnly = () => {
    if (conditions.some((o) => o.kind === 'dm')) return;
    if (source === 'user_messages') filter.eq('direct', true);
    else {
      filter.eq('channel_id', null);
      filter.eq('topic_lc', null);
    }
  };
  for (const c of conditions) {
    switch (c.kind) {
      case 'channel':
        set('channel_id', c.channel_id, c.negated);
        break;
      case 'topic':
        set('topic_lc', c.topic_lc, c.negated);
        break;
      case 'dm':
        filter.eq('dm_key', c.dm_key);
        break;
      case 'sender':
        set('sender_id', c.user_id, c.negated);
        break;
      case 'dm-including':
        if (!c.negated) directMessagesOnly();
        residual.push(c);
        break;
      case 'is': {
        const flag = PERSONAL_FLAGS[c.operand];
        if (flag && source === 'user_messages') filter.eq(flag, !c.negated);
        else if (c.operand === 'dm') {
          if (c.negated) filter.ne('channel_id', null);
          else directMessagesOnly();
        } else residual.push(c);
        break;
      }
      case 'has':
        // Both collections carry the link fields; reactions only the message.
        if (c.operand !== 'reaction') filter.eq(`has_${c.operand}`, !c.negated);
        else residual.push(c);
        break;
      default:
        // channels: covered channels depend on the requester, so they are checked here
        // while channel history is read in id order (every public channel at once).
        residual.push(c);
    }
  }
  const built = filter.build();
  if (!built) return { source: 'none' };
  return { source, filter: built, residual };
}
