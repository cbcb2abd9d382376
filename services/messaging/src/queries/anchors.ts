/**
 * Where a page of GET /messages starts: the anchor parameters parsed, and resolved to a
 * message id within the narrow.
 */
import { badRequest, LARGER_THAN_MAX_MESSAGE_ID, type GetMessagesParams } from '@teamchat/contracts';
import type { MessagesReadModel } from '../projections/messages';
import type { Narrow } from './narrow';
import { planNarrow, type Plan } from './narrow-plan';
import type { Reader } from './reader';

export type Anchor =
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

export function parseAnchor(params: Pick<GetMessagesParams, 'anchor' | 'anchor_date' | 'use_first_unread_anchor'>, narrow: Narrow): Anchor {
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

export async function resolveAnchor(deps: { model: MessagesReadModel }, reader: Reader, anchor: Anchor, narrow: Narrow, readable: boolean, plan: Plan): Promise<number> {
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
