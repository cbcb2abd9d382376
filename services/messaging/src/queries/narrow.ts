/**
 * Narrows, as GET /messages and POST /messages/flags/narrow take them: the `narrow`
 * parameter is parsed into resolved conditions (narrow-parse.ts), planned as a read of
 * one collection (narrow-plan.ts), and what the plan's filter cannot check is tested on
 * each candidate (narrow-match.ts).
 */
import type { ChannelDoc } from '@teamchat/directory';

type Operand = string | number | (string | number)[];

export interface Term {
  /** Canonical name (legacy names translated). */
  operator: string;
  /** As the client wrote it, for error messages. */
  written: string;
  operand: Operand;
  negated: boolean;
}

export const IS_OPERANDS = ['dm', 'unread', 'starred', 'mentioned', 'alerted', 'resolved', 'followed', 'muted'] as const;
export type IsOperand = (typeof IS_OPERANDS)[number];

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
