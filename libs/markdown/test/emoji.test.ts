import { describe, expect, it } from '@jest/globals';
import {
  SERVICE_EXTRA_EMOJI,
  emojiByCode,
  emojiByName,
  emojiNamesForCode,
  isValidUnicodeEmoji,
  normalizeEmojiCode,
  renderMessage,
  serviceExtraEmojiByName,
} from '@teamchat/markdown';
import { makeContext } from './context';

const ctx = makeContext();

describe('emoji catalogue', () => {
  it('looks up emoji by canonical name', () => {
    expect(emojiByName('smile')).toEqual({ name: 'smile', code: '1f604' });
    expect(emojiByName('tada')).toEqual({ name: 'tada', code: '1f389' });
    expect(emojiByName('octopus')).toEqual({ name: 'octopus', code: '1f419' });
    expect(emojiByName('+1')).toEqual({ name: '+1', code: '1f44d' });
  });

  it('looks up aliases, returning the canonical name', () => {
    expect(emojiByName('thumbsup')).toEqual({ name: '+1', code: '1f44d' });
    expect(emojiByName('thumbs_up')).toEqual({ name: '+1', code: '1f44d' });
    expect(emojiByName('thumbs_down')).toEqual({ name: '-1', code: '1f44e' });
  });

  it('writes codes without FE0F variation selectors, as Zulip does', () => {
    expect(emojiByName('heart')).toEqual({ name: 'heart', code: '2764' });
    expect(emojiByName('hash')).toEqual({ name: 'hash', code: '0023-20e3' });
    expect(emojiByName('woman-shrugging')?.code).toBe('1f937-200d-2640');
  });

  it('looks up by code under the canonical name, tolerating FE0F and upper case', () => {
    expect(emojiByCode('1f44d')).toEqual({ name: '+1', code: '1f44d' });
    expect(emojiByCode('2764')?.name).toBe('heart');
    expect(emojiByCode('2764-FE0F')?.name).toBe('heart');
    expect(emojiByCode('1F389')?.name).toBe('tada');
    expect(emojiByCode('ffffff')).toBeUndefined();
  });

  it('lists every name for a code, canonical first', () => {
    expect(emojiNamesForCode('1f44d')).toEqual(['+1', 'thumbsup', 'thumbs_up']);
    expect(emojiNamesForCode('nope')).toEqual([]);
  });

  it('excludes skin-tone modifiers and unknown names', () => {
    expect(emojiByName('skin-tone-2')).toBeUndefined();
    expect(emojiByName('not_an_emoji')).toBeUndefined();
    expect(emojiByName('')).toBeUndefined();
    // Object prototype names must not leak through the lookup.
    expect(emojiByName('constructor')).toBeUndefined();
    expect(emojiByName('__proto__')).toBeUndefined();
  });

  it('validates name and code pairs exactly', () => {
    expect(isValidUnicodeEmoji('+1', '1f44d')).toBe(true);
    expect(isValidUnicodeEmoji('thumbs_up', '1f44d')).toBe(true);
    expect(isValidUnicodeEmoji('thumbsup', '1f44d')).toBe(true);
    expect(isValidUnicodeEmoji('heart', '2764')).toBe(true);
    expect(isValidUnicodeEmoji('smile', '1f604')).toBe(true);
    expect(isValidUnicodeEmoji('smile', '1f44d')).toBe(false);
    expect(isValidUnicodeEmoji('heart', '2764-fe0f')).toBe(false);
    expect(isValidUnicodeEmoji('+1', '1F44D')).toBe(false);
    expect(isValidUnicodeEmoji('nope', '1f44d')).toBe(false);
    expect(isValidUnicodeEmoji('zulip', 'zulip')).toBe(false);
  });

  it('every name maps to a code that maps back to a name of the same emoji', () => {
    for (const name of ['smile', 'heart', 'tada', 'octopus', '+1', 'thumbs_up', 'working_on_it', 'flag-us']) {
      const entry = emojiByName(name)!;
      expect(entry).toBeDefined();
      expect(emojiByCode(entry.code)).toEqual(entry);
      expect(emojiNamesForCode(entry.code)).toContain(name);
      expect(isValidUnicodeEmoji(name, entry.code)).toBe(true);
    }
  });

  it('normalizes codes', () => {
    expect(normalizeEmojiCode('0023-FE0F-20E3')).toBe('0023-20e3');
  });

  it('knows the service extra emoji', () => {
    expect(SERVICE_EXTRA_EMOJI).toEqual([{ name: 'zulip', code: 'zulip' }]);
    expect(serviceExtraEmojiByName('zulip')).toEqual({ name: 'zulip', code: 'zulip' });
    expect(serviceExtraEmojiByName('smile')).toBeUndefined();
    expect(Object.isFrozen(SERVICE_EXTRA_EMOJI)).toBe(true);
  });
});

