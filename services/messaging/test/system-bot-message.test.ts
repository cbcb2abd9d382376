import { describe, expect, it } from '@jest/globals';
import { NOTIFICATION_BOT, WELCOME_BOT } from '@teamchat/contracts';
import { decideSystemBotChannelMessage, decideSystemBotMessage, systemBotConversation, type SystemBotMessage } from '../src/domain/system-bot-message';

const newcomer = { id: 12, email: 'newcomer@example.com', full_name: 'Nina Newcomer', is_active: true };
const referrer = { id: 3, email: 'owner@example.com', full_name: 'Olivia Owner', is_active: true };
const NOW = 1_700_000_000_500;

const welcome = (over: Partial<SystemBotMessage> = {}): SystemBotMessage => ({
  bot: WELCOME_BOT,
  recipients: [{ user_id: newcomer.id, user: newcomer }],
  content: 'Welcome to **Acme**!',
  rendered_content: '<p>Welcome to <strong>Acme</strong>!</p>',
  mentioned_user_ids: [],
  recipient_id: 77,
  now: NOW,
  ...over,
});

describe('a system bot direct message', () => {
  it('is sent by the bot to the recipients only, unread for them, with the bot in the conversation', () => {
    expect(decideSystemBotMessage(welcome())).toEqual({
      type: 'MessageSent',
      sender_id: WELCOME_BOT.user_id,
      sender_email: 'welcome-bot@zulip.com',
      sender_full_name: 'Welcome Bot',
      recipient: {
        type: 'direct',
        users: [
          { id: 12, email: 'newcomer@example.com', full_name: 'Nina Newcomer', is_mirror_dummy: false },
          { id: WELCOME_BOT.user_id, email: 'welcome-bot@zulip.com', full_name: 'Welcome Bot', is_mirror_dummy: false },
        ],
      },
      content: 'Welcome to **Acme**!',
      rendered_content: '<p>Welcome to <strong>Acme</strong>!</p>',
      is_me_message: false,
      client: 'Internal',
      recipient_id: 77,
      timestamp: 1_700_000_000,
      recipient_user_ids: [12],
      mentioned_user_ids: [],
      wildcard_mentioned_user_ids: [],
      read_by_sender: false,
      local_echo: null,
    });
  });

  it('goes to several recipients once each, mentioning only recipients', () => {
    const fact = decideSystemBotMessage(
      welcome({
        bot: NOTIFICATION_BOT,
        recipients: [
          { user_id: 12, user: newcomer },
          { user_id: 3, user: referrer },
          { user_id: 12, user: newcomer },
        ],
        mentioned_user_ids: [12, 99],
      }),
    );
    expect(fact.sender_id).toBe(NOTIFICATION_BOT.user_id);
    expect(fact.recipient_user_ids).toEqual([3, 12]);
    expect(fact.recipient.type === 'direct' && fact.recipient.users.map((u) => u.id)).toEqual([3, 12, NOTIFICATION_BOT.user_id]);
    expect(fact.mentioned_user_ids).toEqual([12]);
  });

  it.each([
    ['an unknown user', welcome({ recipients: [{ user_id: 404, user: undefined }] }), 'Invalid user ID 404'],
    ['a deactivated user', welcome({ recipients: [{ user_id: 12, user: { ...newcomer, is_active: false } }] }), "'newcomer@example.com' is no longer using Zulip."],
    ['a system bot', welcome({ recipients: [{ user_id: NOTIFICATION_BOT.user_id, user: { id: NOTIFICATION_BOT.user_id, email: NOTIFICATION_BOT.email, full_name: 'x', is_active: true } }] }), `Invalid user ID ${NOTIFICATION_BOT.user_id}`],
    ['empty content', welcome({ content: ' \n ' }), 'Message must not be empty'],
    ['content over the limit', welcome({ content: 'x'.repeat(10_001) }), 'Message too long (limit: 10000 characters)'],
  ])('refuses %s', (_what, cmd, msg) => {
    expect(() => decideSystemBotMessage(cmd)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', msg }) as unknown as Error);
  });

  it('keys the conversation by every participant, bot included', () => {
    expect(systemBotConversation(WELCOME_BOT, [12, 3, 12])).toEqual([3, 12, WELCOME_BOT.user_id]);
  });
});

describe("a system bot's channel message (a new organization's welcome)", () => {
  const general = { channel_id: 5, name: 'general', is_archived: false, subscriber_ids: [3, 1, 3] };
  const post = (over: Partial<Parameters<typeof decideSystemBotChannelMessage>[0]> = {}) =>
    decideSystemBotChannelMessage({
      bot: NOTIFICATION_BOT,
      channel: general,
      topic: ' welcome ',
      content: 'Hello **Acme**',
      rendered_content: '<p>Hello <strong>Acme</strong></p>',
      mentioned_user_ids: [1, 99],
      recipient_id: 40,
      now: NOW,
      ...over,
    });

  it("goes to the channel's subscribers, once each, unread, under the trimmed topic", () => {
    expect(post()).toMatchObject({
      type: 'MessageSent',
      sender_id: NOTIFICATION_BOT.user_id,
      recipient: { type: 'channel', channel_id: 5, channel_name: 'general', topic: 'welcome' },
      recipient_user_ids: [1, 3],
      mentioned_user_ids: [1],
      read_by_sender: false,
      recipient_id: 40,
      timestamp: 1_700_000_000,
    });
  });

  it.each([
    ['an unknown channel', { channel: undefined }, 'Invalid channel ID'],
    ['an archived channel', { channel: { ...general, is_archived: true } }, 'Invalid channel ID'],
    ['an empty topic', { topic: '  ' }, 'Topic must not be empty'],
    ['a topic over 60 characters', { topic: 'x'.repeat(61) }, 'Topic too long (limit: 60 characters)'],
    ['an empty message', { content: ' ' }, 'Message must not be empty'],
  ])('refuses %s', (_what, over, msg) => {
    expect(() => post(over)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', msg }));
  });
});
