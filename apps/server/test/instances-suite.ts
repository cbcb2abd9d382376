/**
 * What running several instances of every service and several gateways takes (issue 14,
 * item 5), over real processes and a real nats-server: event queues named after the
 * events instance that holds them and polled through either gateway, a lost instance's
 * queues answering BAD_EVENT_QUEUE_ID, read-your-writes across gateways, concurrent
 * commands on one stream from both gateways with no lost update, and the bus lost and
 * back (503 meanwhile, then recovery with every acknowledged fact exactly once).
 */
import { Client, type DistributedServer } from './harness';
import { suiteServer } from './suite-kit';

export function instancesSuite(start: () => Promise<DistributedServer>) {
  describe('several instances of every service, two gateways', () => {
    // No kit log-in: `api` alternates between the gateways, and each client here keeps to one.
    const suite = suiteServer(start, [], 180_000);
    /** One client per gateway for each user: the same credentials, a different gateway. */
    let viaA: Record<string, Client>;
    let viaB: Record<string, Client>;
    const users = ['member', 'member2', 'owner', 'admin'] as const;

    beforeAll(async () => {
      const [a, b] = suite.server.gateways;
      const logins = await Promise.all(users.map((u) => Client.login(a!, `${u}@example.com`)));
      viaA = Object.fromEntries(users.map((u, i) => [u, logins[i]!]));
      viaB = Object.fromEntries(users.map((u, i) => [u, new Client(b!, logins[i]!.email, logins[i]!.apiKey)]));
    }, 60_000);

    it('names the events instance in each queue id, and polls reach it through either gateway', async () => {
      const queues: string[] = [];
      for (let i = 0; i < 16; i++) {
        const via = i % 2 === 0 ? viaA : viaB;
        const { body } = await via.member2!.post('/register', { event_types: ['message'] });
        queues.push(body.queue_id);
      }
      const instances = new Set(queues.map((id) => id.split(':')[0]));
      // NATS spreads registrations over the queue group: both instances hold queues.
      expect([...instances].sort()).toEqual(['events-0', 'events-1']);
      const sent = await viaA.member!.post('/messages', { type: 'stream', to: 'general', topic: 'instances', content: 'to every queue' });
      expect(sent.body.result).toBe('success');
      for (const [i, queue_id] of queues.entries()) {
        const via = i % 2 === 0 ? viaB : viaA;
        const { body } = await via.member2!.get('/events', { queue_id, last_event_id: -1 });
        expect({ queue_id, result: body.result, ids: body.events.map((e: { message?: { id: number } }) => e.message?.id) }).toEqual({
          queue_id,
          result: 'success',
          ids: [sent.body.id],
        });
      }
      for (const queue_id of queues) expect((await viaB.member2!.request('DELETE', '/events', { queue_id })).body.result).toBe('success');
    });

    it('refuses queue ids of no running instance, or naming none, with BAD_EVENT_QUEUE_ID', async () => {
      for (const queue_id of ['events-9:0f8e', 'not.a.name:0f8e', 'no-instance-at-all', 'events-0']) {
        for (const [method, via] of [['GET', viaA], ['DELETE', viaB]] as const) {
          const { status, body } = await via.member!.request(method, '/events', { queue_id, ...(method === 'GET' ? { last_event_id: -1 } : {}) });
          expect({ method, queue_id, status, code: body.code, echoed: body.queue_id }).toEqual({ method, queue_id, status: 400, code: 'BAD_EVENT_QUEUE_ID', echoed: queue_id });
        }
      }
    });

    it('reads its own writes through the other gateway, at once', async () => {
      for (let i = 0; i < 15; i++) {
        const [writer, reader] = i % 2 === 0 ? [viaA, viaB] : [viaB, viaA];
        const sent = await writer.member!.post('/messages', { type: 'stream', to: 'general', topic: 'ryw', content: `write ${i}` });
        const read = await reader.member!.get(`/messages/${sent.body.id}`);
        expect({ i, content: read.body.message?.content }).toEqual({ i, content: `<p>write ${i}</p>` });
        await writer.member!.post('/messages/flags', { messages: [sent.body.id], op: 'add', flag: 'starred' });
        const flags = (await reader.member!.get(`/messages/${sent.body.id}`)).body.message.flags as string[];
        expect({ i, starred: flags.includes('starred') }).toEqual({ i, starred: true });
      }
    });

    it('keeps every one of concurrent changes to one stream made through both gateways', async () => {
      const sent = await viaA.member!.post('/messages', { type: 'stream', to: 'general', topic: 'concurrency', content: 'react to me' });
      const emoji = ['smile', 'heart', 'tada', 'rocket', 'eyes'];
      const results = await Promise.all(
        users.flatMap((user, u) =>
          emoji.map((emoji_name, e) => ((u + e) % 2 === 0 ? viaA : viaB)[user]!.post(`/messages/${sent.body.id}/reactions`, { emoji_name })),
        ),
      );
      expect(results.map((r) => r.body.result)).toEqual(results.map(() => 'success'));
      const { body } = await viaB.member!.get(`/messages/${sent.body.id}`);
      const reactions = (body.message.reactions as { emoji_name: string; user_id: number }[]).map((r) => `${r.user_id}:${r.emoji_name}`);
      expect(reactions).toHaveLength(users.length * emoji.length);
      expect(new Set(reactions).size).toBe(users.length * emoji.length);
    });

    it("answers BAD_EVENT_QUEUE_ID for the queues of a lost events instance, and serves the other's", async () => {
      const queues: string[] = [];
      while (new Set(queues.map((id) => id.split(':')[0])).size < 2) {
        queues.push((await viaA.member2!.post('/register', { event_types: ['message'] })).body.queue_id);
        if (queues.length > 40) throw new Error('every registration went to one instance');
      }
      await suite.server.killInstance('events', 0);
      for (const queue_id of queues) {
        const { status, body } = await viaB.member2!.get('/events', { queue_id, last_event_id: -1, dont_block: true });
        if (queue_id.startsWith('events-0:')) {
          expect({ status, code: body.code, queue_id: body.queue_id }).toEqual({ status: 400, code: 'BAD_EVENT_QUEUE_ID', queue_id });
        } else {
          expect({ status, result: body.result }).toEqual({ status: 200, result: 'success' });
        }
      }
      // A client that registers again lands on the instance that is left.
      const again = await viaA.member2!.post('/register', { event_types: ['message'] });
      expect(again.body.queue_id).toMatch(/^events-1:/);
    });

    it('answers 503 while nats-server is down, and recovers by itself with every acknowledged message once', async () => {
      const acknowledged: number[] = [];
      const send = async (content: string) => {
        const res = await viaA.member!.post('/messages', { type: 'stream', to: 'general', topic: 'outage', content }).catch(() => undefined);
        if (res?.body.result === 'success') acknowledged.push(res.body.id);
        return res;
      };
      await send('before');
      await suite.server.stopNats();
      const during = await send('during');
      expect({ status: during?.status, code: during?.body.code }).toEqual({ status: 503, code: 'SERVICE_UNAVAILABLE' });
      await suite.server.startNats();
      // Every process reconnects on its own; the first sends may still meet a reconnecting one.
      const deadline = Date.now() + 30_000;
      let after: Awaited<ReturnType<typeof send>>;
      do {
        after = await send('after');
        if (after?.body.result !== 'success') await new Promise((resolve) => setTimeout(resolve, 250));
      } while (after?.body.result !== 'success' && Date.now() < deadline);
      expect(after?.body.result).toBe('success');
      const read = await viaB.member!.get('/messages', { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'topic', operand: 'outage' }] });
      const ids = (read.body.messages as { id: number }[]).map((m) => m.id);
      expect(ids).toEqual([...new Set(ids)]);
      for (const id of acknowledged) expect(ids).toContain(id);
    }, 60_000);
  });
}
