/**
 * What the user groups HTTP suite's parts share (groups-suite.ts runs them, each domain's
 * tests in a groups-<domain>.ts file): the system group ids, the logged-in users, and the
 * requests on groups with their checks.
 */
import { expect } from '@jest/globals';
import { eventsUntil as pollUntil, expectRefusedUnchanged, type LoggedIn, type Reply, type SeededUser as Who } from './suite-kit';

export type { Who };

/** System group ids (libs/contracts/src/groups.ts). */
export const GROUP = { internet: 1, everyone: 2, members: 3, fullmembers: 4, moderators: 5, administrators: 6, owners: 7, nobody: 8 } as const;

export type GroupsKit = ReturnType<typeof groupsKit>;

export function groupsKit({ clients, ids }: LoggedIn<Who>) {
  let serial = 0;
  const unique = (prefix: string) => `${prefix} ${++serial}`;

  const create = (who: Who, params: Record<string, unknown>) =>
    clients[who].post('/user_groups/create', { description: 'a group', members: [], ...params });
  const patch = (who: Who, groupId: number, params: Record<string, unknown>) =>
    clients[who].request('PATCH', `/user_groups/${groupId}`, params, { query: false });
  const members = (who: Who, groupId: number, params: Record<string, unknown>) => clients[who].post(`/user_groups/${groupId}/members`, params);
  const subgroups = (who: Who, groupId: number, params: Record<string, unknown>) => clients[who].post(`/user_groups/${groupId}/subgroups`, params);
  const deactivate = (who: Who, groupId: number) => clients[who].post(`/user_groups/${groupId}/deactivate`);
  const listGroups = async (params: Record<string, unknown> = {}) => (await clients.member.get('/user_groups', params)).body.user_groups as any[];
  const groupById = async (groupId: number) => (await listGroups({ include_deactivated_groups: true })).find((g) => g.id === groupId);

  async function newGroup(who: Who, params: Record<string, unknown> = {}): Promise<number> {
    const res = await create(who, { name: unique('team'), ...params });
    expect(res.body).toMatchObject({ result: 'success' });
    return res.body.group_id as number;
  }

  /** Refused with BAD_REQUEST and this message, and every group is as it was. */
  const refused = (request: () => Promise<Reply>, msg: string | RegExp) =>
    expectRefusedUnchanged(request, { msg }, () => listGroups({ include_deactivated_groups: true }));

  const eventsUntil = (who: Who, queue_id: string, done: (events: any[]) => boolean) => pollUntil(clients[who], queue_id, done);

  return { clients, ids, unique, create, patch, members, subgroups, deactivate, listGroups, groupById, newGroup, refused, eventsUntil };
}
