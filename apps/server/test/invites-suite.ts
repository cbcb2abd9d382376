/**
 * The HTTP suite for invitations and allowed domains (issue 16): POST/GET/DELETE /invites,
 * resend, reusable links, /realm/domains, and the registration page a link opens — run
 * against every mode. Emails are read from the development fallback outbox under the data
 * directory (both modes share it). Every refused request is checked to have changed nothing.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { Client, type RunningServer } from './harness';
import { authorizationMatrix, del, eventsUntil, expectRefused, invitationLink, mailOf, onOrigin, suiteServer, type Reply } from './suite-kit';

export function invitesSuite(mode: string, start: (env: Record<string, string>) => Promise<RunningServer>) {
  describe(`invitations and allowed domains (${mode})`, () => {
    const suite = suiteServer(() => start({ TEAMCHAT_INVITES_DAILY_LIMIT: '20' }), ['owner', 'admin', 'member', 'guest']);
    const { ids } = suite;
    let base: string;
    let owner: Client;
    let admin: Client;
    let member: Client;
    let guest: Client;
    let dataDir: string;
    const channels: Record<string, number> = {};

    beforeAll(async () => {
      ({ owner, admin, member, guest } = suite.clients);
      dataDir = suite.server.dataDir!;
      base = suite.server.api.replace(/\/api\/v1$/, '');
      const registered = await owner.post('/register', { fetch_event_types: ['subscription'] });
      for (const s of registered.body.subscriptions) channels[s.name] = s.stream_id;
    });

    const refusedWith = (reply: Reply, code?: string, status?: number) => expectRefused(reply, { code, status });
    const invites = async () => (await admin.get('/invites')).body.invites as any[];
    /** The mail of the development outbox (both modes share the data directory), oldest first. */
    const outbox = () => mailOf(dataDir);
    const linkFor = async (email: string) => onOrigin(await invitationLink(dataDir, email), base);
    /** A page's status, its body read (an unread body holds the connection open, and the server's stop waits for it). */
    const statusOf = async (url: string) => {
      const res = await fetch(url);
      await res.text();
      return res.status;
    };
    /** Opens the page and submits its form as a browser would (cookie and hidden token). */
    async function signUp(link: string, fields: Record<string, string>, options: { csrf?: 'omit' | 'wrong' } = {}) {
      const page = await fetch(link);
      const html = await page.text();
      const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
      const token = /name="csrf_token" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
      const body = new URLSearchParams({ ...fields, ...(options.csrf === 'omit' ? {} : { csrf_token: options.csrf === 'wrong' ? 'f'.repeat(64) : token }) });
      const res = await fetch(link, { method: 'POST', headers: cookie ? { cookie } : {}, body });
      return { page: { status: page.status, html }, status: res.status, html: await res.text() };
    }

    describe('allowed domains', () => {
      it('owners add, change and remove domains; everyone gets realm_domains events and register state', async () => {
        const queue = (await member.post('/register', { event_types: ['realm_domains'] })).body;
        const added = await owner.post('/realm/domains', { domain: ' Acme.Example ', allow_subdomains: false });
        expect(added.body).toMatchObject({ result: 'success', new_domain: [expect.any(Number), 'acme.example'] });
        expect((await member.get('/realm/domains')).body.domains).toEqual([{ domain: 'acme.example', allow_subdomains: false }]);
        expect((await owner.request('PATCH', '/realm/domains/acme.example', { allow_subdomains: true }, { query: false })).body.result).toBe('success');
        expect((await guest.post('/register', { fetch_event_types: ['realm_domains'] })).body.realm_domains).toEqual([{ domain: 'acme.example', allow_subdomains: true }]);
        await owner.post('/realm/domains', { domain: 'other.example', allow_subdomains: false });
        expect((await del(owner, '/realm/domains/other.example')).body.result).toBe('success');
        const events = await eventsUntil(member, queue.queue_id, (e) => e.length >= 4);
        expect(events.map((e) => [e.op, e.realm_domain ?? e.domain])).toEqual([
          ['add', { domain: 'acme.example', allow_subdomains: false }],
          ['change', { domain: 'acme.example', allow_subdomains: true }],
          ['add', { domain: 'other.example', allow_subdomains: false }],
          ['remove', 'other.example'],
        ]);
      });

      it('removing the last domain lifts the restriction to the allowed domains, told as a realm update', async () => {
        const restricted = async () => (await member.post('/register', { fetch_event_types: ['realm'] })).body.realm_emails_restricted_to_domains;
        const kept = (await owner.get('/realm/domains')).body.domains as { domain: string; allow_subdomains: boolean }[];
        await owner.post('/realm/domains', { domain: 'spare.example', allow_subdomains: false });
        expect((await owner.request('PATCH', '/realm', { emails_restricted_to_domains: true }, { query: false })).body.result).toBe('success');
        try {
          const queue = (await member.post('/register', { event_types: ['realm'] })).body;
          expect((await del(owner, '/realm/domains/spare.example')).body.result).toBe('success');
          // Another domain is left: the restriction stays.
          expect(await restricted()).toBe(kept.length > 0);
          for (const { domain } of kept) expect((await del(owner, `/realm/domains/${domain}`)).body.result).toBe('success');
          expect((await owner.get('/realm/domains')).body.domains).toEqual([]);
          expect(await restricted()).toBe(false);
          const events = await eventsUntil(member, queue.queue_id, (e) => e.some((x) => x.type === 'realm'));
          expect(events.filter((e) => e.type === 'realm')).toEqual([expect.objectContaining({ op: 'update', property: 'emails_restricted_to_domains', value: false })]);
        } finally {
          await owner.request('PATCH', '/realm', { emails_restricted_to_domains: false }, { query: false });
          for (const entry of kept) await owner.post('/realm/domains', entry);
        }
        expect((await owner.get('/realm/domains')).body.domains).toEqual(kept);
      });

      it('refuses non-owners, invalid and duplicate domains, and unknown ones, changing nothing', async () => {
        const before = (await owner.get('/realm/domains')).body.domains;
        for (const client of [admin, member, guest]) refusedWith(await client.post('/realm/domains', { domain: 'new.example', allow_subdomains: false }));
        refusedWith(await admin.request('PATCH', '/realm/domains/acme.example', { allow_subdomains: false }, { query: false }));
        refusedWith(await admin.request('DELETE', '/realm/domains/acme.example'));
        for (const domain of ['', 'nodot', '.lead.example', 'a..b', 'bad domain.example', '-x.example', 'x'.repeat(90) + '.example']) {
          refusedWith(await owner.post('/realm/domains', { domain, allow_subdomains: false }));
        }
        refusedWith(await owner.post('/realm/domains', { domain: 'ACME.example', allow_subdomains: false }));
        refusedWith(await owner.post('/realm/domains', { domain: 'x.example' }));
        refusedWith(await owner.request('PATCH', '/realm/domains/unknown.example', { allow_subdomains: true }, { query: false }));
        refusedWith(await owner.request('DELETE', '/realm/domains/unknown.example'));
        expect((await owner.get('/realm/domains')).body.domains).toEqual(before);
      });
    });

    describe('sending invitations', () => {
      it('administrators invite by email: stored, listed, mailed with a link, invites_changed to administrators and the inviter', async () => {
        const queue = (await owner.post('/register', { event_types: ['invites_changed'] })).body;
        const sent = await admin.post('/invites', { invitee_emails: 'ann@example.org,\n bob@example.org ', stream_ids: [channels.engineering], invite_expires_in_minutes: 60 });
        expect(sent.body).toMatchObject({ result: 'success' });
        const listed = (await invites()).filter((i) => ['ann@example.org', 'bob@example.org'].includes(i.email));
        expect(listed).toHaveLength(2);
        expect(listed[0]).toMatchObject({ invited_by_user_id: ids.admin, invited_as: 400, is_multiuse: false, notify_referrer_on_join: true, stream_ids: [channels.engineering] });
        expect(listed[0].expiry_date - listed[0].invited).toBe(3600);
        expect((await outbox()).map((m) => m.to)).toEqual(expect.arrayContaining(['ann@example.org', 'bob@example.org']));
        expect(await linkFor('ann@example.org')).toMatch(/\/join\/\d+-[A-Za-z0-9_-]{32}\/$/);
        expect((await eventsUntil(owner, queue.queue_id, (e) => e.length >= 2)).map((e) => e.type)).toEqual(['invites_changed', 'invites_changed']);
        // Members see only their own invitations.
        expect((await member.get('/invites')).body.invites).toEqual([]);
      });

      it('addresses with accounts are reported in INVITATION_FAILED while the rest are invited', async () => {
        const reply = await admin.post('/invites', { invitee_emails: 'member@example.com, carol@example.org', stream_ids: [] });
        refusedWith(reply, 'INVITATION_FAILED');
        expect(reply.body).toMatchObject({ errors: [['member@example.com', 'Already has an account.', false]], sent_invitations: true, daily_limit_reached: false, license_limit_reached: false });
        expect((await invites()).map((i) => i.email)).toContain('carol@example.org');
      });

      it('refuses bad input and roles it may not give, storing and mailing nothing', async () => {
        const before = await invites();
        const mails = (await outbox()).length;
        const valid = { invitee_emails: 'dave@example.org', stream_ids: [] };
        refusedWith(await member.post('/invites', valid));
        refusedWith(await guest.post('/invites', valid));
        refusedWith(await admin.post('/invites', { ...valid, invitee_emails: ' , \n' }));
        refusedWith(await admin.post('/invites', { invitee_emails: 'dave@example.org' }));
        const malformed = await admin.post('/invites', { ...valid, invitee_emails: 'dave@example.org, not-an-email' });
        refusedWith(malformed, 'INVITATION_FAILED');
        expect(malformed.body).toMatchObject({ errors: [['not-an-email', 'Invalid address.', false]], sent_invitations: false });
        refusedWith(await admin.post('/invites', { ...valid, invitee_emails: 'x@mailinator.com' }), 'INVITATION_FAILED');
        refusedWith(await admin.post('/invites', { ...valid, invite_as: 100 }));
        refusedWith(await admin.post('/invites', { ...valid, invite_as: 250 }));
        refusedWith(await admin.post('/invites', { ...valid, stream_ids: [987654] }));
        refusedWith(await admin.post('/invites', { ...valid, stream_ids: 'general' }));
        refusedWith(await admin.post('/invites', { ...valid, group_ids: [987654] }));
        refusedWith(await admin.post('/invites', { ...valid, invite_expires_in_minutes: -5 }));
        refusedWith(await admin.post('/invites', { ...valid, welcome_message_custom_text: '😀'.repeat(8001) }));
        refusedWith(await admin.post('/invites', { ...valid, invitee_emails: Array.from({ length: 21 }, (_, i) => `bulk${i}@example.org`).join(',') }), 'INVITATION_FAILED');
        expect(await invites()).toEqual(before);
        expect(await outbox()).toHaveLength(mails);
      });

      it('the organization may restrict addresses to its allowed domains (subdomains only where allowed)', async () => {
        expect((await owner.request('PATCH', '/realm', { emails_restricted_to_domains: true }, { query: false })).body.result).toBe('success');
        try {
          const outside = await admin.post('/invites', { invitee_emails: 'eve@elsewhere.org', stream_ids: [] });
          refusedWith(outside, 'INVITATION_FAILED');
          expect(outside.body.errors).toEqual([['eve@elsewhere.org', 'Outside your domain.', false]]);
          expect((await admin.post('/invites', { invitee_emails: 'eve@sub.acme.example', stream_ids: [] })).body.result).toBe('success');
        } finally {
          await owner.request('PATCH', '/realm', { emails_restricted_to_domains: false }, { query: false });
        }
      });

      it('revokes and resends; only administrators or the inviter may', async () => {
        await admin.post('/invites', { invitee_emails: 'frank@example.org', stream_ids: [] });
        const id = (await invites()).find((i) => i.email === 'frank@example.org').id;
        refusedWith(await member.request('DELETE', `/invites/${id}`));
        refusedWith(await member.post(`/invites/${id}/resend`));
        const mails = (await outbox()).length;
        expect((await admin.post(`/invites/${id}/resend`)).body.result).toBe('success');
        expect(await outbox()).toHaveLength(mails + 1);
        const link = await linkFor('frank@example.org');
        expect((await del(owner, `/invites/${id}`)).body.result).toBe('success');
        refusedWith(await del(owner, `/invites/${id}`));
        refusedWith(await del(owner, '/invites/987654'));
        expect((await invites()).map((i) => i.id)).not.toContain(id);
        const page = await fetch(link);
        expect(page.status).toBe(410);
        expect(await page.text()).toContain('revoked');
      });
    });

    describe('authorization matrix', () => {
      type Who = 'owner' | 'admin' | 'moderator' | 'member' | 'guest' | 'bot';
      const ROLES: Who[] = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'];
      const clients = {} as Record<Who, Client>;
      let serial = 0;
      const unique = (who: Who) => `${who}-${++serial}`;
      beforeAll(async () => {
        Object.assign(clients, { owner, admin, member, guest });
        clients.moderator = await Client.login(suite.server.api, 'moderator@example.com');
        clients.bot = await Client.login(suite.server.api, 'echo-bot@example.com');
      });
      const matrix: [string, (who: Who) => Promise<Reply>, Who[]][] = [
        ['add an allowed domain', (who) => clients[who].post('/realm/domains', { domain: `${unique(who)}.example`, allow_subdomains: false }), ['owner']],
        ['change an allowed domain', (who) => clients[who].request('PATCH', '/realm/domains/acme.example', { allow_subdomains: true }, { query: false }), ['owner']],
        ['list the allowed domains', (who) => clients[who].get('/realm/domains'), ROLES],
        ['invite by email', (who) => clients[who].post('/invites', { invitee_emails: `${unique(who)}@example.net`, stream_ids: [] }), ['owner', 'admin']],
        ['invite an administrator', (who) => clients[who].post('/invites', { invitee_emails: `${unique(who)}@example.net`, stream_ids: [], invite_as: 200 }), ['owner', 'admin']],
        ['invite an owner', (who) => clients[who].post('/invites', { invitee_emails: `${unique(who)}@example.net`, stream_ids: [], invite_as: 100 }), ['owner']],
        ['create a reusable link', (who) => clients[who].post('/invites/multiuse', { stream_ids: [] }), ['owner', 'admin']],
        ['list invitations', (who) => clients[who].get('/invites'), ROLES],
      ];
      authorizationMatrix(matrix, ROLES);
    });

    describe('accepting', () => {
      it('the link opens a form; submitting it creates the account with the role, channels and groups; referrer and welcome bots write', async () => {
        const group = await admin.post('/user_groups/create', { name: 'newcomers', description: 'new', members: [ids.admin] });
        const groupId = group.body.group_id;
        await admin.post('/invites', {
          invitee_emails: 'gina@example.org',
          stream_ids: [channels.engineering],
          group_ids: [groupId],
          include_realm_default_subscriptions: true,
          invite_as: 300,
          welcome_message_custom_text: 'Welcome to **the team**!',
        });
        const queue = (await admin.post('/register', { event_types: ['message', 'invites_changed', 'realm_user'] })).body;
        const link = await linkFor('gina@example.org');
        const refused = await signUp(link, { full_name: 'Gina', password: 'correct horse battery' }, { csrf: 'wrong' });
        expect(refused.status).toBe(403);
        expect(refused.page.html).toContain('gina@example.org');
        const done = await signUp(link, { full_name: 'Gina Newcomer', password: 'correct horse battery' });
        expect(done.status).toBe(200);
        expect(done.html).toContain('gina@example.org');
        const key = await fetch(`${suite.server.api}/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'gina@example.org', password: 'correct horse battery' }) });
        const { api_key, user_id } = (await key.json()) as { api_key: string; user_id: number };
        const gina = new Client(suite.server.api, 'gina@example.org', api_key);
        expect((await gina.get('/users/me')).body).toMatchObject({ role: 300, full_name: 'Gina Newcomer' });
        const subscribed = (await gina.get('/users/me/subscriptions')).body.subscriptions.map((s: any) => s.name).sort();
        expect(subscribed).toEqual(['engineering', 'general']);
        expect((await admin.get(`/user_groups/${groupId}/members`)).body.members).toContain(user_id);
        const dms = (await gina.get('/messages', { anchor: 'newest', num_before: 10, num_after: 0, narrow: [{ operator: 'is', operand: 'dm' }] })).body.messages;
        expect(dms.map((m: any) => [m.sender_email, m.content])).toEqual([['welcome-bot@zulip.com', expect.stringContaining('the team')]]);
        const events = await eventsUntil(admin, queue.queue_id, (e) => e.some((x) => x.type === 'message'));
        expect(events.find((e) => e.type === 'message')?.message).toMatchObject({ sender_email: 'notification-bot@zulip.com', type: 'private' });
        expect(events.some((e) => e.type === 'realm_user' && e.op === 'add' && e.person.user_id === user_id)).toBe(true);
        expect(events.some((e) => e.type === 'invites_changed')).toBe(true);
        // The newcomer is mailed a welcome (after the invitation itself; links are read from invitations only), the password never in it.
        const mails = (await outbox()).filter((m) => m.to === 'gina@example.org');
        expect(mails.map((m) => m.subject)).toEqual([expect.stringContaining('invited you'), expect.stringContaining('Welcome to')]);
        expect(mails[1]!.text).toContain('gina@example.org');
        expect(mails[1]!.text).not.toContain('correct horse battery');
        // A single-use link is refused once used, and creates nothing more.
        const again = await fetch(link);
        expect(again.status).toBe(410);
        expect(await again.text()).toContain('already used');
      });

      it('refuses bad form input and unknown links, creating nothing', async () => {
        await admin.post('/invites', { invitee_emails: 'hal@example.org', stream_ids: [], notify_referrer_on_join: false });
        const link = await linkFor('hal@example.org');
        const users = (await admin.get('/users')).body.members.length;
        const mailed = (await outbox()).length;
        expect((await signUp(link, { full_name: 'Hal', password: 'long enough' }, { csrf: 'omit' })).status).toBe(403);
        const short = await signUp(link, { full_name: 'Hal', password: 'abc' });
        expect(short.status).toBe(400);
        expect(short.html).toContain('at least');
        expect((await signUp(link, { full_name: '  ', password: 'long enough' })).status).toBe(400);
        expect((await signUp(link, { full_name: 'Hal*', password: 'long enough' })).status).toBe(400);
        expect((await signUp(link, { full_name: 'Hal', password: 'long enough', extra: 'x' })).status).toBe(403);
        expect((await statusOf(`${base}/join/1-${'A'.repeat(32)}/`))).toBe(404);
        expect((await statusOf(`${base}/join/garbage/`))).toBe(404);
        expect((await admin.get('/users')).body.members.length).toBe(users);
        // Refused sign-ups mail nothing.
        expect((await outbox()).length).toBe(mailed);
        expect((await signUp(link, { full_name: 'Hal', password: 'long enough' })).status).toBe(200);
      });

      it('reusable links: administrators create and revoke them; each visitor gives an address', async () => {
        refusedWith(await member.post('/invites/multiuse', { stream_ids: [] }));
        const made = await admin.post('/invites/multiuse', { stream_ids: [channels.general], invite_as: 600 });
        expect(made.body.invite_link).toMatch(/\/join\//);
        const link = made.body.invite_link.replace(/^https?:\/\/[^/]+/, base);
        const listed = (await invites()).find((i) => i.link_url === made.body.invite_link);
        expect(listed).toMatchObject({ invited_as: 600, link_url: made.body.invite_link });
        for (const name of ['ida', 'jon']) {
          expect((await signUp(link, { email: `${name}@example.org`, full_name: name, password: 'long enough' })).status).toBe(200);
        }
        expect((await signUp(link, { email: 'not-an-email', full_name: 'x', password: 'long enough' })).status).toBe(400);
        expect((await signUp(link, { email: 'ida@example.org', full_name: 'x', password: 'long enough' })).status).toBe(400);
        refusedWith(await del(admin, `/invites/${listed.id}`));
        expect((await del(admin, `/invites/multiuse/${listed.id}`)).body.result).toBe('success');
        expect((await statusOf(link))).toBe(410);
      });
    });

    // Last: it spends the organization's daily limit (20 here), which later tests would need.
    describe('the daily limit', () => {
      it('a resend mails the invitation again and counts against the limit: at the limit it is refused, mailing and changing nothing', async () => {
        await admin.post('/invites', { invitee_emails: 'resent@example.org', stream_ids: [] });
        const resent = (await invites()).find((i) => i.email === 'resent@example.org');
        const mails = (await outbox()).length;
        expect((await admin.post(`/invites/${resent.id}/resend`)).body.result).toBe('success');
        expect(await outbox()).toHaveLength(mails + 1);
        expect((await outbox()).at(-1)?.to).toBe('resent@example.org');
        // Fill the day's limit with new invitations, then resend: refused in Zulip's words.
        for (let i = 0; ; i++) {
          const reply = await admin.post('/invites', { invitee_emails: `filler${i}@example.org`, stream_ids: [] });
          if (reply.body.result !== 'success') {
            expect(reply.body.daily_limit_reached).toBe(true);
            break;
          }
          if (i > 25) throw new Error('the daily limit was never reached');
        }
        const before = { mails: (await outbox()).length, listed: (await invites()).find((i) => i.id === resent.id) };
        const refused = await admin.post(`/invites/${resent.id}/resend`);
        refusedWith(refused, 'INVITATION_FAILED');
        expect(refused.body).toMatchObject({ daily_limit_reached: true, sent_invitations: false });
        expect(await outbox()).toHaveLength(before.mails);
        expect((await invites()).find((i) => i.id === resent.id)).toEqual(before.listed);
      });
    });
  });
}
