/** Given facts / when command / then facts for muting and unmuting users, and who gets a message already read. */
import { describe, expect, it } from '@jest/globals';
import type { FactOf } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { decideMute, decideUnmute, evolveMutedUsers, initialMutedUsers, mutingRecipients, type MuteCommand, type MutedUsersState } from '../src/domain/muted-users';

const ME = 4;
const NOW = 1_700_000_000_500;

const mute = deciderSpec<MutedUsersState, MuteCommand>({ initial: initialMutedUsers, evolve: evolveMutedUsers, decide: (cmd, state) => decideMute(state, cmd) });
const unmute = deciderSpec<MutedUsersState, MuteCommand>({ initial: initialMutedUsers, evolve: evolveMutedUsers, decide: (cmd, state) => decideUnmute(state, cmd) });

const cmd = (muted_user_id: number, over: Partial<MuteCommand> = {}): MuteCommand => ({ user_id: ME, muted_user_id, target_exists: true, now: NOW, ...over });
const muted = (muted_user_id: number, timestamp: number, list: [number, number][]): FactOf<'UserMuted'> => ({
  type: 'UserMuted',
  user_id: ME,
  muted_user_id,
  timestamp,
  muted_users: list.map(([id, t]) => ({ id, timestamp: t })),
});
const unmuted = (muted_user_id: number, list: [number, number][]): FactOf<'UserUnmuted'> => ({
  type: 'UserUnmuted',
  user_id: ME,
  muted_user_id,
  muted_users: list.map(([id, t]) => ({ id, timestamp: t })),
});

describe('muting a user', () => {
  it('records the mute with its time in seconds and the whole list after it', () =>
    mute.given([]).when(cmd(7)).then([muted(7, 1_700_000_000, [[7, 1_700_000_000]])]));

  it('keeps earlier mutes first, in the order they were made', () =>
    mute.given([muted(9, 100, [[9, 100]])]).when(cmd(7)).then([muted(7, 1_700_000_000, [[9, 100], [7, 1_700_000_000]])]));

  it('mutes again a user unmuted earlier', () =>
    mute.given([muted(7, 100, [[7, 100]]), unmuted(7, [])]).when(cmd(7)).then([muted(7, 1_700_000_000, [[7, 1_700_000_000]])]));

  it('refuses oneself before anything else', () => mute.given([]).when(cmd(ME, { target_exists: false })).thenThrows({ code: 'BAD_REQUEST', msg: 'Cannot mute self' }));

  it('refuses a user who does not exist', () => mute.given([]).when(cmd(999, { target_exists: false })).thenThrows({ code: 'BAD_REQUEST', msg: 'No such user' }));

  it('refuses a user already muted', () => mute.given([muted(7, 100, [[7, 100]])]).when(cmd(7)).thenThrows({ code: 'BAD_REQUEST', msg: 'User already muted' }));
});

describe('unmuting a user', () => {
  it('records the unmute and the list left', () =>
    unmute.given([muted(9, 100, [[9, 100]]), muted(7, 200, [[9, 100], [7, 200]])]).when(cmd(9)).then([unmuted(9, [[7, 200]])]));

  it('refuses a user who is not muted', () => unmute.given([muted(9, 100, [[9, 100]])]).when(cmd(7)).thenThrows({ code: 'BAD_REQUEST', msg: 'User is not muted' }));

  it('refuses a user unmuted already', () => unmute.given([muted(7, 100, [[7, 100]]), unmuted(7, [])]).when(cmd(7)).thenThrows({ msg: 'User is not muted' }));

  it('refuses a user who does not exist', () => unmute.given([]).when(cmd(999, { target_exists: false })).thenThrows({ code: 'BAD_REQUEST', msg: 'No such user' }));

  it('answers "not muted" for oneself, as Zulip does', () => unmute.given([]).when(cmd(ME)).thenThrows({ msg: 'User is not muted' }));
});

describe('who receives a message already read', () => {
  it('is every recipient who muted the sender, never the sender', () => {
    expect(mutingRecipients([1, 2, 3, 4], 1, new Set([1, 3, 5]))).toEqual([3]);
    expect(mutingRecipients([1, 2], 1, new Set())).toEqual([]);
  });
});
