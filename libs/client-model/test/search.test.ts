/**
 * The search box's text as narrow terms (operators, quotes, negation, unknown operators
 * kept as text, odd input), and search narrows in the address bar.
 */
import { describe, expect, it } from '@jest/globals';
import { lastToken, narrowKey, narrowOfTerms, narrowTerms, parseNarrowKey, parseSearchQuery, searchText, type Narrow } from '../src';

describe('parseSearchQuery', () => {
  it('reads operators and free text', () => {
    expect(parseSearchQuery('channel:general topic:lunch pizza')).toEqual([
      { operator: 'channel', operand: 'general', negated: false },
      { operator: 'topic', operand: 'lunch', negated: false },
      { operator: 'search', operand: 'pizza', negated: false },
    ]);
    expect(parseSearchQuery('is:starred has:link sender:a@example.com dm:b@example.com,c@example.com is:mentioned is:unread has:image has:attachment')).toEqual([
      { operator: 'is', operand: 'starred', negated: false },
      { operator: 'has', operand: 'link', negated: false },
      { operator: 'sender', operand: 'a@example.com', negated: false },
      { operator: 'dm', operand: 'b@example.com,c@example.com', negated: false },
      { operator: 'is', operand: 'mentioned', negated: false },
      { operator: 'is', operand: 'unread', negated: false },
      { operator: 'has', operand: 'image', negated: false },
      { operator: 'has', operand: 'attachment', negated: false },
    ]);
  });

  it('translates the older operator names and ignores their case', () => {
    expect(parseSearchQuery('Stream:x subject:y from:me pm-with:1')).toEqual([
      { operator: 'channel', operand: 'x', negated: false },
      { operator: 'topic', operand: 'y', negated: false },
      { operator: 'sender', operand: 'me', negated: false },
      { operator: 'dm', operand: '1', negated: false },
    ]);
  });

  it('keeps quoted operands and phrases whole', () => {
    expect(parseSearchQuery('topic:"team lunch" "exact words" more')).toEqual([
      { operator: 'topic', operand: 'team lunch', negated: false },
      { operator: 'search', operand: '"exact words" more', negated: false },
    ]);
    // An unclosed quote runs to the end.
    expect(parseSearchQuery('topic:"still typing')).toEqual([{ operator: 'topic', operand: 'still typing', negated: false }]);
    expect(parseSearchQuery('"half a phrase')).toEqual([{ operator: 'search', operand: '"half a phrase"', negated: false }]);
  });

  it('negates operators with a leading minus; a minus before a word is text', () => {
    expect(parseSearchQuery('-topic:spam -is:starred -word')).toEqual([
      { operator: 'topic', operand: 'spam', negated: true },
      { operator: 'is', operand: 'starred', negated: true },
      { operator: 'search', operand: '-word', negated: false },
    ]);
    // dm cannot be negated (the server refuses it): it stays text.
    expect(parseSearchQuery('-dm:1')).toEqual([{ operator: 'search', operand: '-dm:1', negated: false }]);
  });

  it('keeps an unknown operator or an empty operand as text', () => {
    expect(parseSearchQuery('https://example.com/x foo:bar channel:')).toEqual([{ operator: 'search', operand: 'https://example.com/x foo:bar channel:', negated: false }]);
  });

  it('never throws, whatever it is given', () => {
    for (const odd of ['', '   ', '"', '""', '-', '-:', ':', '::::', 'a:"', '\u0000', '🐙:🐙', '-channel:"', 'x'.repeat(10_000), undefined as unknown as string, null as unknown as string]) {
      expect(() => parseSearchQuery(odd)).not.toThrow();
      expect(() => lastToken(String(odd ?? ''))).not.toThrow();
    }
    expect(parseSearchQuery('   ')).toEqual([]);
    expect(parseSearchQuery('""')).toEqual([]);
  });

  it('writes terms back as text that reads the same', () => {
    for (const text of ['channel:general topic:"team lunch" pizza', '-is:starred has:link "exact words"', 'sender:me']) {
      expect(parseSearchQuery(searchText(parseSearchQuery(text)))).toEqual(parseSearchQuery(text));
    }
    expect(searchText(parseSearchQuery('pizza topic:"a b"'))).toBe('topic:"a b" pizza');
  });
});

