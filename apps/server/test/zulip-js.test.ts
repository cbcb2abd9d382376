/**
 * Zulip's own JavaScript bindings (zulip-js) against the server: registering and deleting
 * queues, retrieving events, typing notifications, alert words, and callOnEachEvent's endless poll loop;
 * creating a user, logging in with a password, the own profile and the user list.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, startEmbedded, type RunningServer } from './harness';

const run = promisify(execFile);

describe('zulip-js', () => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await startEmbedded();
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
  });

  it('registers, retrieves, sends typing, deregisters and calls back on each event', async () => {
    const member = await Client.login(server.api, 'member@example.com');
    const other = await Client.login(server.api, 'member2@example.com');
    expect((await member.post('/users/me/alert_words', { alert_words: ['Kraken'] })).body.result).toBe('success');
    const realm = server.api.replace(/\/api\/v1$/, '');
    const { stdout } = await run(
      process.execPath,
      [join(__dirname, 'fixtures', 'zulip-js-client.cjs'), realm, member.email!, member.apiKey!, other.email!, other.apiKey!],
      { timeout: 30_000 },
    );
    const seen = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(seen.register).toMatchObject({ result: 'success', queue_id: expect.any(String), last_event_id: -1 });
    expect(seen.send).toMatchObject({ result: 'success', id: expect.any(Number) });
    expect(seen.retrieve.result).toBe('success');
    expect(seen.retrieve.events).toEqual([
      expect.objectContaining({ type: 'message', message: expect.objectContaining({ id: seen.send.id, content: expect.stringContaining('from zulip-js') }) }),
    ]);
    expect(seen.typing).toMatchObject({ result: 'success' });
    expect(seen.typingEvents.events).toEqual([
      expect.objectContaining({ type: 'typing', op: 'start', message_type: 'direct', sender: { user_id: seen.me, email: member.email } }),
    ]);
    expect(seen.alertWords).toMatchObject({ result: 'success', alert_words: ['kraken'] });
    expect(seen.deregister).toMatchObject({ result: 'success' });
    expect(seen.afterDeregister).toMatchObject({ result: 'error', code: 'BAD_EVENT_QUEUE_ID' });
    expect(seen.callOnEachEvent).toMatchObject({ type: 'message', id: expect.any(Number), message: expect.objectContaining({ sender_email: 'member2@example.com' }) });
  }, 40_000);

  it('creates a user, logs in with the password, reads the profile and lists the users', async () => {
    const admin = await Client.login(server.api, 'admin@example.com');
    const realm = server.api.replace(/\/api\/v1$/, '');
    const email = `zulip-js-${Date.now()}@example.com`;
    const { stdout } = await run(process.execPath, [join(__dirname, 'fixtures', 'zulip-js-people.cjs'), realm, admin.email!, admin.apiKey!, email], {
      timeout: 30_000,
    });
    const seen = JSON.parse(stdout.trim().split('\n').pop()!);
    expect(seen.create).toMatchObject({ result: 'success', user_id: expect.any(Number) });
    expect(seen.profile).toMatchObject({ result: 'success', user_id: seen.create.user_id, email, full_name: 'Zulip Js', role: 400 });
    expect(seen.retrieve.result).toBe('success');
    expect(seen.retrieve.members).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ user_id: seen.create.user_id, email, full_name: 'Zulip Js' }),
        expect.objectContaining({ email: 'admin@example.com', is_admin: true }),
      ]),
    );
  }, 40_000);
});
