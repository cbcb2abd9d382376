/**
 * Which recipients a message alerts: those with an alert word in its content or topic, as
 * a whole word and in any case (Zulip's `has_alert_word` flag). The sender is never alerted
 * by their own message. Pure: the words come from messaging's projection of accounts' facts.
 */

/** Letters, digits and the underscore make up words; anything else (or the text's edge) bounds one. */
const escape = (word: string) => word.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

export function alertWordMatcher(words: readonly string[]): RegExp | null {
  if (words.length === 0) return null;
  // Longer words first, so that an alternation prefers "release notes" over "release".
  const alternatives = [...words].sort((a, b) => b.length - a.length).map(escape);
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${alternatives.join('|')})(?![\\p{L}\\p{N}_])`, 'iu');
}

export function alertedUserIds(
  matchers: ReadonlyMap<number, RegExp>,
  message: { sender_id: number; recipient_user_ids: readonly number[]; content: string; topic: string | undefined },
): number[] {
  const alerted: number[] = [];
  for (const userId of message.recipient_user_ids) {
    if (userId === message.sender_id) continue;
    const matcher = matchers.get(userId);
    if (!matcher) continue;
    if (matcher.test(message.content) || (message.topic !== undefined && matcher.test(message.topic))) alerted.push(userId);
  }
  return alerted;
}