describe('lastToken', () => {
  it('finds the operator and partial operand being typed', () => {
    expect(lastToken('pizza chan')).toEqual({ start: 6, negated: false, operator: undefined, partial: 'chan' });
    expect(lastToken('pizza -stream:gen')).toEqual({ start: 6, negated: true, operator: 'channel', partial: 'gen' });
    expect(lastToken('topic:"team lu')).toEqual({ start: 0, negated: false, operator: 'topic', partial: 'team lu' });
    expect(lastToken('pizza ')).toEqual({ start: 6, negated: false, operator: undefined, partial: '' });
  });
});

describe('search narrows', () => {
  it('are the sidebar views when they are one', () => {
    expect(narrowOfTerms(parseSearchQuery('channel:7'))).toEqual({ kind: 'channel', streamId: 7 });
    expect(narrowOfTerms(parseSearchQuery('channel:7 topic:"a b"'))).toEqual({ kind: 'topic', streamId: 7, topic: 'a b' });
    expect(narrowOfTerms(parseSearchQuery('is:starred'))).toEqual({ kind: 'starred' });
    expect(narrowOfTerms(parseSearchQuery('is:mentioned'))).toEqual({ kind: 'mentions' });
    expect(narrowOfTerms(parseSearchQuery(''))).toEqual({ kind: 'all' });
    expect(narrowOfTerms(parseSearchQuery('channel:general')).kind).toBe('search');
    expect(narrowOfTerms(parseSearchQuery('-is:starred')).kind).toBe('search');
    expect(narrowOfTerms(parseSearchQuery('channel:7 pizza')).kind).toBe('search');
  });

  it('give the server their terms, negation included', () => {
    const narrow = narrowOfTerms(parseSearchQuery('channel:7 -topic:spam pizza'));
    expect(narrowTerms(narrow)).toEqual([
      { operator: 'channel', operand: '7' },
      { operator: 'topic', operand: 'spam', negated: true },
      { operator: 'search', operand: 'pizza' },
    ]);
  });

  it('round-trip through the address bar, in Zulip’s form too', () => {
    const narrows: Narrow[] = [
      narrowOfTerms(parseSearchQuery('channel:7 topic:"a/b c" "x y" 100%')),
      narrowOfTerms(parseSearchQuery('-is:starred has:link sender:a@example.com')),
      { kind: 'topic', streamId: 3, topic: 'lunch' },
      { kind: 'dm', userIds: [4, 9] },
      { kind: 'dm', userIds: [] },
      { kind: 'mentions' },
    ];
    for (const narrow of narrows) expect(parseNarrowKey(narrowKey(narrow))).toEqual(narrow);
    expect(parseNarrowKey('channel/7-general/topic/lunch/search/pizza')).toEqual({
      kind: 'search',
      terms: [
        { operator: 'channel', operand: '7', negated: false },
        { operator: 'topic', operand: 'lunch', negated: false },
        { operator: 'search', operand: 'pizza', negated: false },
      ],
    });
    // The old keys mean what they meant.
    expect(parseNarrowKey('channel/7/topic/lunch')).toEqual({ kind: 'topic', streamId: 7, topic: 'lunch' });
    expect(parseNarrowKey('channel/7')).toEqual({ kind: 'channel', streamId: 7 });
    expect(parseNarrowKey('starred')).toEqual({ kind: 'starred' });
    // Odd addresses are the combined feed, never an exception.
    for (const odd of ['search', 'search/%E0%A4%A', '%%/x', 'a b/c', '-/x', 'channel/', '////']) expect(() => parseNarrowKey(odd)).not.toThrow();
    expect(parseNarrowKey('a b/c')).toEqual({ kind: 'all' });
  });
});
