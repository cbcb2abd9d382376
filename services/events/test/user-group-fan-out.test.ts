/** The user group facts as client events: to whom, in which form (each checked against its client-event schema). */
import { describe, expect, it } from '@jest/globals';
import { ClientEvent, SYSTEM_GROUP, type Fact } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import type { QueueOptions } from '../src/domain/event-queue';
import { deliveriesFor } from '../src/projections/fan-out';

const stored = (data: Fact): StoredFact => ({
  id: 'fact-1',
  stream: 'user_groups',
  revision: 0,
  position: 42,
  type: data.type,
  data,
  metadata: {},
  created: 1_700_000_000_000,
});

const options = (extra: Partial<QueueOptions> = {}): QueueOptions => ({
  user_id: 4,
  event_types: null,
  apply_markdown: true,
  client_gravatar: true,
  empty_topic_name: false,
  narrow: [],
  ...extra,
});

/** Every delivery's recipients and event, for a queue with these options, schema-checked. */
function delivered(fact: Fact, extra: Partial<QueueOptions> = {}) {
  return deliveriesFor(stored(fact), { apiKeyOf: (salt) => `key-of-${salt}` }).map((d) => {
    const event = d.eventFor({ id: 'q', options: options(extra) });
    if (event) expect(ClientEvent.parse(event)).toEqual(event);
    return { user_ids: d.user_ids, event };
  });
}

const audience_user_ids = [1, 4, 6];

describe('user group fan-out', () => {
  it('announces a new group whole, to the organization', () => {
    const fact: Fact = {
      type: 'UserGroupCreated',
      group_id: 9,
      name: 'Cooks',
      description: 'kitchen',
      members: [4],
      subgroup_ids: [SYSTEM_GROUP.moderators],
      creator_id: 4,
      date_created: 1_700_000_000,
      can_add_members_group: { direct_members: [4], direct_subgroups: [] },
      can_join_group: SYSTEM_GROUP.nobody,
      can_leave_group: SYSTEM_GROUP.everyone,
      can_manage_group: { direct_members: [4], direct_subgroups: [] },
      can_mention_group: SYSTEM_GROUP.everyone,
      can_remove_members_group: SYSTEM_GROUP.nobody,
      audience_user_ids,
    };
    expect(delivered(fact)).toEqual([
      {
        user_ids: audience_user_ids,
        event: {
          type: 'user_group',
          op: 'add',
          group: {
            id: 9,
            name: 'Cooks',
            description: 'kitchen',
            members: [4],
            direct_subgroup_ids: [SYSTEM_GROUP.moderators],
            is_system_group: false,
            date_created: 1_700_000_000,
            creator_id: 4,
            deactivated: false,
            can_add_members_group: { direct_members: [4], direct_subgroups: [] },
            can_join_group: SYSTEM_GROUP.nobody,
            can_leave_group: SYSTEM_GROUP.everyone,
            can_manage_group: { direct_members: [4], direct_subgroups: [] },
            can_mention_group: SYSTEM_GROUP.everyone,
            can_remove_members_group: SYSTEM_GROUP.nobody,
          },
        },
      },
    ]);
  });

  it.each<[string, Fact, Record<string, unknown>]>([
    ['an update', { type: 'UserGroupUpdated', group_id: 9, changes: { name: 'Chefs', can_join_group: 3 }, audience_user_ids }, { op: 'update', group_id: 9, data: { name: 'Chefs', can_join_group: 3 } }],
    ['added members', { type: 'UserGroupMembersAdded', group_id: 9, user_ids: [5, 6], audience_user_ids }, { op: 'add_members', group_id: 9, user_ids: [5, 6] }],
    ['removed members', { type: 'UserGroupMembersRemoved', group_id: 9, user_ids: [6], audience_user_ids }, { op: 'remove_members', group_id: 9, user_ids: [6] }],
    ['added subgroups', { type: 'UserGroupSubgroupsAdded', group_id: 9, subgroup_ids: [10], audience_user_ids }, { op: 'add_subgroups', group_id: 9, direct_subgroup_ids: [10] }],
    ['removed subgroups', { type: 'UserGroupSubgroupsRemoved', group_id: 9, subgroup_ids: [10], audience_user_ids }, { op: 'remove_subgroups', group_id: 9, direct_subgroup_ids: [10] }],
  ])('announces %s', (_, fact, event) => {
    expect(delivered(fact)).toEqual([{ user_ids: audience_user_ids, event: { type: 'user_group', ...event } }]);
  });

  it('tells a deactivation as a removal, or as an update to queues that list deactivated groups', () => {
    const fact: Fact = { type: 'UserGroupDeactivated', group_id: 9, audience_user_ids };
    expect(delivered(fact)).toEqual([{ user_ids: audience_user_ids, event: { type: 'user_group', op: 'remove', group_id: 9 } }]);
    expect(delivered(fact, { include_deactivated_groups: true })).toEqual([
      { user_ids: audience_user_ids, event: { type: 'user_group', op: 'update', group_id: 9, data: { deactivated: true } } },
    ]);
  });
});
