/**
 * Users' avatars: the external provider's (Gravatar, Zulip's source `G`) until a person
 * uploads one (`U`, POST /users/me/avatar) or removes theirs again (DELETE). Accounts owns
 * the fact; every service that shows a user (accounts' user objects, messaging's message
 * senders, the events' fan-out) derives the same URLs from it with `avatarUrlOf`.
 *
 * An uploaded avatar's bytes are in the blob store under `avatars/{24 random}`; its URL is
 * `/user_avatars/{realm_id}/{24 random}.{ext}?version={avatar_version}`: the version
 * changes with every change, so a browser never shows a cached old picture.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { OrganizationAudience } from './audiences';
import { REALM_ID } from './upload-facts';

const int = () => z.number().int();

/** The provider's avatar URL of a user by address (for users who never changed theirs). */
export type AvatarUrls = (email: string) => string;

export function gravatarUrl(email: string, avatarVersion = 1): string {
  const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=${avatarVersion}`;
}

/**
 * Gravatar URLs remembered by email, for a renderer that shows the same senders again and
 * again (an MD5 costs several times a lookup). Each renderer owns its own; bounded by
 * clearing.
 */
export function cachedGravatarUrls(limit = 10_000): AvatarUrls {
  const urls = new Map<string, string>();
  return (email) => {
    let url = urls.get(email);
    if (url === undefined) {
      url = gravatarUrl(email);
      if (urls.size >= limit) urls.clear();
      urls.set(email, url);
    }
    return url;
  };
}

/** Image types an avatar may be (sniffed from its bytes), with the extension of its URL. */
export const AVATAR_IMAGE_TYPES: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** Zulip's default `max_avatar_file_size_mib`; a server setting (`TEAMCHAT_MAX_AVATAR_FILE_SIZE_MIB`). */
export const DEFAULT_MAX_AVATAR_FILE_SIZE_MIB = 5;

export const AvatarFile = z.object({
  /** `avatars/{24 random}`: where the gateway stored the bytes. */
  blob_key: z.string(),
  /** `{24 random}.{ext}`: the file name of its URL under /user_avatars/{realm_id}/. */
  file_name: z.string(),
  content_type: z.string(),
});
export type AvatarFile = z.infer<typeof AvatarFile>;

/**
 * A user's avatar changed: an upload (`U`, with its file) or back to the external
 * provider's (`G`, no file). Every change increments `avatar_version`, as Zulip does.
 * Never the bytes: the file is named by its blob key.
 */
export const UserAvatarChanged = z.object({
  type: z.literal('UserAvatarChanged'),
  user_id: int(),
  /** The user's address when it changed: the provider's URL is derived from it. */
  email: z.string(),
  avatar_source: z.enum(['G', 'U']),
  avatar_version: int(),
  avatar_file: AvatarFile.nullable(),
  /** Every active user who may see the user, and the user: they get the `realm_user` update (named, audiences.ts). */
  ...OrganizationAudience,
  /** A bot's: its active administrators and owner, who get the `realm_bot` update. */
  bot_audience_user_ids: z.array(int()).optional(),
});

/** What a user's avatar is; absent (never changed): the provider's, version 1. */
export interface AvatarState {
  avatar_source: 'G' | 'U';
  avatar_version: number;
  /** The uploaded file's URL name, for source `U`. */
  avatar_file_name?: string;
}

export const avatarStateOf = (fact: z.infer<typeof UserAvatarChanged>): AvatarState => ({
  avatar_source: fact.avatar_source,
  avatar_version: fact.avatar_version,
  ...(fact.avatar_file ? { avatar_file_name: fact.avatar_file.file_name } : {}),
});

/**
 * The avatar's URL: the uploaded file (relative to the organization, as Zulip's local
 * uploads are) or the provider's. The medium size is the same picture: no image is
 * resized, and browsers scale it; its name keeps Zulip's `-medium` form.
 */
export function avatarUrlOf(email: string, avatar: AvatarState | undefined, medium = false): string {
  if (avatar?.avatar_source === 'U' && avatar.avatar_file_name) {
    const name = medium ? avatar.avatar_file_name.replace(/\.(\w+)$/, '-medium.$1') : avatar.avatar_file_name;
    return `/user_avatars/${REALM_ID}/${name}?version=${avatar.avatar_version}`;
  }
  return gravatarUrl(email, avatar?.avatar_version ?? 1);
}

/**
 * The avatar URL a client is given: null for a client that computes the provider's URLs
 * itself (client_gravatar) unless the user uploaded one, as the spec says.
 */
export function shownAvatarUrl(email: string, avatar: AvatarState | undefined, clientGravatar: boolean): string | null {
  if (clientGravatar && avatar?.avatar_source !== 'U') return null;
  return avatarUrlOf(email, avatar);
}

/** The `person` of the `realm_user` update event an avatar change makes. */
export function avatarPerson(userId: number, email: string, avatar: AvatarState) {
  return {
    user_id: userId,
    avatar_url: avatarUrlOf(email, avatar),
    avatar_source: avatar.avatar_source,
    avatar_url_medium: avatarUrlOf(email, avatar, true),
    avatar_version: avatar.avatar_version,
  };
}
