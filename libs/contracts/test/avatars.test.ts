import { describe, expect, it } from '@jest/globals';
import { cachedGravatarUrls, formatMessage, gravatarUrl, type MessageView } from '../src';

describe('gravatar URLs', () => {
  it("are Zulip's: the MD5 of the trimmed, lower-cased email", () => {
    expect(gravatarUrl(' Hamlet@Example.com ')).toBe('https://secure.gravatar.com/avatar/d1617b808b9ca95a23f23bae2288a882?d=identicon&version=1');
  });

  it('are the same remembered as computed, past the bound too', () => {
    const urls = cachedGravatarUrls(2);
    for (const email of ['a@x.org', 'b@x.org', 'c@x.org', 'a@x.org']) expect(urls(email)).toBe(gravatarUrl(email));
  });

  it("come from the renderer's source when a message is formatted", () => {
    const view: MessageView = {
      id: 1,
      sender_id: 4,
      sender_email: 'mark@example.com',
      sender_full_name: 'Mark',
      recipient: { type: 'channel', channel_id: 1, channel_name: 'general', topic: 't' },
      recipient_id: 10,
      content: 'hi',
      rendered_content: '<p>hi</p>',
      client: 'test',
      timestamp: 1_700_000_000,
      is_me_message: false,
    };
    const format = { apply_markdown: true, client_gravatar: false, allow_empty_topic_name: false };
    expect(formatMessage(view, format, (email) => `avatar:${email}`).avatar_url).toBe('avatar:mark@example.com');
    expect(formatMessage(view, format).avatar_url).toBe(gravatarUrl('mark@example.com'));
    expect(formatMessage(view, { ...format, client_gravatar: true }, () => 'unused').avatar_url).toBeNull();
  });
});
