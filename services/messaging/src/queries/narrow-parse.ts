/**
 * The `narrow` parameter parsed and resolved: legacy operator names translated, users
 * and channels looked up, every unknown operator, operand, user or channel refused.
 */
import { ApiError, EMPTY_TOPIC_DISPLAY_NAME, normalizeNarrowTerm, type Actor, type NarrowTerm } from '@teamchat/contracts';
import type { ChannelDoc, UserDoc } from '@teamchat/directory';
import type { SearchTerms } from '../domain/message-history';
import { dmKey } from '../projections/message-docs';
import { searchableText } from '../projections/text-features';
import { channelAccessOf } from './access';
import { HAS_OPERANDS, IS_OPERANDS, type Condition, type HasOperand, type IsOperand, type Narrow, type SearchQuery, type Term } from './narrow';

export const badNarrow = (msg: string) => new ApiError('BAD_REQUEST', `Invalid narrow operator: ${msg}`, 400);

/** The operators Zulip lets a narrow negate ("-topic:x"). */
const NEGATABLE = new Set(['channel', 'topic', 'sender', 'is', 'has', 'search', 'dm-including']);

export const normalizeTerm = (term: NarrowTerm): Term => normalizeNarrowTerm(term);

const IS_ALIASES: Record<string, IsOperand> = { private: 'dm' };

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
  if (!channel || !(await channelAccessOf(directory, actor, channel)).seeMetadata) throw badNarrow(`unknown channel '${String(operand)}'`);
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
 * The longest search operand, and the most words a narrow's searches may hold together
 * (a phrase's words each count): every word is a term of the text index's query and a
 * test of each candidate, so beyond these a search is refused rather than slow.
 */
export const MAX_SEARCH_LENGTH = 1000;
export const MAX_SEARCH_WORDS = 50;

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

/** The narrow's positive search terms, which the matches highlight. */
export function searchTermsOf(narrow: NarrowTerm[]): SearchTerms {
  const words: string[] = [];
  const phrases: string[] = [];
  for (const term of narrow.map(normalizeTerm)) {
    if (term.operator !== 'search' || term.negated || typeof term.operand !== 'string') continue;
    const query = parseSearch(term.operand);
    words.push(...query.words);
    phrases.push(...query.phrases);
  }
  return { words, phrases };
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
  let searchWords = 0;
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
        const operand = stringOperand(term);
        if (operand.length > MAX_SEARCH_LENGTH) throw badNarrow(`search text too long (at most ${MAX_SEARCH_LENGTH} characters)`);
        const query = parseSearch(operand);
        searchWords += query.words.length + query.phrases.reduce((n, phrase) => n + phrase.split(' ').length, 0);
        if (searchWords > MAX_SEARCH_WORDS) throw badNarrow(`too many search words (at most ${MAX_SEARCH_WORDS})`);
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
