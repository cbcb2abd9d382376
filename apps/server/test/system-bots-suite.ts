/**
 * The system bots (issue 16, item 6), run against every mode: the notification bot and
 * the welcome bot are in every organization's cross_realm_bots, send direct messages
 * through the internal command that services use (no HTTP route reaches it), and cannot
 * be logged into by any means; nobody may take their addresses.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { endpoints, NOTIFICATION_BOT, WELCOME_BOT } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { SignJWT } from 'jose';
import { Client, type RunningServer } from './harness';
import { suiteServer } from './suite-kit';

const BOTS = [NOTIFICATION_BOT, WELCOME_BOT];

export function systemBotsSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`system bots (${mode})`, () => {
    const suite = suiteServer(start, ['owner', 'member', 'member2', 'guest']);
    const { ids } = suite;
    let anonymous: Client;
    let owner: Client;
    let member: Client;
    let member2: Client;
    let guest: Client;
    beforeAll(() => {
      anonymous = new Client(suite.server.api);
      ({ owner, member, member2, guest } = suite.clients);
    });

    const sendAs = async (bot: 'notification' | 'welcome', to: number[], content: string) =>
      callContract(await suite.server.bus!(), endpoints.messaging.sendSystemBotMessage, { params: { bot, to, content } });
    const newest = async (client: Client) => (await client.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 })).body.messages[0];

    it('are listed in cross_realm_bots of every user, outside the organization', async () => {
      for (const client of [owner, guest]) {
        const body = (await client.post('/register', { fetch_event_types: ['realm_user'] })).body;
        expect(body.cross_realm_bots.map((b: any) => [b.user_id, b.email, b.full_name, b.is_bot, b.is_system_bot])).toEqual(
          BOTS.map((bot) => [bot.user_id, bot.email, bot.full_name, true, true]),
        );
        expect(body.realm_users.map((u: any) => u.user_id)).not.toEqual(expect.arrayContaining([NOTIFICATION_BOT.user_id]));
        expect(body.realm_users.map((u: any) => u.user_id)).not.toEqual(expect.arrayContaining([WELCOME_BOT.user_id]));
      }
    });

    it.each(BOTS.map((bot) => [bot.email]))('cannot be logged into as %s by any means', async (email) => {
      const password = await anonymous.post('/fetch_api_key', { username: email, password: 'any password at all' });
      expect(password.status).toBe(401);
      expect(password.body).toMatchObject({ result: 'error', code: 'AUTHENTICATION_FAILED' });
      expect(password.body).not.toHaveProperty('api_key');

      const dev = await anonymous.post('/dev_fetch_api_key', { username: email });
      expect(dev.status).toBe(400);
      expect(dev.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'This user does not exist.' });

      const token = await new SignJWT({ email }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime('5m').sign(new TextEncoder().encode('dev-jwt-secret'));
      const jwt = await anonymous.post('/jwt/fetch_api_key', { token });
      expect(jwt.status).toBe(400);
      expect(jwt.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'Invalid email in JSON web token' });

      // Any key: the address authenticates nothing.
      const basic = await new Client(suite.server.api, email, 'a'.repeat(32)).get('/users/me');
      expect(basic.status).toBe(401);
      expect(basic.body).toMatchObject({ result: 'error', code: 'INVALID_API_KEY' });
    });

    it.each(BOTS.map((bot) => [bot.email]))('keeps %s from being taken by a new user', async (email) => {
      const before = (await owner.get('/users')).body.members.length;
      const created = await owner.post('/users', { email, password: 'a long enough password', full_name: 'Impostor' });
      expect(created.status).toBe(400);
      expect(created.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: `Email '${email}' is reserved for system bots` });
      expect((await owner.get('/users')).body.members).toHaveLength(before);
      expect((await anonymous.post('/dev_fetch_api_key', { username: email })).status).toBe(400);
    });

    it('the welcome bot sends a direct message that its recipient receives, unread, with the bot in the conversation', async () => {
      const queue = (await member.post('/register', { event_types: ['message'] })).body;
      const { value } = await sendAs('welcome', [ids.member!], 'Welcome to the **development organization**!');
      expect(typeof value.message_id).toBe('number');

      const message = await newest(member);
      expect(message).toMatchObject({
        id: value.message_id,
        sender_id: WELCOME_BOT.user_id,
        sender_email: 'welcome-bot@zulip.com',
        sender_full_name: 'Welcome Bot',
        type: 'private',
        client: 'Internal',
        content: '<p>Welcome to the <strong>development organization</strong>!</p>',
      });
      expect(message.display_recipient.map((u: any) => u.id).sort((a: number, b: number) => a - b)).toEqual([ids.member, WELCOME_BOT.user_id].sort((a, b) => a! - b!));
      expect(message.flags).not.toContain('read');

      const deadline = Date.now() + 5000;
      let events: any[] = [];
      while (Date.now() < deadline) {
        events = (await member.get('/events', { queue_id: queue.queue_id, last_event_id: queue.last_event_id, dont_block: true })).body.events;
        if (events.some((e) => e.type === 'message')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(events.find((e) => e.type === 'message')?.message).toMatchObject({ id: value.message_id, sender_id: WELCOME_BOT.user_id });
      // Nobody else receives it.
      expect((await newest(member2))?.id).not.toBe(value.message_id);
    });

    it('the notification bot sends to several users at once, and to nobody else', async () => {
      const { value } = await sendAs('notification', [ids.member!, ids.member2!], 'Mark and Mary, your invitee joined.');
      for (const client of [member, member2]) expect(await newest(client)).toMatchObject({ id: value.message_id, sender_id: NOTIFICATION_BOT.user_id, sender_email: 'notification-bot@zulip.com' });
      expect((await newest(guest))?.id).not.toBe(value.message_id);
    });

    it.each([
      ['an unknown user', () => [999_999], 'hello', 'Invalid user ID 999999'],
      ['a system bot', () => [NOTIFICATION_BOT.user_id], 'hello', `Invalid user ID ${NOTIFICATION_BOT.user_id}`],
      ['empty content', () => [ids.member!], '   ', 'Message must not be empty'],
    ])('refuses to send to %s and sends nothing', async (_what, to, content, msg) => {
      const before = await newest(member);
      await expect(sendAs('welcome', to(), content)).rejects.toMatchObject({ code: 'BAD_REQUEST', msg });
      expect((await newest(member)).id).toBe(before.id);
    });
  });
}
