import { describe, expect, it } from '@jest/globals';
import { VISIBILITY_POLICY, type FactOf } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  automaticVisibilityPolicy,
  decideFlags,
  decideUserTopic,
  visibilityMayChangeAutomatically,
  type MessageLocation,
} from '../src/domain/message-changes';
import { evolveUserTopics, initialUserTopics, visibilityPolicyOf, type UserTopicsState } from '../src/domain/personal-streams';

const { inherit, muted, unmuted, followed } = VISIBILITY_POLICY;

type UserTopicCommand = Parameters<typeof decideUserTopic>[1];
// The state is the user's own user_topics stream, folded.
const userTopics = deciderSpec<UserTopicsState, UserTopicCommand>({
  initial: initialUserTopics,
  evolve: evolveUserTopics,
  decide: (cmd, state) => decideUserTopic(visibilityPolicyOf(state, cmd.channel_id, cmd.topic), cmd),
});
const set = (channel_id: number, topic: string, visibility_policy: number, last_updated = 1_700_000_000): FactOf<'UserTopicUpdated'> => ({
  type: 'UserTopicUpdated',
  user_id: 4,
  channel_id,
  topic,
  visibility_policy,
  last_updated,
});
const cmd = (channel_id: number, topic: string, visibility_policy: number): UserTopicCommand => ({
  user_id: 4,
  channel_id,
  topic,
  visibility_policy,
  now: 1_700_000_123_000,
});

describe('the user_topics stream as the state of topic visibility commands', () => {
  it('decides nothing when the stream already holds the policy, whatever the topic case', () =>
    userTopics.given([set(10, 'Greetings', muted)]).when(cmd(10, 'greetings', muted)).then([]));

  it('reads the latest policy of a topic', () =>
    userTopics
      .given([set(10, 'greetings', muted), set(10, 'greetings', inherit)])
      .when(cmd(10, 'greetings', muted))
      .then([set(10, 'greetings', muted, 1_700_000_123)]));

  it('keeps topics and channels apart', () =>
    userTopics
      .given([set(10, 'greetings', followed), set(11, 'other', followed)])
      .when(cmd(11, 'greetings', followed))
      .then([set(11, 'greetings', followed, 1_700_000_123)]));

  it('counts a topic with no fact as inherit', () => userTopics.given([set(10, 'a', muted)]).when(cmd(10, 'b', inherit)).then([]));
});

describe('visibilityMayChangeAutomatically', () => {
  it.each([
    [false, false, false],
    [true, false, true],
    [false, true, true],
    [true, true, true],
  ])('starts a topic %p, channel muted %p: %p', (startsTopic, channelMuted, expected) => {
    expect(visibilityMayChangeAutomatically({ startsTopic, channelMuted })).toBe(expected);
  });

  it.each([inherit, muted, unmuted, followed])('is false only where no current policy (%i) changes anything', (current) => {
    const trigger = { startsTopic: false, channelMuted: false };
    expect(visibilityMayChangeAutomatically(trigger)).toBe(false);
    expect(automaticVisibilityPolicy({ current, ...trigger })).toBeNull();
  });
});

type FlagsCommand = Parameters<typeof decideFlags>[0];
// Flags read no state of their own stream: current flags and locations come from the read model.
const flags = deciderSpec<null, FlagsCommand>({ initial: () => null, evolve: (state) => state, decide: (c) => decideFlags(c) });

describe('decideFlags with locations', () => {
  const current = new Map<number, string[] | undefined>([
    [10, ['read']],
    [11, ['read', 'mentioned']],
    [12, ['read', 'wildcard_mentioned']],
    [13, []],
    [14, ['read']],
  ]);
  const locations = new Map<number, MessageLocation>([
    [10, { type: 'channel', channel_id: 3, topic: 'a' }],
    [11, { type: 'direct', user_ids: [4, 5] }],
    [12, { type: 'channel', channel_id: 3, topic: 'b' }],
    [13, { type: 'channel', channel_id: 3, topic: 'c' }],
  ]);
  const base = { user_id: 4, current, locations };

  it('tells where each message marked unread is, and whether it mentions the user', () =>
    flags
      .given([])
      .when({ ...base, op: 'remove', flag: 'read', message_ids: [13, 12, 11, 10, 14] })
      .then([
        {
          type: 'MessageFlagsUpdated',
          user_id: 4,
          op: 'remove',
          flag: 'read',
          message_ids: [10, 11, 12, 14],
          message_details: {
            '10': { type: 'channel', channel_id: 3, topic: 'a' },
            '11': { type: 'direct', user_ids: [4, 5], mentioned: true },
            '12': { type: 'channel', channel_id: 3, topic: 'b', mentioned: true },
          },
        },
      ]));

  it('adds no details to other changes', () =>
    flags
      .given([])
      .when({ ...base, op: 'add', flag: 'read', message_ids: [13] })
      .then([{ type: 'MessageFlagsUpdated', user_id: 4, op: 'add', flag: 'read', message_ids: [13] }]));
});

describe('evolveUserTopics', () => {
  it('sets each policy in the one map, never copying it (folding a user with many topics stays linear)', () => {
    const start = initialUserTopics();
    const folded = Array.from({ length: 1000 }, (_, i) => set(10, `topic ${i}`, followed)).reduce(evolveUserTopics, start);
    expect(folded.policies).toBe(start.policies);
    expect(folded.policies.size).toBe(1000);
    expect(visibilityPolicyOf(evolveUserTopics(folded, set(10, 'TOPIC 7', muted)), 10, 'topic 7')).toBe(muted);
  });
});
