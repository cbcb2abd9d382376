/**
 * Alert words: words whose mention in a message the user wants to hear of. Kept trimmed
 * and lower-cased (matching is case-insensitive, so two cases of one word are one word),
 * sorted; each change records the whole list, as the `alert_words` event carries it.
 */
import { badRequest, type Fact } from '@teamchat/contracts';
import { codePointLength } from '@teamchat/policies';
import { hasNullByte, type UserDataState } from './user-data';

/** Zulip's AlertWord column is 100 characters. */
export const MAX_ALERT_WORD_LENGTH = 100;
/** A bound on how much each message's matching costs for each recipient. */
export const MAX_ALERT_WORDS = 1000;

function normalize(words: readonly string[]): string[] {
  return words.map((word) => {
    const trimmed = word.trim();
    if (trimmed.length === 0) throw badRequest('Alert words cannot be empty');
    if (hasNullByte(trimmed)) throw badRequest('Alert words must not contain null bytes');
    if (codePointLength(trimmed) > MAX_ALERT_WORD_LENGTH) throw badRequest(`Alert words are at most ${MAX_ALERT_WORD_LENGTH} characters long`);
    return trimmed.toLowerCase();
  });
}

const changed = (user_id: number, before: readonly string[], after: string[]): Fact[] =>
  after.length === before.length && after.every((w, i) => w === before[i]) ? [] : [{ type: 'AlertWordsChanged', user_id, alert_words: after }];

export function decideAddAlertWords(state: UserDataState, cmd: { user_id: number; alert_words: readonly string[] }): { facts: Fact[]; alert_words: string[] } {
  const words = [...new Set([...state.alertWords, ...normalize(cmd.alert_words)])].sort();
  if (words.length > MAX_ALERT_WORDS) throw badRequest(`At most ${MAX_ALERT_WORDS} alert words`);
  return { facts: changed(cmd.user_id, state.alertWords, words), alert_words: words };
}

/** Removing a word the user does not have is not an error (as in Zulip). */
export function decideRemoveAlertWords(state: UserDataState, cmd: { user_id: number; alert_words: readonly string[] }): { facts: Fact[]; alert_words: string[] } {
  const gone = new Set(normalize(cmd.alert_words));
  const words = state.alertWords.filter((w) => !gone.has(w));
  return { facts: changed(cmd.user_id, state.alertWords, words), alert_words: words };
}
