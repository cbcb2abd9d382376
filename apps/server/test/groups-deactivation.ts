/** The user groups HTTP suite (groups-suite.ts): deactivating a group, and mentions of groups (deactivated ones among them) in messages. */
import { describe, expect, it } from '@jest/globals';
import { GROUP, type GroupsKit, type Who } from './groups-kit';

export function groupDeactivationTests({ clients, ids, unique, members, subgroups, deactivate, listGroups, groupById, newGroup, refused, eventsUntil }: GroupsKit): void {
  describe('POST /user_groups/{id}/deactivate', () => {
    it('deactivates: removed for clients without the capability, updated for those with it; the name is free again', async () => {
      const name = unique('Short lived');
      const id = await newGroup('member', { name });
      const plain = (await clients.member2.post('/register', { event_types: ['user_group'] })).body.queue_id;
      const capable = (
        await clients.member2.post('/register', { event_types: ['user_group'], client_capabilities: { include_deactivated_groups: true } })
      ).body.queue_id;
      expect((await deactivate('member', id)).body.result).toBe('success');
      expect((await listGroups()).some((g) => g.id === id)).toBe(false);
      expect((await groupById(id)).deactivated).toBe(true);
      const removed = await eventsUntil('member2', plain, (evs) => evs.length > 0);
      expect(removed.map(({ id: _id, ...e }) => e)).toEqual([{ type: 'user_group', op: 'remove', group_id: id }]);
      const updated = await eventsUntil('member2', capable, (evs) => evs.length > 0);
      expect(updated.map(({ id: _id, ...e }) => e)).toEqual([{ type: 'user_group', op: 'update', group_id: id, data: { deactivated: true } }]);
      const withCapability = await clients.member2.post('/register', {
        fetch_event_types: ['realm_user_groups'],
        client_capabilities: { include_deactivated_groups: true },
      });
      expect(withCapability.body.realm_user_groups.find((g: any) => g.id === id)).toMatchObject({ deactivated: true });
      // A deactivated group takes no changes.
      await refused(() => members('member', id, { add: [ids.member2] }), 'User group is deactivated.');
      await refused(() => deactivate('member', id), 'User group is deactivated.');
      await newGroup('member', { name });
    });

    it('refuses while the group is a subgroup or names a setting of another group', async () => {
      const used = await newGroup('member');
      const parent = await newGroup('member', { subgroups: [used] });
      await refused(() => deactivate('member', used), 'You cannot deactivate a user group that is subgroup of any user group.');
      expect((await subgroups('member', parent, { delete: [used] })).body.result).toBe('success');
      await newGroup('member', { can_mention_group: { direct_members: [], direct_subgroups: [used, GROUP.moderators] } });
      await refused(() => deactivate('member', used), 'You cannot deactivate a user group which is used for setting.');
    });

    it('refuses an unknown group', async () => {
      await refused(() => deactivate('member', 999_999), 'Invalid user group');
    });
  });

  describe('mentions', () => {
    const send = (who: Who, content: string) => clients[who].post('/messages', { type: 'stream', to: 'general', topic: unique('mentions'), content });
    /** The flags each listening user's `message` event carries for the message. */
    async function flagsOf(queues: Partial<Record<Who, string>>, messageId: number): Promise<Partial<Record<Who, string[]>>> {
      const flags: Partial<Record<Who, string[]>> = {};
      for (const [who, queue] of Object.entries(queues) as [Who, string][]) {
        const events = await eventsUntil(who, queue, (evs) => evs.some((e) => e.type === 'message' && e.message.id === messageId));
        flags[who] = events.find((e) => e.type === 'message' && e.message.id === messageId)?.flags;
      }
      return flags;
    }

    it('renders @*group* and flags its members, through subgroups; @_*group* renders silently and flags nobody', async () => {
      const inner = await newGroup('member', { name: unique('Sous chefs'), members: [ids.guest] });
      const name = unique('Chefs');
      const id = await newGroup('member', { name, members: [ids.member2], subgroups: [inner] });
      const queues = {
        member2: (await clients.member2.post('/register', { event_types: ['message'] })).body.queue_id,
        guest: (await clients.guest.post('/register', { event_types: ['message'] })).body.queue_id,
        owner: (await clients.owner.post('/register', { event_types: ['message'] })).body.queue_id,
      };
      const loud = await send('member', `hello @*${name.toLowerCase()}*`);
      expect(loud.body.result).toBe('success');
      const flags = await flagsOf(queues, loud.body.id);
      expect(flags.member2).toContain('mentioned');
      expect(flags.guest).toContain('mentioned');
      expect(flags.owner).not.toContain('mentioned');
      const rendered = await clients.member.post('/messages/render', { content: `@*${name}* and @_*${name}*` });
      expect(rendered.body.rendered).toBe(
        `<p><span class="user-group-mention" data-user-group-id="${id}">@${name}</span> and ` +
          `<span class="user-group-mention silent" data-user-group-id="${id}">${name}</span></p>`,
      );
      const quiet = await send('member', `hello @_*${name}*`);
      expect((await flagsOf({ member2: queues.member2 }, quiet.body.id)).member2).not.toContain('mentioned');
    });

    /**
     * Read-your-writes holds per client: messaging learns of a group another client
     * created a moment after accounts acknowledged it. Waits until the preview shows it.
     */
    async function knownToMessaging(who: Who, name: string): Promise<void> {
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        const rendered = (await clients[who].post('/messages/render', { content: `@_*${name}*` })).body.rendered as string;
        if (rendered.includes('user-group-mention')) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`messaging never learned of group ${name}`);
    }

    it('refuses a mention the sender may not make (can_mention_group), and sends nothing; a silent one passes', async () => {
      const name = unique('Moderated');
      await newGroup('moderator', { name, members: [ids.member2], can_mention_group: GROUP.moderators });
      await knownToMessaging('member', name);
      const topic = unique('refused mention');
      const res = await clients.member.post('/messages', { type: 'stream', to: 'general', topic, content: `hi @*${name}*` });
      expect(res.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: `You are not allowed to mention user group '${name}'.` });
      const inTopic = await clients.member.get('/messages', {
        anchor: 'newest',
        num_before: 5,
        num_after: 0,
        narrow: [{ operator: 'channel', operand: 'general' }, { operator: 'topic', operand: topic }],
      });
      expect(inTopic.body.messages).toEqual([]);
      expect((await clients.moderator.post('/messages', { type: 'stream', to: 'general', topic, content: `hi @*${name}*` })).body.result).toBe('success');
      expect((await clients.member.post('/messages', { type: 'stream', to: 'general', topic, content: `hi @_*${name}*` })).body.result).toBe('success');
    });

    it('leaves an unknown or deactivated group as text', async () => {
      const name = unique('Gone');
      const id = await newGroup('member', { name });
      expect((await deactivate('member', id)).body.result).toBe('success');
      const rendered = await clients.member.post('/messages/render', { content: `@*${name}*` });
      expect(rendered.body.rendered).toBe(`<p>@<em>${name}</em></p>`);
    });
  });
}
