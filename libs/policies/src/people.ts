/**
 * Rules about people every service applies alike: who sees a user's real email address,
 * the address shown to those who may not, and which system group a role makes a user a
 * direct member of.
 */
import { ROLE, SYSTEM_GROUP } from '@teamchat/contracts';
import { isAdministrator, isModerator, isGuest } from './roles';

/** Zulip's values of the email address visibility setting. */
export const EMAIL_ADDRESS_VISIBILITY = { everyone: 1, members: 2, administrators: 3, nobody: 4, moderators: 5 } as const;

export interface Viewer {
  user_id: number;
  role: number;
}

/**
 * Whether `viewer` may see the real address of `subject`: always their own and a bot's
 * (bots' addresses are not personal), otherwise as the visibility setting says.
 */
export function maySeeRealEmail(viewer: Viewer, subject: { user_id: number; is_bot: boolean }, visibility: number): boolean {
  if (viewer.user_id === subject.user_id || subject.is_bot) return true;
  switch (visibility) {
    case EMAIL_ADDRESS_VISIBILITY.everyone:
      return true;
    case EMAIL_ADDRESS_VISIBILITY.members:
      return !isGuest(viewer.role);
    case EMAIL_ADDRESS_VISIBILITY.moderators:
      return isModerator(viewer.role);
    case EMAIL_ADDRESS_VISIBILITY.administrators:
      return isAdministrator(viewer.role);
    default:
      return false;
  }
}

/** The API-usable address shown instead of a hidden real one. */
export const dummyEmail = (userId: number, host: string): string => `user${userId}@${host}`;

/** The system group whose direct members hold `role` (the higher ones nest as subgroups). */
export function systemGroupOfRole(role: number): number {
  switch (role) {
    case ROLE.owner:
      return SYSTEM_GROUP.owners;
    case ROLE.administrator:
      return SYSTEM_GROUP.administrators;
    case ROLE.moderator:
      return SYSTEM_GROUP.moderators;
    case ROLE.guest:
      return SYSTEM_GROUP.everyone;
    default:
      // Without a waiting period every member is a full member.
      return SYSTEM_GROUP.fullmembers;
  }
}

/**
 * The domain of addresses the server makes up (bots' `<name>-bot@…`, hidden addresses'
 * `user{id}@…`): the organization's host without its port, since an address with a
 * colon cannot be the user name of HTTP Basic credentials.
 */
export function emailDomainOf(realmHost: string): string {
  try {
    return new URL(`http://${realmHost}`).hostname;
  } catch {
    return realmHost;
  }
}
