/**
 * Custom emoji (POST/DELETE /realm/emoji/{emoji_name}): the organization's set in one
 * stream (`realm_emoji`), so ids are allocated in order and an active name is unique.
 * Who may add one is the organization's can_add_custom_emoji_group; administrators and
 * the emoji's author (while still allowed to add emoji) may deactivate one. A deactivated
 * emoji is kept: old messages and reactions still show it, and its name may be reused.
 */
import { ACTIVE_USERS, badRequest, REALM_ID, type Actor, type Fact, type StoredRealmEmoji, type UploadedFile } from '@teamchat/contracts';
import { isAdministrator } from '@teamchat/policies';

export interface RealmEmojiState {
  emoji: readonly StoredRealmEmoji[];
  lastId: number;
}

export const initialRealmEmoji = (): RealmEmojiState => ({ emoji: [], lastId: 0 });

export function evolveRealmEmoji(state: RealmEmojiState, fact: Fact): RealmEmojiState {
  switch (fact.type) {
    case 'RealmEmojiAdded':
      return { emoji: fact.realm_emoji, lastId: Math.max(state.lastId, Number(fact.emoji.id)) };
    case 'RealmEmojiDeactivated':
      return { ...state, emoji: fact.realm_emoji };
    default:
      return state;
  }
}

/** Zulip's limit on emoji names. */
export const MAX_EMOJI_NAME_LENGTH = 60;
/** Image types an emoji may be, with the extension of its URL. */
const EMOJI_IMAGE_TYPES: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** Zulip's emoji name rules: lower-case letters, digits, dashes and underscores, ending in a letter or digit. */
export function checkEmojiName(name: string): void {
  if (name === '') throw badRequest('Emoji name is missing');
  if (name.length > MAX_EMOJI_NAME_LENGTH) throw badRequest(`Emoji name is too long (limit: ${MAX_EMOJI_NAME_LENGTH} characters)`);
  if (!/^[0-9a-z_-]+$/.test(name)) throw badRequest('Invalid characters in emoji name');
  if (/[-_]$/.test(name)) throw badRequest('Emoji names must end with either a letter or digit.');
}

export interface AddRealmEmoji {
  actor: Actor;
  emoji_name: string;
  file: UploadedFile;
  /** Whether the actor is in the organization's can_add_custom_emoji_group (the handler asks the policy). */
  may_add: boolean;
  maxBytes: number;
  maxMib: number;
}

export function decideAddRealmEmoji(state: RealmEmojiState, cmd: AddRealmEmoji): Fact[] {
  if (!cmd.may_add) throw badRequest('Insufficient permission');
  checkEmojiName(cmd.emoji_name);
  if (state.emoji.some((e) => e.name === cmd.emoji_name && !e.deactivated)) throw badRequest('A custom emoji with this name already exists.');
  const extension = EMOJI_IMAGE_TYPES[cmd.file.content_type];
  if (!extension) throw badRequest('Invalid image format');
  if (cmd.file.size > cmd.maxBytes) throw badRequest(`Uploaded file is larger than the allowed limit of ${cmd.maxMib} MiB`);
  const key = /^emoji\/([A-Za-z0-9_-]{24})$/.exec(cmd.file.blob_key);
  if (!key) throw badRequest('Invalid upload');
  const emoji: StoredRealmEmoji = {
    id: String(state.lastId + 1),
    name: cmd.emoji_name,
    source_url: `/user_avatars/${REALM_ID}/emoji/images/${key[1]}.${extension}`,
    deactivated: false,
    author_id: cmd.actor.user_id,
    blob_key: cmd.file.blob_key,
    content_type: cmd.file.content_type,
  };
  return [{ type: 'RealmEmojiAdded', emoji, realm_emoji: [...state.emoji, emoji], audience: ACTIVE_USERS }];
}

export function decideDeactivateRealmEmoji(
  state: RealmEmojiState,
  cmd: { actor: Actor; emoji_name: string; may_add: boolean },
): Fact[] {
  const emoji = state.emoji.find((e) => e.name === cmd.emoji_name && !e.deactivated);
  if (!emoji) throw badRequest(`Emoji '${cmd.emoji_name}' does not exist`);
  const author = emoji.author_id === cmd.actor.user_id && cmd.may_add;
  if (!isAdministrator(cmd.actor.role) && !author) throw badRequest('Must be an organization administrator or emoji author');
  return [
    {
      type: 'RealmEmojiDeactivated',
      emoji_id: emoji.id,
      realm_emoji: state.emoji.map((e) => (e.id === emoji.id ? { ...e, deactivated: true } : e)),
      audience: ACTIVE_USERS,
    },
  ];
}
