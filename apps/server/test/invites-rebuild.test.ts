/**
 * Invariant 3 for invitations and allowed domains: the domain list, the invitation list,
 * a link's state and the account an invitation made read the same after every read model
 * is dropped and rebuilt from the event store (and the links keep working: their keys are
 * derived, never stored).
 */
import { describe, expect, it } from '@jest/globals';
import { Client, startEmbedded } from './harness';
import { dropReadModels, invitationLink, onOrigin, scratchDataDirs } from './suite-kit';

const newDataDir = scratchDataDirs();

/** The path of the invitation link last mailed to `email`. */
const linkIn = async (dataDir: string, email: string) => onOrigin(await invitationLink(dataDir, email), '');

async function signUp(url: string) {
  const page = await fetch(url);
  const token = /name="csrf_token" value="([0-9a-f]+)"/.exec(await page.text())![1]!;
  const cookie = page.headers.get('set-cookie')!.split(';')[0]!;
  const res = await fetch(url, { method: 'POST', headers: { cookie }, body: new URLSearchParams({ csrf_token: token, full_name: 'Kim Kept', password: 'a good password' }) });
  await res.text();
  return res;
}

/** A page's status, its body read (an unread body holds the connection open, and the server's stop waits for it). */
const statusOf = async (url: string) => {
  const res = await fetch(url);
  await res.text();
  return res.status;
};

describe('rebuilding the invitation and domain read models from the event store', () => {
  it('answers exactly as before after every read model is dropped', async () => {
    const dataDir = newDataDir();
    const first = await startEmbedded(dataDir);
    // Stopped however the first half ends, so that no server outlives its removed directory.
    let firstStopped = false;
    const stopFirst = async () => {
      if (!firstStopped) await first.stop();
      firstStopped = true;
    };
    try {
      const base = (api: string) => api.replace(/\/api\/v1$/, '');
      const [owner, admin, member] = await Promise.all(['owner', 'admin', 'member'].map((n) => Client.login(first.api, `${n}@example.com`)));
      await owner.post('/realm/domains', { domain: 'kept.example', allow_subdomains: false });
      await owner.post('/realm/domains', { domain: 'gone.example', allow_subdomains: true });
      await owner.request('PATCH', '/realm/domains/kept.example', { allow_subdomains: true }, { query: false });
      await owner.request('DELETE', '/realm/domains/gone.example');
      await admin.post('/invites', { invitee_emails: 'kim@example.org, lee@example.org', stream_ids: [] });
      expect((await signUp(base(first.api) + (await linkIn(dataDir, 'kim@example.org')))).status).toBe(200);

      const snapshot = async (api: string, clients: Client[]) => {
        const views: unknown[] = [];
        for (const client of clients) {
          const { queue_id: _q, last_event_id: _l, ...state } = (await client.post('/register', { fetch_event_types: ['realm_domains'] })).body;
          views.push(state, (await client.get('/realm/domains')).body, (await client.get('/invites')).body);
        }
        views.push(await statusOf(base(api) + (await linkIn(dataDir, 'kim@example.org'))), await statusOf(base(api) + (await linkIn(dataDir, 'lee@example.org'))));
        return views;
      };
      const before = await snapshot(first.api, [owner, admin, member]);
      expect(JSON.stringify(before)).toContain('kept.example');
      expect(before.slice(-2)).toEqual([410, 200]);
      await stopFirst();

      dropReadModels(dataDir);
      const second = await startEmbedded(dataDir);
      try {
        const again = [owner, admin, member].map((client) => new Client(second.api, client.email, client.apiKey));
        expect(await snapshot(second.api, again)).toEqual(before);
        const key = await fetch(`${second.api}/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'kim@example.org', password: 'a good password' }) });
        expect(key.status).toBe(200);
        await key.text();
      } finally {
        await second.stop();
      }
    } finally {
      await stopFirst();
    }
  }, 60_000);
});
