import { describe, expect, it } from '@jest/globals';
import { revokedByMove } from '../src/domain/moves';

describe('revokedByMove', () => {
  it('takes moved messages from holders not subscribed to a private destination, once each', () => {
    expect(revokedByMove({ invite_only: true }, [4, 5, 6, 5], [4, 7])).toStrictEqual([5, 6]);
  });

  it('takes nothing from anyone when the destination is public', () => {
    expect(revokedByMove({ invite_only: false }, [4, 5, 6], [])).toStrictEqual([]);
  });
});