describe('emoji in messages', () => {
  it('renders a known emoji name', () => {
    expect(renderMessage(':smile:', ctx).html).toBe(
      '<p><span aria-label="smile" class="emoji emoji-1f604" role="img" title="smile">:smile:</span></p>',
    );
  });

  it('titles an alias by the name typed, underscores as spaces', () => {
    expect(renderMessage(':thumbs_up:', ctx).html).toBe(
      '<p><span aria-label="thumbs up" class="emoji emoji-1f44d" role="img" title="thumbs up">:thumbs_up:</span></p>',
    );
  });

  it('renders emoji next to words and each other, as Zulip does', () => {
    // iamcal's names: `cat` is the cat face (Zulip's own table names the whole cat `cat`).
    expect(renderMessage(':cat:hello:dog::rabbit:', ctx).html).toBe(
      '<p><span aria-label="cat" class="emoji emoji-1f431" role="img" title="cat">:cat:</span>hello' +
        '<span aria-label="dog" class="emoji emoji-1f436" role="img" title="dog">:dog:</span>' +
        '<span aria-label="rabbit" class="emoji emoji-1f430" role="img" title="rabbit">:rabbit:</span></p>',
    );
  });

  it('leaves unknown names and skin tones as typed', () => {
    expect(renderMessage(':not_an_emoji: :skin-tone-2: x::y', ctx).html).toBe(
      '<p>:not_an_emoji: :skin-tone-2: x::y</p>',
    );
  });

  it('a bad name does not swallow a good one after it', () => {
    expect(renderMessage(':invalid:smile:', ctx).html).toBe(
      '<p>:invalid<span aria-label="smile" class="emoji emoji-1f604" role="img" title="smile">:smile:</span></p>',
    );
  });

  it('renders :zulip: as the Zulip logo image', () => {
    expect(renderMessage(':zulip:', ctx).html).toBe(
      '<p><img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>',
    );
  });

  it('renders custom emoji from the context before unicode emoji', () => {
    const withRealmEmoji = makeContext({
      realmEmojiByName: (name) =>
        name === 'smile'
          ? { id: '5', name: 'smile', source_url: '/user_avatars/2/emoji/images/5.png?"x', deactivated: false }
          : name === 'old'
            ? { id: '6', name: 'old', source_url: '/old.png', deactivated: true }
            : undefined,
    });
    expect(renderMessage(':smile: :old:', withRealmEmoji).html).toBe(
      '<p><img alt=":smile:" class="emoji" src="/user_avatars/2/emoji/images/5.png?&quot;x" title="smile"> :old:</p>',
    );
  });

  it('keeps unicode emoji typed directly as they are', () => {
    expect(renderMessage('party 🎉 time', ctx).html).toBe('<p>party 🎉 time</p>');
  });

  it('does not render emoji inside code', () => {
    expect(renderMessage('`:smile:`\n```\n:smile:\n```', ctx).html).toBe(
      '<p><code>:smile:</code></p>\n<div class="codehilite"><pre><span></span><code>:smile:\n</code></pre></div>',
    );
  });

  it('renders emoji inside emphasis', () => {
    expect(renderMessage('**:tada:**', ctx).html).toBe(
      '<p><strong><span aria-label="tada" class="emoji emoji-1f389" role="img" title="tada">:tada:</span></strong></p>',
    );
  });
});
