/**
 * What a feed shows: Zulip's narrows, as the web client's views name them, with the
 * narrow terms GET /messages takes and a test of whether a message belongs (for messages
 * that arrive as events while the feed is open).
 */
import type { ApiMessage } from '@teamchat/contracts';

export type Narrow =
  | { kind: 'all' }
  | { kind: 'channel'; streamId: number }
  | { kind: 'topic'; streamId: number; topic: string }
  /** A direct-message conversation, by the ids of everyone in it but oneself (none: with oneself). */
  | { kind: 'dm'; userIds: number[] }
  | { kind: 'mentions' }
  | { kind: 'starred' };

export interface NarrowTerm {
  operator: string;
  operand: string | number | number[];
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
  }
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
    default:
      return narrow.kind;
  }
}

/** The inverse of narrowKey; anything unreadable is the combined feed. */
export function parseNarrowKey(key: string): Narrow {
  const parts = key.replace(/^#?\/?/, '').split('/');
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

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
