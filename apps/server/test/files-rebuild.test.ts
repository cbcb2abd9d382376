/**
 * Logged-in devices, attachments (their claims and releases) and avatars live in facts
 * only: with every read model dropped, a restarted server answers register's `devices`,
 * GET /attachments, downloads and everyone's avatar exactly as before, and the message
 * events of a sender with an uploaded avatar carry it.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Client, startEmbedded, tempDataDir } from './harness';
import { download, PNG, uploadFiles } from './uploads-suite';
import { eventsUntil } from './suite-kit';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('rebuilding devices, push tokens and attachments from the event store', () => {
  it('answers exactly as before after every read model is dropped', async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const first = await startEmbedded(dataDir);
    const [member, member2] = await Promise.all(['member', 'member2'].map((n) => Client.login(first.api, `${n}@example.com`)));

    const kept = (await member.post('/register_client_device', {})).body.device_id;
    const removed = (await member.post('/register_client_device', {})).body.device_id;
    await member.post('/users/me/android_gcm_reg_id', { token: 'rebuild-fcm-token' });
    await member.post('/remove_client_device', { device_id: removed });

    const shared = (await uploadFiles(member, [{ name: 'shared.txt', bytes: Buffer.from('shared') }])).body.url;
    const withdrawn = (await uploadFiles(member, [{ name: 'withdrawn.txt', bytes: Buffer.from('withdrawn') }])).body.url;
    await member.post('/messages', { type: 'stream', to: 'general', topic: 'files', content: `[shared](${shared})` });
    const edited = (await member.post('/messages', { type: 'stream', to: 'general', topic: 'files', content: `[withdrawn](${withdrawn})` })).body.id;
    await member.request('PATCH', `/messages/${edited}`, { content: 'gone' }, { query: false });

    const avatar = (await uploadFiles(member, [{ name: 'me.png', bytes: PNG }], '/users/me/avatar')).body.avatar_url;
    await uploadFiles(member2, [{ name: 'me.png', bytes: PNG }], '/users/me/avatar');
    await member2.request('DELETE', '/users/me/avatar');

    const snapshot = async (m: Client, m2: Client) => ({
      avatars: [(await m.get('/users/me')).body, (await m2.get('/users/me')).body].map((u) => [u.avatar_url, u.avatar_version]),
      realmUsers: (await m2.post('/register', { fetch_event_types: ['realm_user'], client_gravatar: true })).body.realm_users.map((u: any) => [u.user_id, u.avatar_url, u.avatar_version]),
      avatarDownload: (await download(m2, avatar, { anonymous: true })).status,
      devices: (await m.post('/register', { fetch_event_types: ['device'] })).body.devices,
      attachments: (await m.get('/attachments')).body,
      downloads: [(await download(m2, shared)).status, (await download(m2, withdrawn)).status, (await download(m, withdrawn)).status],
      // Held: removing it succeeds, once (then it is registered again for the next snapshot).
      pushToken: [
        (await m.request('DELETE', '/users/me/android_gcm_reg_id', { token: 'rebuild-fcm-token' })).body.result,
        (await m.request('DELETE', '/users/me/android_gcm_reg_id', { token: 'rebuild-fcm-token' })).body.msg,
        (await m.post('/users/me/android_gcm_reg_id', { token: 'rebuild-fcm-token' })).body.result,
      ],
    });
    const before = await snapshot(member, member2);
    expect(Object.keys(before.devices)).toEqual([String(kept)]);
    expect(before.downloads).toEqual([200, 404, 200]);
    expect(before.pushToken).toEqual(['success', 'Token does not exist', 'success']);
    expect(before.avatars).toEqual([[avatar, 2], [expect.stringContaining('version=3'), 3]]);
    expect(before.avatarDownload).toBe(200);
    await first.stop();

    for (const file of readdirSync(dataDir).filter((f) => f.includes('read-models'))) rmSync(join(dataDir, file));
    const second = await startEmbedded(dataDir);
    try {
      const [again, again2] = [new Client(second.api, member.email, member.apiKey), new Client(second.api, member2.email, member2.apiKey)];
      expect(await snapshot(again, again2)).toEqual(before);
      // The events service learned the sender's avatar from the rebuilt directory.
      const queue = (await again2.post('/register', { event_types: ['message'], client_gravatar: true })).body.queue_id;
      await again.post('/messages', { type: 'stream', to: 'general', topic: 'files', content: 'after the rebuild' });
      const events = await eventsUntil(again2, queue, (e) => e.some((x) => x.type === 'message'));
      expect(events.find((e) => e.type === 'message').message.avatar_url).toBe(avatar);
    } finally {
      await second.stop();
    }
  }, 60_000);

  it("a restart with the read models kept still gives message events their sender's uploaded avatar", async () => {
    const dataDir = tempDataDir();
    dirs.push(dataDir);
    const first = await startEmbedded(dataDir);
    const member = await Client.login(first.api, 'member@example.com');
    const avatar = (await uploadFiles(member, [{ name: 'me.png', bytes: PNG }], '/users/me/avatar')).body.avatar_url;
    await first.stop();
    const second = await startEmbedded(dataDir);
    try {
      const [again, member2] = [new Client(second.api, member.email, member.apiKey), await Client.login(second.api, 'member2@example.com')];
      const queue = (await member2.post('/register', { event_types: ['message'], client_gravatar: true })).body.queue_id;
      await again.post('/messages', { type: 'stream', to: 'general', topic: 'files', content: 'after a restart' });
      const events = await eventsUntil(member2, queue, (e) => e.some((x) => x.type === 'message'));
      expect(events.find((e) => e.type === 'message').message.avatar_url).toBe(avatar);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
