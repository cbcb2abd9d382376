/**
 * The users a channel command names, as the directory found them: the actor must be
 * active, and so must everyone a request subscribes.
 */
import { badRequest, type GroupMember } from '@teamchat/contracts';

/** A user as the channel deciders read them from the directory. */
export interface KnownUser extends GroupMember {
  is_active: boolean;
}

const memberOf = ({ user_id, role, date_joined }: KnownUser): GroupMember => ({ user_id, role, date_joined });

export function activeActor(user: KnownUser | undefined): GroupMember {
  if (!user || !user.is_active) throw badRequest('Not an active user');
  return memberOf(user);
}

/** The principals of a subscription request, in the order named, each once. */
export function principalIds(found: (KnownUser | undefined)[]): number[] {
  const ids: number[] = [];
  for (const user of found) {
    if (!user) throw badRequest('No such user');
    if (!user.is_active) throw badRequest('User is deactivated');
    ids.push(user.user_id);
  }
  return [...new Set(ids)];
}

/** A new channel's first subscribers must all exist and be active. */
export function checkInitialSubscribers(requested: number[], known: KnownUser[]): void {
  if (known.length !== new Set(requested).size || known.some((u) => !u.is_active)) throw badRequest('Invalid user ID');
}
