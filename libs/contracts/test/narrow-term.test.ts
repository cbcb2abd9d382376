import { describe, expect, it } from '@jest/globals';
import { normalizeNarrowTerm, type NarrowTerm } from '../src';

describe('normalizeNarrowTerm', () => {
  it.each<[NarrowTerm, string, boolean]>([
    [['stream', 'general'], 'channel', false],
    [['Subject', 'lunch'], 'topic', false],
    [{ operator: 'pm-with', operand: 'a@example.com', negated: true }, 'dm', true],
    [{ operator: 'group-pm-with', operand: [1, 2] }, 'dm-including', false],
    [['streams', 'public'], 'channels', false],
    [['channel', 3], 'channel', false],
    [['SEARCH', 'x'], 'search', false],
  ])('reads %j as %s (negated: %s)', (term, operator, negated) => {
    const normalized = normalizeNarrowTerm(term);
    expect(normalized).toEqual({
      operator,
      written: Array.isArray(term) ? term[0] : term.operator,
      operand: Array.isArray(term) ? term[1] : term.operand,
      negated,
    });
  });
});
