import { describe, expect, it } from '@jest/globals';
import { isApiError, type MessageReaction } from '@teamchat/contracts';
import { reactionEmoji, resolveEmoji, type EmojiParams } from '../src/domain/emoji';

const errorOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return isApiError(err) ? { code: err.code, msg: err.msg } : err;
  }
  return undefined;
};

describe('resolveEmoji', () => {
  it.each<[string, EmojiParams, unknown]>([
    ['a unicode emoji by name', { emoji_name: 'smile' }, { emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji' }],
    ['an alias by name, keeping the name given', { emoji_name: 'thumbs_up' }, { emoji_name: 'thumbs_up', emoji_code: '1f44d', reaction_type: 'unicode_emoji' }],
    ['a name with its code', { emoji_name: 'smile', emoji_code: '1f604' }, { emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji' }],
    ['the service extra emoji by name', { emoji_name: 'zulip', reaction_type: 'service_extra_emoji' }, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'service_extra_emoji' }],
  ])('resolves %s', (_, params, expected) => {
    expect(resolveEmoji(params)).toStrictEqual(expected);
  });

  it.each<[string, EmojiParams, string]>([
    ['a custom emoji', { emoji_name: 'octopus', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.'],
    ['an unknown code', { emoji_name: 'smile', emoji_code: 'ffffff' }, 'Invalid emoji code.'],
    ['a name that is not the code', { emoji_name: 'smile', emoji_code: '1f44d' }, 'Invalid emoji name.'],
    ['an unknown name', { emoji_name: 'no_such_emoji' }, "Emoji 'no_such_emoji' does not exist"],
    ['an unknown service extra emoji', { emoji_name: 'other', reaction_type: 'service_extra_emoji' }, 'Invalid emoji code.'],
    ['a service extra emoji with another code', { emoji_name: 'zulip', emoji_code: 'x', reaction_type: 'service_extra_emoji' }, 'Invalid emoji code.'],
  ])('refuses %s', (_, params, msg) => {
    expect(errorOf(() => resolveEmoji(params))).toStrictEqual({ code: 'BAD_REQUEST', msg });
  });
});

describe('reactionEmoji', () => {
  // A reaction stored under an emoji the catalogue no longer has.
  const stored: MessageReaction[] = [
    { user_id: 4, emoji_name: 'retired', emoji_code: 'abc123', reaction_type: 'unicode_emoji' },
    { user_id: 5, emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji' },
  ];

  it('removes the reaction as stored, found by name or by code', () => {
    const expected = { emoji_name: 'retired', emoji_code: 'abc123', reaction_type: 'unicode_emoji' };
    expect(reactionEmoji('remove', { emoji_name: 'retired' }, 4, stored)).toStrictEqual(expected);
    expect(reactionEmoji('remove', { emoji_name: 'other', emoji_code: 'abc123' }, 4, stored)).toStrictEqual(expected);
  });

  it("resolves from the catalogue what is not the user's stored reaction", () => {
    expect(errorOf(() => reactionEmoji('remove', { emoji_name: 'retired' }, 5, stored))).toStrictEqual({
      code: 'BAD_REQUEST',
      msg: "Emoji 'retired' does not exist",
    });
    expect(reactionEmoji('remove', { emoji_name: 'smile' }, 4, stored)).toStrictEqual({ emoji_name: 'smile', emoji_code: '1f604', reaction_type: 'unicode_emoji' });
  });

  it('adds only what the catalogue has', () => {
    expect(errorOf(() => reactionEmoji('add', { emoji_name: 'retired' }, 4, stored))).toStrictEqual({ code: 'BAD_REQUEST', msg: "Emoji 'retired' does not exist" });
  });
});
