/**
 * A person's own avatar (POST and DELETE /users/me/avatar), on the user's own stream
 * (`user_avatar-<id>`): its version counts every change, which is what busts caches. Only
 * the person changes it (the endpoints name no other user); where the organization
 * disabled avatar changes, only its administrators still may, as in Zulip.
 */
import { AVATAR_IMAGE_TYPES, ACTIVE_USERS, badRequest, type AvatarFile, type Fact, type UploadedFile } from '@teamchat/contracts';

export interface AvatarAggregate {
  version: number;
  /** The uploaded file in use; undefined: the provider's avatar. */
  file: AvatarFile | undefined;
}

export const initialAvatar = (): AvatarAggregate => ({ version: 1, file: undefined });

export function evolveAvatar(state: AvatarAggregate, fact: Fact): AvatarAggregate {
  if (fact.type !== 'UserAvatarChanged') return state;
  return { version: fact.avatar_version, file: fact.avatar_file ?? undefined };
}

interface AvatarCommand {
  user_id: number;
  email: string;
  /** Whether the organization lets this person change their avatar (the handler asks the settings and the role). */
  may_change: boolean;
  /** For a bot: who administers it. */
  bot_audience_user_ids?: number[];
}

export interface SetAvatar extends AvatarCommand {
  file: UploadedFile;
  maxBytes: number;
  maxMib: number;
}

/** Zulip's bound on a picture's pixels. */
export const IMAGE_BOMB_TOTAL_PIXELS = 90_000_000;

/** Zulip's refusal where the organization disabled avatar changes. */
export const AVATAR_CHANGES_DISABLED = 'Avatar changes are disabled in this organization.';

export function decideSetAvatar(state: AvatarAggregate, cmd: SetAvatar): Fact[] {
  if (!cmd.may_change) throw badRequest(AVATAR_CHANGES_DISABLED);
  if (cmd.file.size > cmd.maxBytes) throw badRequest(`Uploaded file is larger than the allowed limit of ${cmd.maxMib} MiB`);
  // The type was sniffed from the bytes by the gateway: a declared type is never trusted.
  const extension = AVATAR_IMAGE_TYPES[cmd.file.content_type];
  if (!extension || !cmd.file.image) throw badRequest('Could not decode image; did you upload an image file?');
  const { width = 0, height = 0 } = cmd.file.image;
  // Browsers decode what the server does not: a picture too large to show is refused, as Zulip refuses it.
  if (width * height > IMAGE_BOMB_TOTAL_PIXELS) throw badRequest('Image size exceeds limit.');
  const key = /^avatars\/([A-Za-z0-9_-]{24})$/.exec(cmd.file.blob_key);
  if (!key) throw badRequest('Invalid upload');
  const avatar_file = { blob_key: cmd.file.blob_key, file_name: `${key[1]}.${extension}`, content_type: cmd.file.content_type };
  return [changed(state, cmd, 'U', avatar_file)];
}

/** Back to the provider's avatar; a person who has none uploaded gets a new version all the same, as in Zulip. */
export function decideDeleteAvatar(state: AvatarAggregate, cmd: AvatarCommand): Fact[] {
  if (!cmd.may_change) throw badRequest(AVATAR_CHANGES_DISABLED);
  return [changed(state, cmd, 'G', null)];
}

function changed(state: AvatarAggregate, cmd: AvatarCommand, avatar_source: 'G' | 'U', avatar_file: AvatarFile | null): Fact {
  return {
    type: 'UserAvatarChanged',
    user_id: cmd.user_id,
    email: cmd.email,
    avatar_source,
    avatar_version: state.version + 1,
    avatar_file,
    audience: ACTIVE_USERS,
    ...(cmd.bot_audience_user_ids ? { bot_audience_user_ids: cmd.bot_audience_user_ids } : {}),
  };
}
