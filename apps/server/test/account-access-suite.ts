/**
 * Getting into an account (issue 38, items 3, 5 and 9), against every mode: a user's own
 * new API key (POST /users/me/api_key/regenerate: the old key refused at once), password
 * reset through the gateway's HTML pages (the same answer whether or not an address has an
 * account, a single-use emailed link, the per-address budget, the API key kept), the
 * email-change confirmation as a page, and POST /users behind the server-level
 * can_create_users and the organization's address rules. Mail is read from the development
 * outbox under the data directory. Every refusal is checked to have changed nothing.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { callContract } from '@teamchat/platform';
import { endpoints } from '@teamchat/contracts';
import { Client, type RunningServer } from './harness';
import { authorizationMatrix, expectRefused, expectRefusedUnchanged, mailOf, onOrigin, patch, suiteServer } from './suite-kit';

const ROLES = ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'] as const;
let counter = 0;
const unique = (prefix: string) => `${prefix}-${process.pid}-${Date.now().toString(36)}-${++counter}`;

export function accountAccessSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`account access: keys, password reset, pages, POST /users (${mode})`, () => {
    const suite = suiteServer(start, ROLES);
    let base: string;
    let dataDir: string;

    beforeAll(() => {
      base = suite.server.api.replace(/\/api\/v1$/, '');
      dataDir = suite.server.dataDir!;
    });

    const login = async (username: string, password: string) => {
      const res = await fetch(`${suite.server.api}/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username, password }) });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    /** A member with a password, created by the administrator (who holds can_create_users in development). */
    async function newPerson(password = 'first password') {
      const email = `${unique('person')}@example.com`;
      const created = await suite.clients.admin.post('/users', { email, full_name: 'Pat Person', password });
      expect(created.body.result).toBe('success');
      const key = (await login(email, password)).body.api_key as string;
      return { email, user_id: created.body.user_id as number, client: new Client(suite.server.api, email, key) };
    }
    const mailsTo = async (email: string) => (await mailOf(dataDir)).filter((m) => m.to === email);
    /** The page at `url` and its form submitted as a browser would (the cookie and the hidden token). */
    async function submit(url: string, fields: Record<string, string>, options: { csrf?: 'omit' | 'wrong'; origin?: string } = {}) {
      const page = await fetch(url);
      const html = await page.text();
      const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0]!;
      const token = /name="csrf_token" value="([0-9a-f]+)"/.exec(html)?.[1] ?? '';
      const body = new URLSearchParams({ ...fields, ...(options.csrf === 'omit' ? {} : { csrf_token: options.csrf === 'wrong' ? 'f'.repeat(64) : token }) });
      const headers: Record<string, string> = { ...(cookie ? { cookie } : {}), ...(options.origin ? { origin: options.origin } : {}) };
      const res = await fetch(url, { method: 'POST', headers, body });
      return { page: { status: page.status, html }, status: res.status, html: await res.text() };
    }
    const resetPage = () => `${base}/accounts/password/reset/`;
    const requestReset = (email: string) => submit(resetPage(), { email });
    /** The reset link last mailed to `email`, on the test's origin. */
    async function resetLinkFor(email: string): Promise<string> {
      const mail = (await mailsTo(email)).filter((m) => m.text.includes('/accounts/password/reset/')).at(-1);
      if (!mail) throw new Error(`no reset link mailed to ${email}`);
      return onOrigin(/(https?:\/\/\S+\/accounts\/password\/reset\/[A-Za-z0-9_-]+\/)/.exec(mail.text)![1]!, base);
    }
    const endsWithLogin = (html: string) => {
      expect(html).toContain('id="login-link"');
      // The web client's login page (LOGIN_PATH), on the organization's address.
      expect(html).toMatch(/id="login-link" href="https?:\/\/[^"]+\/login"/);
    };

    describe('POST /users/me/api_key/regenerate', () => {
      authorizationMatrix<(typeof ROLES)[number]>(
        [
          [
            'regenerate own key',
            async (who) => {
              // A scratch user for each row, so the seeded clients keep their keys.
              if (who === 'bot') return suite.clients.bot.post('/users/me/api_key/regenerate');
              return (await newPerson()).client.post('/users/me/api_key/regenerate');
            },
            ROLES,
          ],
        ],
        ROLES,
      );

      it('answers a new key; the old one is refused at once, the new one works, and the password still logs in', async () => {
        const person = await newPerson('kept password');
        const res = await person.client.post('/users/me/api_key/regenerate');
        expect(res.body).toEqual({ result: 'success', msg: '', api_key: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
        expect(res.body.api_key).not.toBe(person.client.apiKey);
        expect((await person.client.get('/users/me')).status).toBe(401);
        expect((await new Client(suite.server.api, person.email, res.body.api_key).get('/users/me')).body.email).toBe(person.email);
        expect((await login(person.email, 'kept password')).body.api_key).toBe(res.body.api_key);
      });

      it('refuses a request without credentials', async () => {
        const res = await new Client(suite.server.api).post('/users/me/api_key/regenerate');
        expect(res.status).toBe(401);
      });
    });

    describe('password reset pages', () => {
      it('the form names the organization, labels its control and ends with where to log in', async () => {
        const res = await fetch(resetPage());
        const html = await res.text();
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/text\/html/);
        expect(html).toContain('Reset your password for Example Organization');
        expect(html).toContain('<label for="email">');
        endsWithLogin(html);
      });

      it('answers the same for an address with an account and one without; only the account gets mail', async () => {
        const person = await newPerson();
        const stranger = `${unique('stranger')}@example.com`;
        const known = await requestReset(person.email);
        const unknown = await requestReset(stranger);
        expect([known.status, unknown.status]).toEqual([200, 200]);
        expect(known.html.replace(person.email, 'X')).toBe(unknown.html.replace(stranger, 'X'));
        expect(await mailsTo(stranger)).toHaveLength(0);
        const [mail] = await mailsTo(person.email);
        expect(mail!.subject).toBe('Reset your password for Example Organization');
      });

      it('the link sets a new password once; the API key stays; the old password stops', async () => {
        const person = await newPerson('old password');
        await requestReset(person.email);
        const link = await resetLinkFor(person.email);
        // Neither the store nor the outbox's own index holds the token in clear.
        const token = /reset\/([A-Za-z0-9_-]+)\//.exec(link)![1]!;
        const store = join(dataDir, 'events.sqlite');
        if (existsSync(store)) expect(readFileSync(store).includes(token)).toBe(false);

        const mismatch = await submit(link, { new_password: 'new password 1', new_password_again: 'new password 2' });
        expect(mismatch.page.status).toBe(200);
        expect(mismatch.page.html).toContain(person.email);
        expect(mismatch.status).toBe(400);
        expect(mismatch.html).toContain('The two passwords differ.');
        const short = await submit(link, { new_password: 'abc', new_password_again: 'abc' });
        expect(short.status).toBe(400);
        expect(short.html).toContain('at least 6 characters');
        expect((await login(person.email, 'old password')).status).toBe(200);

        const done = await submit(link, { new_password: 'brand new password', new_password_again: 'brand new password' });
        expect(done.status).toBe(200);
        expect(done.html).toContain('id="password-set"');
        endsWithLogin(done.html);
        expect((await login(person.email, 'brand new password')).body.api_key).toBe(person.client.apiKey);
        expect((await login(person.email, 'old password')).status).toBe(401);
        expect((await person.client.get('/users/me')).body.result).toBe('success');

        // Used: the page says so and offers a new link; a second submission changes nothing.
        const again = await fetch(link);
        expect(again.status).toBe(404);
        expect(await again.text()).toContain('data-state="invalid"');
        const replay = await submit(link, { new_password: 'replayed password', new_password_again: 'replayed password' });
        expect(replay.status).toBe(403); // the used page has no form: no token to submit
        expect((await login(person.email, 'replayed password')).status).toBe(401);
      });

      it('mails at most two links an hour to one address, answering the same each time', async () => {
        const person = await newPerson();
        const pages = [];
        for (let i = 0; i < 3; i++) pages.push((await requestReset(person.email)).html);
        expect(new Set(pages).size).toBe(1);
        expect((await mailsTo(person.email)).filter((m) => m.subject.startsWith('Reset'))).toHaveLength(2);
      });

      it.each([
        ['an unknown token', 'A'.repeat(32), 404, 'invalid'],
        ['a malformed token', 'not-a-token', 404, 'invalid'],
      ])('shows %s as a page, with no form', async (_what, token, status, state) => {
        const res = await fetch(`${base}/accounts/password/reset/${token}/`);
        const html = await res.text();
        expect(res.status).toBe(status);
        expect(html).toContain(`data-state="${state}"`);
        expect(html).not.toContain('<form');
        endsWithLogin(html);
      });

      it('refuses a form without its CSRF token, with a wrong one, or from another origin, and mails nothing', async () => {
        const person = await newPerson();
        expect((await submit(resetPage(), { email: person.email }, { csrf: 'omit' })).status).toBe(403);
        expect((await submit(resetPage(), { email: person.email }, { csrf: 'wrong' })).status).toBe(403);
        expect((await submit(resetPage(), { email: person.email }, { origin: 'https://evil.example' })).status).toBe(403);
        expect(await mailsTo(person.email)).toHaveLength(0);
      });

      it('refuses an empty address with the form again, and a form with unknown fields', async () => {
        const empty = await submit(resetPage(), { email: '  ' });
        expect(empty.status).toBe(400);
        expect(empty.html).toContain('Enter an email address.');
        expect((await submit(resetPage(), { email: 'a@example.com', extra: 'x' })).status).toBe(403);
      });
    });

    describe('the email-change confirmation page', () => {
      it('the mailed link opens a page naming the new address; a second visit says the link did not work', async () => {
        const person = await newPerson();
        const newEmail = `${unique('moved')}@example.com`;
        expect((await patch(person.client, '/settings', { email: newEmail })).body.result).toBe('success');
        const mail = (await mailsTo(newEmail)).at(-1)!;
        const link = /(https?:\/\/\S+\/accounts\/confirm_new_email\/[A-Za-z0-9_-]+\/)/.exec(mail.text)![1]!;
        const res = await fetch(onOrigin(link, base));
        const html = await res.text();
        expect(res.status).toBe(200);
        expect(html).toContain(`<strong id="account-email">${newEmail}</strong>`);
        expect(html).toContain('Example Organization');
        endsWithLogin(html);
        expect((await suite.clients.admin.get(`/users/${person.user_id}`)).body.user.email).toBe(newEmail);
        const again = await fetch(onOrigin(link, base));
        expect(again.status).toBe(400);
        expect(await again.text()).toContain('id="email-not-confirmed"');
      });
    });

    describe('POST /users: can_create_users and the address rules', () => {
      const users = async () => ((await suite.clients.admin.get('/users')).body.members as { email: string }[]).map((u) => u.email).sort();
      const grant = async (email: string, granted: boolean) => {
        await callContract(await suite.server.bus!(), endpoints.accounts.changeServerPermission, { params: { email, permission: 'can_create_users', granted } });
      };

      it('refuses an administrator whose permission the operator took, and lets them again once given back', async () => {
        await grant('admin@example.com', false);
        try {
          await expectRefusedUnchanged(() => suite.clients.admin.post('/users', { email: `${unique('x')}@example.com`, full_name: 'Not Now' }), { msg: 'User not authorized to create users' }, users);
        } finally {
          await grant('admin@example.com', true);
        }
        expect((await suite.clients.admin.post('/users', { email: `${unique('y')}@example.com`, full_name: 'Now Then' })).body.result).toBe('success');
      });

      it('refuses addresses outside the allowed domains, and disposable ones, when the organization says so', async () => {
        const owner = suite.clients.owner;
        expect((await owner.post('/realm/domains', { domain: 'allowed.example', allow_subdomains: false })).body.result).toBe('success');
        expect((await patch(owner, '/realm', { emails_restricted_to_domains: true })).body.result).toBe('success');
        try {
          await expectRefusedUnchanged(() => owner.post('/users', { email: 'someone@elsewhere.example', full_name: 'Out Side' }), { msg: "Email 'someone@elsewhere.example' not allowed in this organization" }, users);
          expect((await owner.post('/users', { email: `${unique('in')}@allowed.example`, full_name: 'In Side' })).body.result).toBe('success');
        } finally {
          await patch(owner, '/realm', { emails_restricted_to_domains: false });
        }
        expect((await patch(owner, '/realm', { disallow_disposable_email_addresses: true })).body.result).toBe('success');
        try {
          await expectRefusedUnchanged(() => owner.post('/users', { email: 'throwaway@mailinator.com', full_name: 'Throw Away' }), { msg: 'Disposable email addresses are not allowed in this organization' }, users);
        } finally {
          await patch(owner, '/realm', { disallow_disposable_email_addresses: false });
        }
      });

      it('refuses a member, a moderator and a guest as before', async () => {
        for (const who of ['member', 'moderator', 'guest'] as const) {
          expectRefused(await suite.clients[who].post('/users', { email: `${unique('z')}@example.com`, full_name: 'Nope' }), { msg: 'Must be an organization administrator' });
        }
      });
    });
  });
}
