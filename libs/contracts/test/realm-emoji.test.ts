import { z } from 'zod';
import { ApiRealmEmoji, apiRealmEmojiSet } from '../src/feature-events';
import type { StoredRealmEmoji } from '../src/upload-facts';

const stored = (id: string, name: string, deactivated: boolean): StoredRealmEmoji => ({
  id,
  name,
  source_url: `/user_avatars/2/emoji/images/${name}.png`,
  deactivated,
  author_id: 7,
  blob_key: `emoji/${name}`,
  content_type: 'image/png',
});

describe('apiRealmEmojiSet (the realm_emoji dictionary clients see)', () => {
  it('keys each emoji by its id, deactivated ones too, without the storage details', () => {
    const set = apiRealmEmojiSet([stored('1', 'party', true), stored('2', 'party', false)]);
    expect(set).toEqual({
      '1': { id: '1', name: 'party', source_url: '/user_avatars/2/emoji/images/party.png', still_url: null, deactivated: true, author_id: 7 },
      '2': { id: '2', name: 'party', source_url: '/user_avatars/2/emoji/images/party.png', still_url: null, deactivated: false, author_id: 7 },
    });
    // The client schema is strict: a storage field left in would fail here.
    expect(z.record(z.string(), ApiRealmEmoji).safeParse(set).success).toBe(true);
  });

  it('gives an empty dictionary for an organization without custom emoji', () => {
    expect(apiRealmEmojiSet([])).toEqual({});
  });
});
