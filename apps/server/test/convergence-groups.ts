/** Convergence rows (convergence-suite.ts): user groups: creation, changes, members, subgroups, group-setting permissions, deactivation. */
import { unique, type ActionRow } from './convergence-rows';

export const GROUP_ACTIONS: ActionRow[] = [
  {
    name: 'create a user group',
    observers: ['owner', 'member', 'guest'],
    perform: ({ clients, ids }) =>
      clients.member.post('/user_groups/create', { name: unique('cooks'), description: 'kitchen', members: JSON.stringify([ids.member, ids.guest]) }),
  },
  {
    name: 'update a user group',
    observers: ['member', 'guest'],
    perform: async ({ clients }) => {
      const { group_id } = (await clients.member.post('/user_groups/create', { name: unique('bakers'), description: '', members: '[]' })).body;
      return clients.member.request('PATCH', `/user_groups/${group_id}`, {
        name: unique('pastry'),
        can_mention_group: JSON.stringify({ new: 5, old: 2 }),
      });
    },
  },
  {
    name: 'add and remove user group members',
    observers: ['member', 'member2', 'guest'],
    perform: async ({ clients, ids }) => {
      const { group_id } = (await clients.member.post('/user_groups/create', { name: unique('pair'), description: '', members: '[]' })).body;
      await clients.member.post(`/user_groups/${group_id}/members`, { add: JSON.stringify([ids.member2, ids.guest]) });
      return clients.member.post(`/user_groups/${group_id}/members`, { delete: JSON.stringify([ids.guest]) });
    },
  },
  {
    name: 'add and remove user group subgroups',
    observers: ['owner', 'member'],
    perform: async ({ clients }) => {
      const create = async () => (await clients.member.post('/user_groups/create', { name: unique('nest'), description: '', members: '[]' })).body.group_id;
      const [inner, outer] = [await create(), await create()];
      await clients.member.post(`/user_groups/${outer}/subgroups`, { add: JSON.stringify([inner, 5]) });
      return clients.member.post(`/user_groups/${outer}/subgroups`, { delete: JSON.stringify([5]) });
    },
  },
  {
    name: 'add a member to a group that may subscribe others to a private channel',
    observers: ['owner', 'member', 'member2'],
    perform: async ({ clients, ids }) => {
      const { group_id } = (await clients.owner.post('/user_groups/create', { name: unique('gatekeepers'), description: '', members: '[]' })).body;
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: unique('gated') }]), invite_only: true, can_add_subscribers_group: group_id });
      return clients.owner.post(`/user_groups/${group_id}/members`, { add: JSON.stringify([ids.member]) });
    },
  },
  {
    name: 'remove a member from a group that administers a private channel, through a subgroup',
    observers: ['owner', 'member', 'member2'],
    perform: async ({ clients, ids }) => {
      const create = async (members: number[]) =>
        (await clients.owner.post('/user_groups/create', { name: unique('stewards'), description: '', members: JSON.stringify(members) })).body.group_id;
      const [inner, outer] = [await create([ids.member]), await create([])];
      await clients.owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: unique('stewarded') }]), invite_only: true, can_administer_channel_group: outer });
      await clients.owner.post(`/user_groups/${outer}/subgroups`, { add: JSON.stringify([inner]) });
      return clients.owner.post(`/user_groups/${inner}/members`, { delete: JSON.stringify([ids.member]) });
    },
  },
  {
    name: 'deactivate a user group',
    observers: ['member', 'guest'],
    perform: async ({ clients }) => {
      const { group_id } = (await clients.member.post('/user_groups/create', { name: unique('brief'), description: '', members: '[]' })).body;
      return clients.member.post(`/user_groups/${group_id}/deactivate`);
    },
  },
  {
    name: 'deactivate a user group, for clients that list deactivated groups',
    observers: ['member', 'owner'],
    register: { client_capabilities: JSON.stringify({ include_deactivated_groups: true }) },
    perform: async ({ clients }) => {
      const { group_id } = (await clients.member.post('/user_groups/create', { name: unique('kept'), description: '', members: '[]' })).body;
      return clients.member.post(`/user_groups/${group_id}/deactivate`);
    },
  },
];
