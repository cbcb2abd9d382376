import { describe, expect, it } from '@jest/globals';
import { ROLE, type GroupMember } from '@teamchat/contracts';
import { ORGANIZATION_POLICY, orgAllows, type OrganizationPolicy, NO_CUSTOM_GROUPS } from '../src';

const NOW = 1_700_000_000;
const person = (role: number): GroupMember => ({ user_id: role, role, date_joined: NOW - 86400 });
const [owner, admin, moderator, member, guest] = [ROLE.owner, ROLE.administrator, ROLE.moderator, ROLE.member, ROLE.guest].map(person);

type GroupPolicy = { [K in keyof OrganizationPolicy]: OrganizationPolicy[K] extends number | boolean | null ? never : K }[keyof OrganizationPolicy];

describe("Zulip's default organization policy", () => {
  it.each<[GroupPolicy, GroupMember[]]>([
    ['canCreatePublicChannelGroup', [owner!, admin!, moderator!, member!]],
    ['canCreatePrivateChannelGroup', [owner!, admin!, moderator!, member!]],
    ['canAddSubscribersGroup', [owner!, admin!, moderator!, member!]],
    ['canSetTopicsPolicyGroup', [owner!, admin!, moderator!, member!]],
    ['canSetDeleteMessagePolicyGroup', [owner!, admin!, moderator!]],
    ['canMoveMessagesBetweenTopicsGroup', [owner!, admin!, moderator!, member!, guest!]],
    ['canMoveMessagesBetweenChannelsGroup', [owner!, admin!, moderator!, member!]],
    ['canDeleteOwnMessageGroup', [owner!, admin!, moderator!, member!, guest!]],
    ['canDeleteAnyMessageGroup', [owner!, admin!]],
    ['canMentionManyUsersGroup', [owner!, admin!]],
  ])('%s allows exactly its roles', (setting, allowed) => {
    const everybody = [owner!, admin!, moderator!, member!, guest!];
    expect(everybody.filter((user) => orgAllows(ORGANIZATION_POLICY[setting], user, NOW, NO_CUSTOM_GROUPS))).toEqual(allowed);
  });

  it('holds the limits Zulip ships with', () => {
    expect(ORGANIZATION_POLICY).toMatchObject({
      webPublicChannelsEnabled: false,
      messageContentEditLimitSeconds: 600,
      moveMessagesWithinChannelLimitSeconds: 7 * 24 * 3600,
      moveMessagesBetweenChannelsLimitSeconds: 7 * 24 * 3600,
      messageContentDeleteLimitSeconds: null,
      wildcardMentionLargeThreshold: 15,
    });
  });
});
