/**
 * The user status decider (endpoint 9): one stream per user. Zulip's rules: the text is
 * trimmed and at most 60 code points (empty clears it), an emoji is named by emoji_name
 * (empty clears it), emoji_code and reaction_type only with a name, and something must be
 * given. Administrators may set another user's status; bots may not, whatever their role.
 * Pure: the emoji catalogue is a pure library, the users come with the context.
 */
import { ACTIVE_USERS, badRequest, REACTION_TYPES, type Actor, type Fact, type FactOf, type UpdateStatusParams } from '@teamchat/contracts';
import type { StoredRealmEmoji } from '@teamchat/contracts';
import { emojiByCode, emojiByName, isValidUnicodeEmoji, SERVICE_EXTRA_EMOJI } from '@teamchat/markdown';
import { codePointLength, isAdministrator } from '@teamchat/policies';
import type { RegisteredUser } from './organization';

/** Zulip's `UserStatus.MAX_STATUS_TEXT_LENGTH`, in code points (the spec's limit). */
export const MAX_STATUS_TEXT_LENGTH = 60;

export type ReactionType = (typeof REACTION_TYPES)[number];

export interface UserStatusState {
  status_text: string;
  emoji_name: string;
  emoji_code: string;
  reaction_type: ReactionType;
}

export const initialUserStatus = (): UserStatusState => ({ status_text: '', emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' });

export function evolveUserStatus(state: UserStatusState, fact: Fact): UserStatusState {
  if (fact.type !== 'UserStatusChanged') return state;
  const { status_text, emoji_name, emoji_code, reaction_type } = fact;
  return { status_text, emoji_name, emoji_code, reaction_type };
}

export interface StatusContext {
  users: ReadonlyMap<number, RegisteredUser>;
  /** The organization's custom emoji (absent: only built-in emoji are accepted). */
  custom_emoji?: readonly StoredRealmEmoji[];
}

export interface UpdateStatus {
  actor: Actor;
  /** Whose status: the actor's own (POST /users/me/status) or another's (administrators). */
  user_id: number;
  params: UpdateStatusParams;
}

/** A validated (name, code, type) triple: from the built-in catalogue, or an active custom emoji. */
function resolveEmoji(
  name: string,
  code: string | undefined,
  type: string,
  customEmoji: readonly StoredRealmEmoji[] = [],
): Pick<UserStatusState, 'emoji_name' | 'emoji_code' | 'reaction_type'> {
  if (!(REACTION_TYPES as readonly string[]).includes(type)) throw badRequest(`Invalid reaction_type '${type}'`);
  if (type === 'realm_emoji') {
    // The code is the custom emoji's id; an active one of that name and id.
    const custom = customEmoji.find((e) => !e.deactivated && e.name === name && (code === undefined || e.id === code));
    if (!custom) throw badRequest('Invalid custom emoji.');
    return { emoji_name: custom.name, emoji_code: custom.id, reaction_type: 'realm_emoji' };
  }
  if (type === 'service_extra_emoji') {
    const extra = SERVICE_EXTRA_EMOJI.find((e) => e.name === name);
    if (!extra) throw badRequest(`Emoji '${name}' does not exist`);
    if (code !== undefined && code !== extra.code) throw badRequest('Invalid emoji code.');
    return { emoji_name: extra.name, emoji_code: extra.code, reaction_type: 'service_extra_emoji' };
  }
  if (code !== undefined) {
    const byCode = emojiByCode(code);
    if (!byCode) throw badRequest('Invalid emoji code.');
    if (!isValidUnicodeEmoji(name, byCode.code)) throw badRequest('Invalid emoji name.');
    return { emoji_name: name, emoji_code: byCode.code, reaction_type: 'unicode_emoji' };
  }
  const emoji = emojiByName(name);
  if (!emoji) throw badRequest(`Emoji '${name}' does not exist`);
  return { emoji_name: name, emoji_code: emoji.code, reaction_type: 'unicode_emoji' };
}

export function decideUpdateStatus(state: UserStatusState, ctx: StatusContext, cmd: UpdateStatus): FactOf<'UserStatusChanged'>[] {
  const { params } = cmd;
  if (cmd.user_id !== cmd.actor.user_id) {
    const actor = ctx.users.get(cmd.actor.user_id);
    if (!actor || actor.is_bot || !isAdministrator(actor.role)) throw badRequest('Insufficient permission');
  }
  const target = ctx.users.get(cmd.user_id);
  if (!target || !target.is_active) throw badRequest('No such user');
  const text = params.status_text?.trim();
  if (text !== undefined && codePointLength(text) > MAX_STATUS_TEXT_LENGTH) {
    throw badRequest(`status_text is too long (limit: ${MAX_STATUS_TEXT_LENGTH} characters)`);
  }
  if (params.emoji_name === undefined && (params.emoji_code !== undefined || params.reaction_type !== undefined)) {
    throw badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
  if (text === undefined && params.emoji_name === undefined) throw badRequest('Client did not pass any new values.');
  const next: UserStatusState = { ...state };
  const changed: FactOf<'UserStatusChanged'>['changed'] = [];
  if (text !== undefined) {
    next.status_text = text;
    changed.push('status_text');
  }
  if (params.emoji_name !== undefined) {
    const emoji =
      params.emoji_name === ''
        ? { emoji_name: '', emoji_code: '', reaction_type: 'unicode_emoji' as const }
        : resolveEmoji(params.emoji_name, params.emoji_code, params.reaction_type ?? 'unicode_emoji', ctx.custom_emoji);
    Object.assign(next, emoji);
    changed.push('emoji');
  }
  // Announced even when the values are the same, as Zulip does: clients treat it as the current status.
  return [{ type: 'UserStatusChanged', user_id: target.user_id, ...next, changed, audience: ACTIVE_USERS }];
}
