import { describe, expect, it } from '@jest/globals';
import { alertedUserIds, alertWordMatcher } from '../src/domain/alert-words';

describe('alert words', () => {
  const matchers = new Map([
    [2, alertWordMatcher(['kraken', 'c++'])!],
    [3, alertWordMatcher(['release notes'])!],
  ]);
  const alerted = (content: string, topic?: string, sender_id = 1) => alertedUserIds(matchers, { sender_id, recipient_user_ids: [1, 2, 3, 4], content, topic });

  it('matches whole words in any case, in the content or the topic', () => {
    expect(alerted('The KRAKEN wakes.')).toEqual([2]);
    expect(alerted('nothing', 'Release Notes for 2.0')).toEqual([3]);
    expect(alerted('kraken! and release notes')).toEqual([2, 3]);
    expect(alerted('I love C++ templates')).toEqual([2]);
  });
  it('does not match inside a word, and never alerts the sender', () => {
    expect(alerted('krakens and xkraken and kraken_x')).toEqual([]);
    expect(alerted('kraken', undefined, 2)).toEqual([]);
  });
  it('has no matcher for no words', () => {
    expect(alertWordMatcher([])).toBeNull();
  });
});
