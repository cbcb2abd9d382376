import { describe, expect, it } from '@jest/globals';
import { ROLE } from '@teamchat/contracts';
import { channelAccess, type ChannelAccess, type ChannelAccessView } from '../src';

const channel = (kind: 'public' | 'private', history: 'shared' | 'not shared'): ChannelAccessView => ({
  invite_only: kind === 'private',
  history_public_to_subscribers: history === 'shared',
});
const answers = (seeMetadata: boolean, readHistory: boolean, postOrMoveInto: boolean, setTopicVisibility: boolean): ChannelAccess => ({
  seeMetadata,
  readHistory,
  postOrMoveInto,
  setTopicVisibility,
});
const Y = true;
const N = false;

describe('channelAccess', () => {
  // given the channel, when this actor asks, then: see metadata, read history, post or move into, set topic visibility.
  it.each([
    ['public', 'shared', 'member', 'subscribed', answers(Y, Y, Y, Y)],
    ['public', 'shared', 'member', 'not subscribed', answers(Y, Y, Y, Y)],
    ['public', 'shared', 'guest', 'subscribed', answers(Y, Y, Y, Y)],
    ['public', 'shared', 'guest', 'not subscribed', answers(Y, N, N, N)],
    ['public', 'not shared', 'member', 'subscribed', answers(Y, N, Y, Y)],
    ['public', 'not shared', 'member', 'not subscribed', answers(Y, N, Y, N)],
    ['public', 'not shared', 'guest', 'subscribed', answers(Y, N, Y, Y)],
    ['public', 'not shared', 'guest', 'not subscribed', answers(Y, N, N, N)],
    ['private', 'shared', 'member', 'subscribed', answers(Y, Y, Y, Y)],
    ['private', 'shared', 'member', 'not subscribed', answers(N, N, N, N)],
    ['private', 'shared', 'owner', 'not subscribed', answers(N, N, N, N)],
    ['private', 'shared', 'guest', 'subscribed', answers(Y, Y, Y, Y)],
    ['private', 'not shared', 'member', 'subscribed', answers(Y, N, Y, Y)],
    ['private', 'not shared', 'guest', 'not subscribed', answers(N, N, N, N)],
  ] as const)('a %s channel, history %s; a %s, %s', (kind, history, role, subscription, expected) => {
    const actor = { role: role === 'guest' ? ROLE.guest : role === 'owner' ? ROLE.owner : ROLE.member, subscribed: subscription === 'subscribed' };
    expect(channelAccess(channel(kind, history), actor)).toStrictEqual(expected);
  });

  it('answers no to everything for a channel that does not exist', () => {
    expect(channelAccess(undefined, { role: ROLE.owner, subscribed: true })).toStrictEqual(answers(N, N, N, N));
  });
});
