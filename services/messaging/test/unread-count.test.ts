import { describe, expect, it } from '@jest/globals';
import { VISIBILITY_POLICY } from '@teamchat/contracts';
import { isMutedUnread, unreadCount, type MuteState } from '../src/domain/unread-count';

const mutes = (muted: number[], policies: Record<string, number> = {}): MuteState => ({
  muted_channel_ids: new Set(muted),
  topic_policies: new Map(Object.entries(policies)),
});
const inChannel = (channel_id: number, topic_lc: string) => ({ channel_id, topic_lc });
const direct = { channel_id: null, topic_lc: null };

describe("Zulip's unread count", () => {
  it('counts direct messages whatever is muted', () => {
    expect(isMutedUnread(direct, mutes([1], { '1:a': VISIBILITY_POLICY.muted }))).toBe(false);
  });

  it('leaves out a muted channel unless its topic is unmuted or followed', () => {
    const state = mutes([1], { '1:unmuted': VISIBILITY_POLICY.unmuted, '1:followed': VISIBILITY_POLICY.followed, '1:muted': VISIBILITY_POLICY.muted });
    expect(isMutedUnread(inChannel(1, 'any'), state)).toBe(true);
    expect(isMutedUnread(inChannel(1, 'muted'), state)).toBe(true);
    expect(isMutedUnread(inChannel(1, 'unmuted'), state)).toBe(false);
    expect(isMutedUnread(inChannel(1, 'followed'), state)).toBe(false);
  });

  it('leaves out a muted topic of a channel that is not muted, and nothing else there', () => {
    const state = mutes([], { '2:muted': VISIBILITY_POLICY.muted, '2:unmuted': VISIBILITY_POLICY.unmuted });
    expect(isMutedUnread(inChannel(2, 'muted'), state)).toBe(true);
    expect(isMutedUnread(inChannel(2, 'unmuted'), state)).toBe(false);
    expect(isMutedUnread(inChannel(2, 'other'), state)).toBe(false);
    expect(isMutedUnread(inChannel(3, 'muted'), state)).toBe(false);
  });

  it('adds up what is not muted', () => {
    const places = [direct, inChannel(1, 'a'), inChannel(1, 'b'), inChannel(2, 'a'), inChannel(2, 'b')];
    expect(unreadCount(places, mutes([]))).toBe(5);
    expect(unreadCount(places, mutes([1], { '1:b': VISIBILITY_POLICY.followed, '2:a': VISIBILITY_POLICY.muted }))).toBe(3);
  });
});
