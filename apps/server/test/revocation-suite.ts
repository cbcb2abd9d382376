/**
 * Revocation takes effect the moment it is acknowledged (issue 36, item 1): while the
 * victim's clients keep requesting through every gateway, a deactivation (by an
 * administrator or by the user), a bot's deactivation, a role change and a bot's new key
 * are made; no request sent after the client saw the acknowledgement may be served with
 * the old credential or the old role. Before the fix the embedded server served about
 * half of the victim's next GET /users/me from the gateway's credentials cache.
 */
import { performance } from 'node:perf_hooks';
import { Client, type RunningServer } from './harness';
import { suiteServer, type Reply } from './suite-kit';
import { uploadFiles } from './uploads-suite';

interface Attempt {
  what: string;
  /** performance.now() when the request was handed to fetch. */
  started: number;
  status: number;
  code: string | undefined;
}

/** One request a victim's client keeps making; a success is its 200. */
type Probe = [what: string, send: (client: Client) => Promise<Reply>];

let uniqueCounter = 0;
const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${uniqueCounter++}`;

/** How long the victim's clients keep requesting after the acknowledgement. */
const AFTER_ACK_MS = 400;

/**
 * Every client requests (each probe in turn, one request at a time per client) for a
 * while, so that every gateway has cached the credentials; then, with the server quiet,
 * the revocation; the instant its acknowledgement is in, every client sends every probe
 * at once (the victim's very next request, the moment of greatest risk), and then keeps
 * requesting for `AFTER_ACK_MS`. Returns every attempt and when the acknowledgement
 * reached the test.
 */
async function race(clients: Client[], probes: readonly Probe[], revoke: () => Promise<Reply>): Promise<{ attempts: Attempt[]; ackAt: number }> {
  const attempts: Attempt[] = [];
  const attempt = async (client: Client, [what, send]: Probe) => {
    const started = performance.now();
    const reply = await send(client);
    attempts.push({ what, started, status: reply.status, code: reply.body.code as string | undefined });
  };
  const keepRequesting = async (until: number) => {
    await Promise.all(clients.map(async (client, offset) => {
      for (let i = offset; performance.now() < until; i++) await attempt(client, probes[i % probes.length]!);
    }));
  };
  await keepRequesting(performance.now() + 150);
  const ack = await revoke();
  const ackAt = performance.now();
  const burst = clients.flatMap((client) => probes.map((probe) => attempt(client, probe)));
  expect(ack.body).toMatchObject({ result: 'success' });
  await Promise.all([...burst, keepRequesting(ackAt + AFTER_ACK_MS)]);
  return { attempts, ackAt };
}

/** What the race must show: served before, never after, and enough requests after to tell. */
function expectRevoked({ attempts, ackAt }: { attempts: Attempt[]; ackAt: number }, refusal: (a: Attempt) => boolean) {
  const before = attempts.filter((a) => a.started < ackAt);
  const after = attempts.filter((a) => a.started > ackAt);
  expect(before.filter((a) => a.status === 200).length).toBeGreaterThan(0);
  expect(after.length).toBeGreaterThanOrEqual(10);
  expect(after.filter((a) => !refusal(a))).toEqual([]);
}

const unauthenticated = (a: Attempt) => a.status === 401;

export function revocationSuite(label: string, start: () => Promise<RunningServer & { gateways?: string[] }>) {
  describe(`${label}: revocation takes effect when it is acknowledged`, () => {
    const suite = suiteServer(start, ['admin', 'owner', 'member'], 180_000);
    /** Every gateway's API URL (one in the embedded mode). */
    const gateways = () => suite.server.gateways ?? [suite.server.api];
    /** Two clients per gateway with the same credentials. */
    const clientsOf = (email: string, apiKey: string) => gateways().flatMap((api) => [new Client(api, email, apiKey), new Client(api, email, apiKey)]);
    /** Through the first gateway; the victims' clients use all of them. */
    const on = (who: 'admin' | 'owner' | 'member') => new Client(gateways()[0]!, suite.clients[who].email, suite.clients[who].apiKey);

    async function newUser(role?: number): Promise<{ user_id: number; email: string; apiKey: string }> {
      const email = `${unique('victim')}@example.com`;
      const created = await on('admin').post('/users', { email, full_name: 'Victim', password: 'correct horse battery' });
      expect(created.body).toMatchObject({ result: 'success' });
      if (role !== undefined) expect((await on('owner').request('PATCH', `/users/${created.body.user_id}`, { role }, { query: false })).body.result).toBe('success');
      const login = await new Client(suite.server.api).post('/fetch_api_key', { username: email, password: 'correct horse battery' });
      expect(login.body.result).toBe('success');
      return { user_id: created.body.user_id, email, apiKey: login.body.api_key };
    }

    /** The victim's reads of their own data and everyone's, an upload, and a poll of their queue. */
    async function readingProbes(client: Client): Promise<Probe[]> {
      const queue = await client.post('/register', { event_types: JSON.stringify(['message']) });
      expect(queue.body.result).toBe('success');
      return [
        ['GET /users/me', (c) => c.get('/users/me')],
        ['GET /users', (c) => c.get('/users')],
        ['GET /messages', (c) => c.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([]) })],
        ['GET /events', (c) => c.get('/events', { queue_id: queue.body.queue_id, last_event_id: -1, dont_block: true })],
        ['POST /register', (c) => c.post('/register', { event_types: JSON.stringify(['message']), fetch_event_types: JSON.stringify(['realm_user']) })],
        ['POST /user_uploads', (c) => uploadFiles(c, [{ name: 'note.txt', bytes: Buffer.from('after the revocation?'), type: 'text/plain' }])],
      ];
    }

    it('refuses a user deactivated by an administrator from the acknowledgement on, through every gateway', async () => {
      for (let round = 0; round < 3; round++) {
        const victim = await newUser();
        const clients = clientsOf(victim.email, victim.apiKey);
        const probes = await readingProbes(clients[0]!);
        const result = await race(clients, probes, () => on('admin').request('DELETE', `/users/${victim.user_id}`));
        expectRevoked(result, (a) => a.status === 401 && a.code === 'USER_DEACTIVATED');
      }
    });

    it('refuses a user who deactivated their own account, on their other clients', async () => {
      const victim = await newUser();
      const clients = clientsOf(victim.email, victim.apiKey);
      const probes = await readingProbes(clients[0]!);
      const self = new Client(gateways()[0]!, victim.email, victim.apiKey);
      expectRevoked(await race(clients, probes, () => self.request('DELETE', '/users/me')), unauthenticated);
    });

    it("refuses a bot's old key once a new one is acknowledged, and a deactivated bot", async () => {
      for (const revoke of ['regenerate', 'deactivate'] as const) {
        const created = await on('member').post('/bots', { full_name: 'Racing Bot', short_name: unique('racer') });
        expect(created.body.result).toBe('success');
        const email = (await on('member').get(`/users/${created.body.user_id}`)).body.user.email as string;
        const clients = clientsOf(email, created.body.api_key);
        const probes: Probe[] = [
          ['GET /users/me', (c) => c.get('/users/me')],
          ['GET /messages', (c) => c.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([]) })],
          ['POST /messages', (c) => c.post('/messages', { type: 'stream', to: 'general', topic: 'revocation', content: 'still here?' })],
        ];
        const result = await race(clients, probes, () =>
          revoke === 'regenerate' ? on('member').post(`/bots/${created.body.user_id}/api_key/regenerate`) : on('member').request('DELETE', `/bots/${created.body.user_id}`),
        );
        expectRevoked(result, unauthenticated);
      }
    });

    it('refuses a second deactivation clearly, and ends concurrent deactivations and reactivations in one state that every gateway agrees on', async () => {
      const victim = await newUser();
      expect((await on('admin').request('DELETE', `/users/${victim.user_id}`)).body.result).toBe('success');
      const again = await on('admin').request('DELETE', `/users/${victim.user_id}`);
      expect({ status: again.status, msg: again.body.msg }).toEqual({ status: 400, msg: 'User is already deactivated' });
      const clients = clientsOf(victim.email, victim.apiKey);
      for (let round = 0; round < 4; round++) {
        const admins = gateways().map((api) => new Client(api, suite.clients.admin.email, suite.clients.admin.apiKey));
        // Both at once, through different gateways: one wins, the other is refused or applies after it.
        const replies = await Promise.all([
          admins[0]!.post(`/users/${victim.user_id}/reactivate`),
          admins[admins.length - 1]!.request('DELETE', `/users/${victim.user_id}`),
          ...clients.map((c) => c.get('/users/me')),
        ]);
        for (const reply of replies.slice(0, 2)) {
          expect(reply.status === 200 || ['User is already deactivated', 'User is already active'].includes(reply.body.msg)).toBe(true);
        }
        const active = (await on('admin').get(`/users/${victim.user_id}`)).body.user.is_active as boolean;
        // Whatever the order, the credentials answer as the stored state says, on every gateway.
        for (const client of clients) expect({ round, status: (await client.get('/users/me')).status }).toEqual({ round, status: active ? 200 : 401 });
        if (active) expect((await on('admin').request('DELETE', `/users/${victim.user_id}`)).body.result).toBe('success');
      }
    });

    it('serves nothing with the old role once a demotion is acknowledged, in every service', async () => {
      const victim = await newUser(200);
      const clients = clientsOf(victim.email, victim.apiKey);
      const probes: Probe[] = [
        // accounts decides on the caller's role
        ['POST /realm/playgrounds', (c) => c.post('/realm/playgrounds', { name: unique('Play'), pygments_language: 'Python', url_template: 'https://play.example.com/?code={code}' })],
        // and channels
        ['PATCH /streams/{id}', (c) => c.request('PATCH', `/streams/${generalId}`, { description: unique('Described') }, { query: false })],
      ];
      let generalId = 0;
      generalId = (await on('admin').get('/get_stream_id', { stream: 'general' })).body.stream_id;
      expect(generalId).toBeGreaterThan(0);
      const result = await race(clients, probes, () => on('owner').request('PATCH', `/users/${victim.user_id}`, { role: 400 }, { query: false }));
      expectRevoked(result, (a) => a.status === 400);
    });
  });
}
