/** The user groups HTTP suite (groups-suite.ts): the authorization matrix: each operation on a group, for every role. */
import { describe, expect, it } from '@jest/globals';
import { GROUP, type GroupsKit, type Who } from './groups-kit';
import type { Reply } from './suite-kit';

export function groupAuthorizationTests({ ids, unique, create, patch, members, subgroups, deactivate, newGroup, refused }: GroupsKit): void {
  describe('authorization matrix', () => {
    // A group the owner created, managed (can_manage_group) by member2, with
    // role:moderators as a subgroup. Each row: operation → who may (owners manage every
    // group: can_manage_all_groups is role:owners).
    // The bot is the member added and removed: no actor, so no row is a join or a leave.
    type Op = (who: Who, id: number) => Promise<Reply>;
    const OPS: [string, Op, Who[], Op?][] = [
      ['change the description', (who, id) => patch(who, id, { description: `by ${who}` }), ['owner', 'member2']],
      ['change a setting', (who, id) => patch(who, id, { can_join_group: { new: GROUP.members } }), ['owner', 'member2']],
      ['add a member', (who, id) => members(who, id, { add: [ids.bot] }), ['owner', 'member2']],
      [
        'remove a member',
        (who, id) => members(who, id, { delete: [ids.bot] }),
        ['owner', 'member2'],
        (_who, id) => members('owner', id, { add: [ids.bot] }),
      ],
      ['join', (who, id) => members(who, id, { add: [ids[who]] }), ['owner', 'member2']],
      ['add a subgroup', (who, id) => subgroups(who, id, { add: [GROUP.owners] }), ['owner', 'member2']],
      ['remove a subgroup', (who, id) => subgroups(who, id, { delete: [GROUP.moderators] }), ['owner', 'member2']],
      ['deactivate', (who, id) => deactivate(who, id), ['owner', 'member2']],
    ];
    const ACTORS: Who[] = ['owner', 'admin', 'moderator', 'member', 'member2', 'guest'];

    for (const [name, op, allowed, setup] of OPS) {
      for (const who of ACTORS) {
        const may = allowed.includes(who);
        it(`${who} ${may ? 'may' : 'may not'} ${name}`, async () => {
          const id = await newGroup('owner', {
            subgroups: [GROUP.moderators],
            can_manage_group: { direct_members: [ids.member2], direct_subgroups: [] },
          });
          if (setup) expect((await setup(who, id)).body.result).toBe('success');
          if (may) expect((await op(who, id)).body).toMatchObject({ result: 'success' });
          else await refused(() => op(who, id), 'Insufficient permission');
        });
      }
    }

    it('everyone who is a member may leave (can_leave_group is role:everyone), guests included', async () => {
      for (const who of ACTORS) {
        const id = await newGroup('owner', { members: [ids[who]] });
        expect((await members(who, id, { delete: [ids[who]] })).body).toMatchObject({ result: 'success' });
      }
    });

    it('creating: every role but guests', async () => {
      for (const who of ACTORS) {
        const res = await create(who, { name: unique(`by ${who}`) });
        expect(res.body.result).toBe(who === 'guest' ? 'error' : 'success');
      }
    });
  });
}
