/**
 * The test of one message against a condition, for what a plan's filter leaves over.
 */
import { RESOLVED_TOPIC_PREFIX } from '../projections/text-features';
import type { MessageDoc } from '../projections/message-docs';
import type { Condition, HasOperand, IsOperand, SearchQuery } from './narrow';

/** The requester's flags on a message they hold: a personal-history row, or flags derived without one. */
export interface PersonalFlags {
  readonly flags: readonly string[];
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
  row?: PersonalFlags | null;
  /**
   * Listed by its id alone, for the tester thread (reader.ts): its keys are not known yet
   * (they read as null), and the reader replaces it with the tested message's keys, or
   * its document, before any condition or caller reads them.
   */
  listed?: true;
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

/**
 * A word matches at a word start (so "deploy" finds "deployment", as stemming would), a
 * phrase as consecutive words, its last one a word start: as the text index answers.
 */
const occurs = (text: string, words: string) => text.includes(` ${words}`);

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
