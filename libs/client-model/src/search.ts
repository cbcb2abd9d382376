/**
 * What a person types in the search box, as narrow terms: Zulip's search operators
 * (`channel:`, `topic:`, `sender:`, `dm:`, `is:`, `has:`, …, with `-` to negate one and
 * quotes around an operand with spaces), and the rest as free text (one `search` term,
 * quoted phrases kept quoted so the server searches them as phrases). An operator this
 * client does not know is text, as Zulip's search box treats it; no input throws.
 *
 * The inverse, searchText, writes terms back as the text a person would have typed, so a
 * narrow opened from an address shows its query in the box.
 */

export interface SearchTerm {
  operator: string;
  operand: string;
  negated: boolean;
}

/** The operators a person may type, with the older names Zulip still accepts. */
const OPERATORS: Record<string, string> = {
  channel: 'channel',
  stream: 'channel',
  topic: 'topic',
  subject: 'topic',
  sender: 'sender',
  from: 'sender',
  dm: 'dm',
  'pm-with': 'dm',
  'dm-including': 'dm-including',
  is: 'is',
  has: 'has',
  near: 'near',
  id: 'id',
  in: 'in',
  channels: 'channels',
};

/** The operators a narrow in an address may hold. */
export const NARROW_OPERATORS = new Set([...Object.values(OPERATORS), 'search']);

/** What the suggestions offer first, in this order. */
export const SEARCH_OPERATORS = ['channel:', 'topic:', 'sender:', 'dm:', 'is:starred', 'is:mentioned', 'is:unread', 'is:dm', 'has:link', 'has:image', 'has:attachment'];

const NEGATABLE = new Set(['channel', 'topic', 'sender', 'is', 'has', 'dm-including']);

/** One piece of the text: an operator with its operand, a quoted phrase, or a word. */
const TOKEN = /(-?)([A-Za-z][A-Za-z-]*):(?:"([^"]*)"?|(\S*))|"([^"]*)"?|(\S+)/g;

export function parseSearchQuery(text: string): SearchTerm[] {
  const terms: SearchTerm[] = [];
  const words: string[] = [];
  for (const match of String(text ?? '').matchAll(TOKEN)) {
    const [whole, minus, name, quoted, bare, phrase, word] = match;
    if (name !== undefined) {
      const operator = OPERATORS[name.toLowerCase()];
      const operand = (quoted ?? bare ?? '').trim();
      const negated = minus === '-';
      // Unknown, empty or not negatable: what was typed is searched as text.
      if (operator && operand !== '' && (!negated || NEGATABLE.has(operator))) {
        terms.push({ operator, operand, negated });
        continue;
      }
      words.push(whole);
      continue;
    }
    if (phrase !== undefined) {
      if (phrase.trim() !== '') words.push(`"${phrase.trim()}"`);
      continue;
    }
    if (word !== undefined) words.push(word);
  }
  if (words.length) terms.push({ operator: 'search', operand: words.join(' '), negated: false });
  return terms;
}

/** Terms as search-box text: the operators first, then the free text. */
export function searchText(terms: readonly SearchTerm[]): string {
  const parts = terms.filter((t) => t.operator !== 'search').map((t) => `${t.negated ? '-' : ''}${t.operator}:${quoteIfNeeded(t.operand)}`);
  for (const t of terms) if (t.operator === 'search') parts.push(t.operand);
  return parts.join(' ');
}

const quoteIfNeeded = (operand: string) => (/[\s"]/.test(operand) ? `"${operand.replace(/"/g, '')}"` : operand);

/**
 * The token the caret is in (the text after the last space, outside quotes), which the
 * suggestions complete: its operator (if it has one yet) and what follows the colon.
 */
export function lastToken(text: string): { start: number; negated: boolean; operator: string | undefined; partial: string } {
  let start = 0;
  let inQuote = false;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '"') inQuote = !inQuote;
    else if (!inQuote && /\s/.test(text[i]!)) start = i + 1;
  }
  const token = text.slice(start);
  const m = /^(-?)([A-Za-z][A-Za-z-]*):"?(.*)$/.exec(token);
  if (!m) return { start, negated: false, operator: undefined, partial: token };
  return { start, negated: m[1] === '-', operator: OPERATORS[m[2]!.toLowerCase()] ?? m[2]!.toLowerCase(), partial: m[3]!.replace(/"$/, '') };
}
