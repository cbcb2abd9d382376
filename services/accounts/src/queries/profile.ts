/** The user profile object of the API, built from the directory. */
import { avatarUrlOf, cachedGravatarUrls, type UserProfile } from '@teamchat/contracts';
import type { UserDoc } from '@teamchat/directory';
import { isAdministrator, isGuest, isOwner } from '@teamchat/policies';

// Room for every user of a large organization: a smaller cache cleared itself on every registration.
const avatarUrls = cachedGravatarUrls(100_000);

/**
 * Each directory document's profile, built once: register lists every user (10,000
 * dates formatted and avatar addresses looked up per registration otherwise). A changed
 * user is a new document, so the profile follows; frozen, as it is shared.
 */
const profiles = new WeakMap<UserDoc, Readonly<UserProfile>>();

export function userProfile(user: UserDoc): UserProfile {
  let profile = profiles.get(user);
  if (!profile) {
    profile = Object.freeze(buildProfile(user));
    profiles.set(user, profile);
  }
  return profile as UserProfile;
}

function buildProfile(user: UserDoc): UserProfile {
  return {
    user_id: user._id,
    delivery_email: user.email,
    email: user.email,
    full_name: user.full_name,
    date_joined: new Date(user.date_joined * 1000).toISOString(),
    is_active: user.is_active,
    is_owner: isOwner(user.role),
    is_admin: isAdministrator(user.role),
    is_guest: isGuest(user.role),
    is_bot: user.is_bot,
    bot_type: user.bot_type,
    bot_owner_id: user.bot_owner_id,
    role: user.role,
    timezone: user.timezone,
    // Most people never change theirs: their provider's URL is remembered by address.
    avatar_url: user.avatar ? avatarUrlOf(user.email, user.avatar) : avatarUrls(user.email),
    avatar_version: user.avatar?.avatar_version ?? 1,
    is_imported_stub: false,
  };
}
