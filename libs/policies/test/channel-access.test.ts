import { describe, expect, it } from '@jest/globals';
import { channelFromCreated, ROLE, SYSTEM_GROUP, type ChannelView, type FactOf, type GroupMember } from '@teamchat/contracts';
import { channelCreatedFact } from '@teamchat/platform/testing';
import { canAddSubscribers, canAdministerChannel, hasContentAccess, metadataAudience, ORGANIZATION_POLICY, NO_CUSTOM_GROUPS } from '../src';

const NOW_S = 1_700_000_000;
const JOINED = 1_600_000_000;

const person = (user_id: number, role: number): GroupMember => ({ user_id, role, date_joined: JOINED });
const owner = person(1, ROLE.owner);
const admin = person(2, ROLE.administrator);
const moderator = person(3, ROLE.moderator);
const mark = person(4, ROLE.member);
const mary = person(5, ROLE.member);
const guest = person(6, ROLE.guest);
const bot = person(7, ROLE.member);
const users = [owner, admin, moderator, mark, mary, guest, bot];
const NON_GUESTS = [1, 2, 3, 4, 5, 7];

/** A channel as stored before group-settings existed, created by `creator_id`, read as today's shape. */
const channelCreated = (overrides: Partial<FactOf<'ChannelCreated'>> = {}) => channelCreatedFact({ name: 'c', creator_id: 4, date_created: NOW_S, ...overrides });
const view = (overrides: Partial<ChannelView> = {}): ChannelView => ({ ...channelFromCreated(channelCreated()), ...overrides });

const publicChannel = view();
const privateChannel = view({ invite_only: true });
const webPublic = view({ invite_only: true, is_web_public: true });
const guestsMayAdd = view({ invite_only: true, can_add_subscribers_group: { direct_members: [6, 5], direct_subgroups: [] } });

describe('hasContentAccess', () => {
  it.each([
    ['a member, public channel', publicChannel, mary, false, true],
    ['a guest, public channel', publicChannel, guest, false, false],
    ['a subscribed guest', publicChannel, guest, true, true],
    ['a guest, web-public channel', webPublic, guest, false, true],
    ['a member, private channel', privateChannel, mary, false, false],
    ['an administrator, private channel', privateChannel, admin, false, false],
    ['a subscriber, private channel', privateChannel, mary, true, true],
    ['a member the channel lets add subscribers', guestsMayAdd, mary, false, true],
    ['a guest the channel names, unsubscribed', guestsMayAdd, guest, false, false],
  ])('%s', (_, channel, user, subscribed, expected) => {
    expect(hasContentAccess(channel, user, subscribed, NOW_S, NO_CUSTOM_GROUPS)).toBe(expected);
  });
});

describe('canAdministerChannel', () => {
  it.each([
    ['the owner', owner, true],
    ['an administrator', admin, true],
    ['a moderator', moderator, false],
    ['the creator (can_administer_channel_group)', mark, true],
    ['another member', mary, false],
    ['a guest', guest, false],
  ])('%s', (_, user, expected) => {
    expect(canAdministerChannel(privateChannel, user, NOW_S, NO_CUSTOM_GROUPS)).toBe(expected);
  });

  it('never lets a guest administer, whatever group the setting names', () => {
    const namesGuest = view({ can_administer_channel_group: { direct_members: [6], direct_subgroups: [] } });
    expect(canAdministerChannel(namesGuest, guest, NOW_S, NO_CUSTOM_GROUPS)).toBe(false);
  });
});

describe('canAddSubscribers', () => {
  const onlyAdminsOrganization = { ...ORGANIZATION_POLICY, canAddSubscribersGroup: SYSTEM_GROUP.administrators };
  it.each([
    ['a member, by the organization default', mary, ORGANIZATION_POLICY, true],
    ['a guest, by the organization default', guest, ORGANIZATION_POLICY, false],
    ['a member, when only administrators may', mary, onlyAdminsOrganization, false],
    ['the channel administrator, when only administrators may', mark, onlyAdminsOrganization, true],
    ['a moderator the channel names, when only administrators may', moderator, onlyAdminsOrganization, true],
  ])('%s', (_, user, policy, expected) => {
    const channel = view({ can_add_subscribers_group: { direct_members: [3], direct_subgroups: [] } });
    expect(canAddSubscribers(channel, user, NOW_S, NO_CUSTOM_GROUPS, policy)).toBe(expected);
  });
});

describe('metadataAudience', () => {
  it('is every non-guest and the subscribed guests for a public channel', () => {
    expect(metadataAudience(view(), users, new Set(), NOW_S, NO_CUSTOM_GROUPS)).toEqual(NON_GUESTS);
    expect(metadataAudience(view(), users, new Set([6]), NOW_S, NO_CUSTOM_GROUPS)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('is the subscribers, administrators and channel administrators for a private channel', () => {
    expect(metadataAudience(view({ invite_only: true }), users, new Set([5]), NOW_S, NO_CUSTOM_GROUPS)).toEqual([1, 2, 4, 5]);
  });

  it('adds whoever can_add_subscribers_group names, never a guest', () => {
    const channel = view({ invite_only: true, can_add_subscribers_group: { direct_members: [3, 6], direct_subgroups: [] } });
    expect(metadataAudience(channel, users, new Set(), NOW_S, NO_CUSTOM_GROUPS)).toEqual([1, 2, 3, 4]);
  });
});

