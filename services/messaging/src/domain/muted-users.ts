/**
 * Muting and unmuting users (Zulip's `MutedUser`): one user's stream of mutes
 * (`muted_users-<user>`), folded to whom they muted and when. Pure: whether the target
 * exists, and the clock, come in with the command.
 *
 * What a mute changes besides the list (the muter's flags on the sender's messages) is
 * the handler's and the send's: this decides only the list.
 */
import { badRequest, type Fact, type FactOf, type MutedUserEntry } from '@teamchat/contracts';

export interface MutedUsersState {
  /** Muted user id → seconds since the epoch of the mute, oldest mute first. */
  muted: ReadonlyMap<number, number>;
}

export const initialMutedUsers = (): MutedUsersState => ({ muted: new Map() });

export function evolveMutedUsers(state: MutedUsersState, fact: Fact): MutedUsersState {
  if (fact.type !== 'UserMuted' && fact.type !== 'UserUnmuted') return state;
  return { muted: new Map(fact.muted_users.map((m) => [m.id, m.timestamp])) };
}

export interface MuteCommand {
  user_id: number;
  muted_user_id: number;
  /**
   * Whether the target is a user the muter may name: any user of the organization, bots
   * and deactivated users included, or a system bot (Zulip allows all of these).
   */
  target_exists: boolean;
  /** Milliseconds since the epoch. */
  now: number;
}

const listOf = (muted: ReadonlyMap<number, number>): MutedUserEntry[] => [...muted].map(([id, timestamp]) => ({ id, timestamp }));

/** In Zulip's order: oneself, then an unknown user, then a user already muted. */
export function decideMute(state: MutedUsersState, cmd: MuteCommand): FactOf<'UserMuted'>[] {
  if (cmd.muted_user_id === cmd.user_id) throw badRequest('Cannot mute self');
  if (!cmd.target_exists) throw badRequest('No such user');
  if (state.muted.has(cmd.muted_user_id)) throw badRequest('User already muted');
  const timestamp = Math.floor(cmd.now / 1000);
  const muted = new Map(state.muted).set(cmd.muted_user_id, timestamp);
  return [{ type: 'UserMuted', user_id: cmd.user_id, muted_user_id: cmd.muted_user_id, timestamp, muted_users: listOf(muted) }];
}

/** Unmuting oneself is "not muted", as in Zulip (one is a user one may name). */
export function decideUnmute(state: MutedUsersState, cmd: Omit<MuteCommand, 'now'>): FactOf<'UserUnmuted'>[] {
  if (!cmd.target_exists && cmd.muted_user_id !== cmd.user_id) throw badRequest('No such user');
  if (!state.muted.has(cmd.muted_user_id)) throw badRequest('User is not muted');
  const muted = new Map(state.muted);
  muted.delete(cmd.muted_user_id);
  return [{ type: 'UserUnmuted', user_id: cmd.user_id, muted_user_id: cmd.muted_user_id, muted_users: listOf(muted) }];
}

/** The recipients of a message who muted its sender (never the sender): it reaches them read. */
export const mutingRecipients = (recipientIds: readonly number[], senderId: number, mutersOfSender: ReadonlySet<number>): number[] =>
  recipientIds.filter((id) => id !== senderId && mutersOfSender.has(id));
