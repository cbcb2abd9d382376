/**
 * What a feed shows: Zulip's narrows, as the web client's views name them, with the
 * narrow terms GET /messages takes and a test of whether a message belongs (for messages
 * that arrive as events while the feed is open).
 */
import type { ApiMessage } from '@teamchat/contracts';
import { NARROW_OPERATORS, type SearchTerm } from './search';

export type Narrow =
  | { kind: 'all' }
  | { kind: 'channel'; streamId: number }
  | { kind: 'topic'; streamId: number; topic: string }
  /** A direct-message conversation, by the ids of everyone in it but oneself (none: with oneself). */
  | { kind: 'dm'; userIds: number[] }
  | { kind: 'mentions' }
  | { kind: 'starred' }
  /** Anything else a search asks for: the terms as typed (a channel by id once known). */
  | { kind: 'search'; terms: SearchTerm[] };

export interface NarrowTerm {
  operator: string;
  operand: string | number | number[];
  negated?: boolean;
}

export function narrowTerms(narrow: Narrow): NarrowTerm[] {
  switch (narrow.kind) {
    case 'all':
      return [];
    case 'channel':
      return [{ operator: 'channel', operand: narrow.streamId }];
    case 'topic':
      return [{ operator: 'channel', operand: narrow.streamId }, { operator: 'topic', operand: narrow.topic }];
    case 'dm':
      return [{ operator: 'dm', operand: narrow.userIds }];
    case 'mentions':
      return [{ operator: 'is', operand: 'mentioned' }];
    case 'starred':
      return [{ operator: 'is', operand: 'starred' }];
    case 'search':
      return narrow.terms.map((t) => ({ operator: t.operator, operand: t.operand, ...(t.negated ? { negated: true } : {}) }));
  }
}

/**
 * The narrow terms ask for, as the sidebar's views when they are one (a channel given by
 * id, a topic in it, starred, mentions, nothing), else a search narrow.
 */
export function narrowOfTerms(terms: readonly SearchTerm[]): Narrow {
  if (terms.some((t) => t.negated)) return { kind: 'search', terms: [...terms] };
  const by = new Map(terms.map((t) => [t.operator, t.operand]));
  if (by.size !== terms.length) return { kind: 'search', terms: [...terms] };
  const channel = by.get('channel');
  const streamId = channel !== undefined && /^\d+$/.test(channel) ? Number(channel) : undefined;
  if (terms.length === 0) return { kind: 'all' };
  if (terms.length === 1 && streamId) return { kind: 'channel', streamId };
  if (terms.length === 2 && streamId && by.has('topic')) return { kind: 'topic', streamId, topic: by.get('topic')! };
  if (terms.length === 1 && by.get('is') === 'starred') return { kind: 'starred' };
  if (terms.length === 1 && by.get('is') === 'mentioned') return { kind: 'mentions' };
  const dm = by.get('dm');
  if (terms.length === 1 && dm !== undefined && /^\d+(,\d+)*$/.test(dm)) return { kind: 'dm', userIds: dm.split(',').map(Number).sort((a, b) => a - b) };
  return { kind: 'search', terms: [...terms] };
}

/** The other people of a direct message (sorted ids; empty for a message to oneself). */
export function dmPeople(message: Pick<ApiMessage, 'display_recipient'>, self: number): number[] {
  if (!Array.isArray(message.display_recipient)) return [];
  return message.display_recipient.map((u) => u.id).filter((id) => id !== self).sort((a, b) => a - b);
}

export const sameTopic = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export function matches(narrow: Narrow, message: Pick<ApiMessage, 'type' | 'stream_id' | 'subject' | 'display_recipient'>, flags: readonly string[], self: number): boolean {
  switch (narrow.kind) {
    case 'all':
      return true;
    case 'channel':
      return message.type === 'stream' && message.stream_id === narrow.streamId;
    case 'topic':
      return message.type === 'stream' && message.stream_id === narrow.streamId && sameTopic(message.subject, narrow.topic);
    case 'dm':
      return message.type === 'private' && dmPeople(message, self).join(',') === narrow.userIds.join(',');
    case 'mentions':
      return flags.some((f) => f === 'mentioned' || f.endsWith('wildcard_mentioned'));
    case 'starred':
      return flags.includes('starred');
    case 'search':
      // Results are what the server found when asked; they do not grow live (as Zulip's).
      return false;
  }
}

/** A stable key for a narrow (the feed's cache key and the address bar's hash). */
export function narrowKey(narrow: Narrow): string {
  switch (narrow.kind) {
    case 'channel':
      return `channel/${narrow.streamId}`;
    case 'topic':
      return `channel/${narrow.streamId}/topic/${encodeURIComponent(narrow.topic)}`;
    case 'dm':
      return `dm/${narrow.userIds.join(',')}`;
    case 'search':
      return narrow.terms.map((t) => `${t.negated ? '-' : ''}${t.operator}/${encodeURIComponent(t.operand)}`).join('/');
    default:
      return narrow.kind;
  }
}

/**
 * The inverse of narrowKey, also reading Zulip's form of a narrow in an address
 * (`channel/<id>-<name>/topic/<topic>/search/<text>`, `-` before a negated operator);
 * anything unreadable is the combined feed.
 */
export function parseNarrowKey(key: string): Narrow {
  const parts = key.replace(/^#?\/?/, '').split('/');
  const search = searchOfParts(parts);
  if (search) return search;
  if (parts[0] === 'channel' && Number(parts[1]) > 0) {
    const streamId = Number(parts[1]);
    if (parts[2] === 'topic' && parts[3] !== undefined) return { kind: 'topic', streamId, topic: safeDecode(parts.slice(3).join('/')) };
    return { kind: 'channel', streamId };
  }
  if (parts[0] === 'dm' && parts[1] !== undefined) {
    const ids = parts[1].split(',').filter(Boolean).map(Number);
    if (ids.every((id) => Number.isInteger(id) && id > 0)) return { kind: 'dm', userIds: ids.sort((a, b) => a - b) };
  }
  if (parts[0] === 'mentions' || parts[0] === 'starred') return { kind: parts[0] };
  return { kind: 'all' };
}

/** Operator/operand pairs that are not one of the sidebar's views: a search narrow. */
function searchOfParts(parts: string[]): Narrow | undefined {
  if (parts.length < 2 || parts.length % 2 !== 0) return undefined;
  const terms: SearchTerm[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const negated = parts[i]!.startsWith('-');
    const operator = parts[i]!.replace(/^-/, '');
    if (!NARROW_OPERATORS.has(operator)) return undefined;
    let operand = safeDecode(parts[i + 1]!);
    if (operand === '') return undefined;
    // `<id>-<name>`: the name is for people reading the address; the id is the channel.
    if (operator === 'channel' && /^\d+-/.test(operand)) operand = operand.slice(0, operand.indexOf('-'));
    terms.push({ operator, operand, negated });
  }
  const narrow = narrowOfTerms(terms);
  // The sidebar's own views keep the keys they always had.
  return narrow.kind === 'search' ? narrow : undefined;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
