/**
 * The avatars of the users who changed theirs, for the fan-out: a message event carries
 * its sender's avatar URL, and the fan-out is synchronous. Kept from the avatar facts the
 * fan-out sees, and seeded at startup from the events directory (which has every user),
 * since the fan-out starts at the store's head or at the oldest live queue's position.
 * Only the newer of two versions is kept: a replay may bring older facts after the seed.
 */
import type { AvatarState } from '@teamchat/contracts';

export class AvatarBook {
  private readonly byUser = new Map<number, AvatarState>();

  record(userId: number, avatar: AvatarState): void {
    const known = this.byUser.get(userId);
    if (!known || known.avatar_version <= avatar.avatar_version) this.byUser.set(userId, avatar);
  }

  /** Undefined: never changed (the provider's avatar). */
  of(userId: number): AvatarState | undefined {
    return this.byUser.get(userId);
  }
}
