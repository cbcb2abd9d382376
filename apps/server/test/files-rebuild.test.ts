/**
 * Logged-in devices and attachments (their claims and releases) live in facts only:
 * with every read model dropped, a restarted server answers register's `devices`,
 * GET /attachments and downloads exactly as before.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { Client, startEmbedded, tempDataDir } from './harness';
import { download, uploadFiles } from './uploads-suite';

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

    const snapshot = async (m: Client, m2: Client) => ({
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
    await first.stop();

    for (const file of readdirSync(dataDir).filter((f) => f.includes('read-models'))) rmSync(join(dataDir, file));
    const second = await startEmbedded(dataDir);
    try {
      expect(await snapshot(new Client(second.api, member.email, member.apiKey), new Client(second.api, member2.email, member2.apiKey))).toEqual(before);
    } finally {
      await second.stop();
    }
  }, 60_000);
});
