/**
 * Pure rules of the message endpoints of issue 17: a message's versions (Zulip's
 * message_history), who a read receipt names, and search terms highlighted in a match.
 */
import { displayTopic, type EditHistoryEntry, type MessageHistoryEntry } from '@teamchat/contracts';

export interface CurrentMessage {
  sender_id: number;
  timestamp: number;
  content: string;
  rendered_content: string;
  /** Null for a direct message. */
  channel_id: number | null;
  topic: string | null;
  /** Newest first, as the message keeps it. */
  edit_history: readonly EditHistoryEntry[];
}

/**
 * Every version, oldest first: the message as sent (by its sender), then one entry per
 * edit or move with what the message was after it and the `prev_*` of what it replaced,
 * as Zulip rebuilds them by walking the edits back from the current message. Topics are
 * shown as clients see them (the empty topic by its display name unless they take it).
 */
export function messageHistory(message: CurrentMessage, allowEmptyTopicName: boolean): MessageHistoryEntry[] {
  const topic = (name: string) => displayTopic(name, allowEmptyTopicName);
  let content = message.content;
  let rendered = message.rendered_content;
  let topicName = message.topic ?? '';
  let channelId = message.channel_id;
  const entries: MessageHistoryEntry[] = [];
  for (const edit of message.edit_history) {
    const entry: MessageHistoryEntry = { topic: topic(topicName), content, rendered_content: rendered, timestamp: edit.timestamp, user_id: edit.user_id };
    if (edit.prev_topic !== undefined) {
      topicName = edit.prev_topic;
      entry.prev_topic = topic(topicName);
    }
    if (edit.prev_content !== undefined) {
      content = edit.prev_content;
      rendered = edit.prev_rendered_content ?? rendered;
      entry.prev_content = content;
      entry.prev_rendered_content = rendered;
    }
    if (edit.prev_stream !== undefined) {
      entry.prev_stream = edit.prev_stream;
      entry.stream = edit.stream ?? channelId ?? edit.prev_stream;
      channelId = edit.prev_stream;
    }
    entries.push(entry);
  }
  const original: MessageHistoryEntry = { topic: topic(topicName), content, rendered_content: rendered, timestamp: message.timestamp, user_id: message.sender_id };
  if (channelId !== null) original.stream = channelId;
  entries.push(original);
  return entries.reverse();
}

export interface Reader {
  user_id: number;
  read: boolean;
  is_active: boolean;
  /** The reader's send_read_receipts setting. */
  sends_read_receipts: boolean;
}

/**
 * Who a read receipt names: the active users who read the message and let others know,
 * never its sender (who needs no receipt for their own message), as Zulip answers.
 */
export function readReceiptUserIds(senderId: number, readers: readonly Reader[]): number[] {
  return readers
    .filter((r) => r.read && r.is_active && r.sends_read_receipts && r.user_id !== senderId)
    .map((r) => r.user_id)
    .sort((a, b) => a - b);
}

export interface SearchTerms {
  words: readonly string[];
  phrases: readonly string[];
}

const WORD_CHAR = '[\\p{L}\\p{N}\\p{M}]';
/** Scripts written without spaces: each of their characters is a word by itself (as search reads them). */
const IDEOGRAPH = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;
/** A character that continues the word before it: a word character, not an ideograph. */
const JOINING = `(?:(?!${IDEOGRAPH.source})${WORD_CHAR})`;

/** A tag or a character reference: never highlighted inside. */
const MARKUP = /(<[^>]*>|&[#a-zA-Z0-9]+;)/;

/**
 * One pattern for every term, matching where search finds it: a word from a word start
 * to the end of the word it starts, a phrase its words in order. An ideograph is a word
 * of its own, so it needs no boundary before or after it, nor anything between it and
 * the next word of a phrase.
 */
function termsPattern(terms: SearchTerms): RegExp | null {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const ideographic = (char: string | undefined) => char !== undefined && IDEOGRAPH.test(char);
  // By code point: an ideograph may lie outside the Basic Multilingual Plane.
  const first = (word: string) => [...word][0];
  const last = (word: string) => [...word].at(-1);
  const alternative = (words: string[]) => {
    let pattern = ideographic(first(words[0]!)) ? '' : `(?<!${JOINING})`;
    words.forEach((word, i) => {
      // Neither a tag nor a character reference may lie between a phrase's words ('<' and
      // '&' of the text itself are always written as references).
      if (i > 0) pattern += `(?:(?!${WORD_CHAR}|[<&]).)${ideographic(last(words[i - 1]!)) || ideographic(first(word)) ? '*' : '+'}`;
      pattern += escape(word);
    });
    return ideographic(last(words.at(-1)!)) ? pattern : `${pattern}${JOINING}*`;
  };
  const alternatives = [...terms.phrases.map((p) => p.trim().split(' ')), ...terms.words.map((w) => [w.trim()])]
    .map((words) => words.filter(Boolean))
    .filter((words) => words.length > 0)
    .map(alternative);
  if (alternatives.length === 0) return null;
  // A tag or a character reference is matched first, whole, and kept as it is (MARKUP).
  return new RegExp(`${MARKUP.source}|(?:${alternatives.join('|')})`, 'giu');
}

/**
 * The pattern of each terms object, built once: a page highlights a hundred messages
 * with the same terms, and building the pattern cost more than applying it. (A global
 * pattern is safe to share: replace() starts from the beginning and resets it.)
 */
const patterns = new WeakMap<SearchTerms, RegExp | null>();
function patternOf(terms: SearchTerms): RegExp | null {
  let pattern = patterns.get(terms);
  if (pattern === undefined) {
    pattern = termsPattern(terms);
    patterns.set(terms, pattern);
  }
  return pattern;
}

const HIGHLIGHT = (text: string, markup: string | undefined) => (markup === undefined ? `<span class="highlight">${text}</span>` : text);

/**
 * Rendered HTML with the search terms highlighted, only in its text: tags and character
 * references are never split. One pass of one pattern, which takes each tag or reference
 * whole where it starts: splitting the HTML first and testing each piece cost half as much
 * again, on every message of a search's page.
 */
export function highlightHtml(html: string, terms: SearchTerms): string {
  const pattern = patternOf(terms);
  return pattern ? html.replace(pattern, HIGHLIGHT) : html;
}

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** A topic, escaped as HTML, with the search terms highlighted. */
export function highlightTopic(topic: string, terms: SearchTerms): string {
  return highlightHtml(escapeHtml(topic), terms);
}
