/**
 * Facts of muted users (Zulip's `MutedUser`): a user mutes or unmutes another, on their
 * own stream (`muted_users-<user>`). Messaging appends them: it owns what a mute changes
 * (the muter's flags on that sender's messages, at send time and when muting).
 *
 * Each fact carries the whole list after the change, as the `muted_users` event does:
 * the fan-out announces it without keeping state of its own, and a projection can put
 * it as it is.
 */
import { z } from 'zod';

const int = () => z.number().int();

/** One muted user as register's `muted_users` and the event list them. */
export const MutedUserEntry = z.object({ id: int(), timestamp: int() });
export type MutedUserEntry = z.infer<typeof MutedUserEntry>;

export const UserMuted = z.object({
  type: z.literal('UserMuted'),
  user_id: int(),
  muted_user_id: int(),
  /** Seconds since the epoch. */
  timestamp: int(),
  /** Everyone the user has muted now, oldest mute first. */
  muted_users: z.array(MutedUserEntry),
});

export const UserUnmuted = z.object({
  type: z.literal('UserUnmuted'),
  user_id: int(),
  muted_user_id: int(),
  muted_users: z.array(MutedUserEntry),
});

export const MUTED_USER_FACTS = [UserMuted, UserUnmuted] as const;
