/**
 * Invariant 3 for organization settings, user status and custom profile fields: with
 * every read model dropped and rebuilt from the event store, register's sections and the
 * queries answer as before, and channels still decide with the changed settings.
 */
import { describe, expect, it } from '@jest/globals';
import { Client, startEmbedded } from './harness';
import { dropReadModels, scratchDataDirs } from './suite-kit';

const newDataDir = scratchDataDirs();

describe('rebuilding organization settings, statuses and profile fields', () => {
  it('answers exactly as before after every read model is dropped', async () => {
    const dataDir = newDataDir();
    // One address for both starts: a development server's realm URI is otherwise its
    // listening address, which differs from one free port to the next.
    const env = { TEAMCHAT_REALM_URI: 'http://chat.example.test' };
    const first = await startEmbedded(dataDir, env);
    const [owner, member] = await Promise.all(['owner', 'member'].map((n) => Client.login(first.api, `${n}@example.com`)));
    const ok = async (reply: Promise<{ body: Record<string, any> }>) => {
      const { body } = await reply;
      expect(body.result).toBe('success');
      return body;
    };
    await ok(owner.request('PATCH', '/realm', { name: 'Rebuilt', waiting_period_threshold: 2, can_create_public_channel_group: { new: 6 } }, { query: false }));
    const nick = (await ok(owner.post('/realm/profile_fields', { name: 'Nick', field_type: 1 }))).id;
    const gone = (await ok(owner.post('/realm/profile_fields', { name: 'Gone', field_type: 1 }))).id;
    await ok(member.request('PATCH', '/users/me/profile_data', { data: [{ id: nick, value: 'Marky' }, { id: gone, value: 'soon' }] }, { query: false }));
    await ok(owner.request('DELETE', `/realm/profile_fields/${gone}`));
    await ok(member.post('/users/me/status', { status_text: 'rebuilding', emoji_name: 'car' }));

    const snapshot = async (client: Client) => {
      const registered = (await client.post('/register', { fetch_event_types: ['realm', 'realm_user', 'user_status', 'custom_profile_fields'] })).body;
      const { queue_id: _q, last_event_id: _l, server_timestamp: _t, ...state } = registered;
      return { state, status: (await client.get(`/users/${registered.user_id}/status`)).body, fields: (await client.get('/realm/profile_fields')).body };
    };
    const before = await snapshot(member);
    expect(before.state).toMatchObject({ realm_name: 'Rebuilt', realm_waiting_period_threshold: 2, realm_can_create_public_channel_group: 6 });
    expect(before.status.status).toMatchObject({ status_text: 'rebuilding' });
    await first.stop();

    dropReadModels(dataDir);
    const second = await startEmbedded(dataDir, env);
    try {
      const again = new Client(second.api, member.email, member.apiKey);
      expect(await snapshot(again)).toEqual(before);
      const created = (await again.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'not for members' }]) })).body;
      expect(created).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
    } finally {
      await second.stop();
    }
  }, 30_000);
});
