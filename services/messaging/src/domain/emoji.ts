/**
 * Which emoji a reaction is about: the parameters checked against the emoji catalogue
 * (unicode emoji by name or code, Zulip's service extra emoji, the organization's custom emoji by id).
 */
import { badRequest, type MessageReaction, type ReactionParams, type StoredRealmEmoji } from '@teamchat/contracts';
import { emojiByCode, emojiByName, isValidUnicodeEmoji, SERVICE_EXTRA_EMOJI } from '@teamchat/markdown';
import type { ReactionCommand } from './message-changes';

export type EmojiParams = Pick<ReactionParams, 'emoji_name' | 'emoji_code' | 'reaction_type'>;

/** Turns the emoji parameters into a validated (name, code, type) triple. */
export function resolveEmoji(params: EmojiParams, customEmoji: readonly StoredRealmEmoji[] = []): ReactionCommand['emoji'] {
  const type = params.reaction_type ?? 'unicode_emoji';
  if (type === 'realm_emoji') {
    // By id (the code) when given, else by name; only an active emoji takes new reactions.
    const custom = customEmoji.find((e) => !e.deactivated && (params.emoji_code !== undefined ? e.id === params.emoji_code : e.name === params.emoji_name));
    if (!custom || custom.name !== params.emoji_name) throw badRequest('Invalid custom emoji.');
    return { emoji_name: custom.name, emoji_code: custom.id, reaction_type: type };
  }
  if (type === 'service_extra_emoji') {
    const extra = SERVICE_EXTRA_EMOJI.find((e) => e.name === params.emoji_name || e.code === params.emoji_code);
    if (!extra || (params.emoji_code !== undefined && params.emoji_code !== extra.code)) throw badRequest('Invalid emoji code.');
    return { emoji_name: extra.name, emoji_code: extra.code, reaction_type: type };
  }
  if (params.emoji_code !== undefined) {
    const byCode = emojiByCode(params.emoji_code);
    if (!byCode) throw badRequest('Invalid emoji code.');
    if (!isValidUnicodeEmoji(params.emoji_name, byCode.code)) throw badRequest('Invalid emoji name.');
    return { emoji_name: params.emoji_name, emoji_code: byCode.code, reaction_type: type };
  }
  const emoji = emojiByName(params.emoji_name);
  if (!emoji) throw badRequest(`Emoji '${params.emoji_name}' does not exist`);
  return { emoji_name: params.emoji_name, emoji_code: emoji.code, reaction_type: type };
}

/**
 * The emoji of a reaction to add or remove. Removing needs no valid catalogue entry: the
 * user's reaction as stored (matched by code when given, else by name, and by type) is
 * what matters, so one whose emoji has left the catalogue can still be removed.
 */
export function reactionEmoji(
  op: 'add' | 'remove',
  params: EmojiParams,
  userId: number,
  reactions: MessageReaction[],
  customEmoji: readonly StoredRealmEmoji[] = [],
): ReactionCommand['emoji'] {
  if (op === 'add' || params.reaction_type === 'service_extra_emoji') return resolveEmoji(params, customEmoji);
  const stored = reactions.find(
    (r) =>
      r.user_id === userId &&
      (params.emoji_code !== undefined ? r.emoji_code === params.emoji_code : r.emoji_name === params.emoji_name) &&
      r.reaction_type === (params.reaction_type ?? 'unicode_emoji'),
  );
  return stored
    ? { emoji_name: stored.emoji_name, emoji_code: stored.emoji_code, reaction_type: stored.reaction_type as ReactionCommand['emoji']['reaction_type'] }
    : resolveEmoji(params, customEmoji);
}
