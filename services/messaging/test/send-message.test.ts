import { describe, expect, it } from '@jest/globals';
import { NO_CUSTOM_GROUPS } from '@teamchat/policies';
import { initialMessageFlags, ROLE, SYSTEM_GROUP, type FactOf } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  decideSendMessage,
  defaultReadBySender,
  directParticipants,
  type ChannelTarget,
  type DirectTarget,
  type Participant,
  type SendMessage,
} from '../src/domain/send-message';

// Sending reads no stream of its own: what it depends on comes resolved in the command.
const send = deciderSpec<null, SendMessage>({
  initial: () => null,
  evolve: (state) => state,
  decide: (cmd) => [decideSendMessage(cmd)],
});

const person = (id: number, name: string, role: number, is_active = true): Participant => ({
  id,
  email: `${name.toLowerCase()}@acme.example`,
  full_name: name,
  role,
  is_active,
  is_bot: false,
  date_joined: 1_600_000_000,
});
const olivia = person(1, 'Olivia', ROLE.owner);
const mark = person(4, 'Mark', ROLE.member);
const mary = person(5, 'Mary', ROLE.member);
const gus = person(6, 'Gus', ROLE.guest);
const gone = person(7, 'Gone', ROLE.member, false);

const general: ChannelTarget = {
  kind: 'channel',
  channel_id: 10,
  name: 'general',
  invite_only: false,
  is_archived: false,
  subscriber_ids: [6, 1, 4],
  topic: 'greetings',
  topics_policy: 'inherit',
  can_send_message_group: SYSTEM_GROUP.everyone,
};
const leadership: ChannelTarget = { ...general, channel_id: 11, name: 'leadership', invite_only: true, subscriber_ids: [1] };
const direct = (...users: Participant[]): DirectTarget => ({ kind: 'direct', users });

const cmd: SendMessage = {
  groups: NO_CUSTOM_GROUPS,
  sender: mark,
  target: general,
  content: 'hello **world**',
  rendered_content: '<p>hello <strong>world</strong></p>',
  mentions: { wildcard: null, mentioned_user_ids: [], wildcard_mentioned_user_ids: [] },
  topic_participant_count: 0,
  is_me_message: false,
  client: 'website',
  read_by_sender: undefined,
  local_echo: null,
  recipient_id: 42,
  now: 1_700_000_000_999,
};
const when = (overrides: Partial<SendMessage>) => send.given([]).when({ ...cmd, ...overrides });
const toGeneral = (target: Partial<ChannelTarget>) => when({ target: { ...general, ...target } });

const sentToGeneral = (overrides: Partial<FactOf<'MessageSent'>> = {}): FactOf<'MessageSent'> => ({
  type: 'MessageSent',
  sender_id: 4,
  sender_email: 'mark@acme.example',
  sender_full_name: 'Mark',
  recipient: { type: 'channel', channel_id: 10, channel_name: 'general', topic: 'greetings' },
  content: 'hello **world**',
  rendered_content: '<p>hello <strong>world</strong></p>',
  is_me_message: false,
  client: 'website',
  recipient_id: 42,
  timestamp: 1_700_000_000,
  recipient_user_ids: [1, 4, 6],
  mentioned_user_ids: [],
  wildcard_mentioned_user_ids: [],
  read_by_sender: true,
  local_echo: null,
  ...overrides,
});
const withTopic = (topic: string) => sentToGeneral({ recipient: { type: 'channel', channel_id: 10, channel_name: 'general', topic } });

describe('decideSendMessage to a channel', () => {
  it('decides the message with every field', () => when({}).then([sentToGeneral()]));

  it('passes is_me_message and the client through', () =>
    when({ is_me_message: true, client: 'ZulipTerminal' }).then([sentToGeneral({ is_me_message: true, client: 'ZulipTerminal' })]));

  it('lets a member send to a public channel without being subscribed, and delivers it to them too', () =>
    when({ sender: mary }).then([
      sentToGeneral({ sender_id: 5, sender_email: 'mary@acme.example', sender_full_name: 'Mary', recipient_user_ids: [1, 4, 5, 6] }),
    ]));

  it("refuses a missing topic, naming 'topic'", () =>
    toGeneral({ topic: undefined }).thenThrows({ code: 'BAD_REQUEST', msg: "Missing 'topic' argument", extra: { var_name: 'topic' } }));

  it('trims the topic', () => toGeneral({ topic: '  greetings \n' }).then([sentToGeneral()]));

  it('accepts a topic of 60 code points, even when they take 120 UTF-16 units', () =>
    toGeneral({ topic: '🎉'.repeat(60) }).then([withTopic('🎉'.repeat(60))]));

  it.each([
    ['ASCII', 't'.repeat(61)],
    ['emoji', '🎉'.repeat(61)],
  ])('refuses a topic of 61 code points (%s)', (_, topic) =>
    toGeneral({ topic }).thenThrows({ code: 'BAD_REQUEST', msg: 'Topic too long (limit: 60 characters)' }));

  it('refuses a null byte in the topic', () =>
    toGeneral({ topic: 'a\u0000b' }).thenThrows({ code: 'BAD_REQUEST', msg: 'Topic must not contain null bytes' }));

  it.each(['general chat', '  general chat  '])('reads the empty topic display name %j as the empty topic', (topic) =>
    toGeneral({ topic }).then([withTopic('')]));

  it('keeps the empty topic empty', () => toGeneral({ topic: '' }).then([withTopic('')]));

  it('refuses a private channel the sender is not subscribed to', () =>
    when({ target: leadership }).thenThrows({ code: 'BAD_REQUEST', msg: "Not authorized to send to channel 'leadership'" }));

  it('refuses a private channel to an administrator who is not subscribed', () =>
    when({ sender: person(2, 'Adam', ROLE.administrator), target: leadership }).thenThrows({ msg: "Not authorized to send to channel 'leadership'" }));

  it('lets a subscriber send to a private channel', () =>
    when({ sender: olivia, target: leadership }).then([
      sentToGeneral({
        sender_id: 1,
        sender_email: 'olivia@acme.example',
        sender_full_name: 'Olivia',
        recipient: { type: 'channel', channel_id: 11, channel_name: 'leadership', topic: 'greetings' },
        recipient_user_ids: [1],
      }),
    ]));

  it('refuses a guest not subscribed to a public channel', () =>
    when({ sender: gus, target: { ...general, subscriber_ids: [1, 4] } }).thenThrows({
      code: 'BAD_REQUEST',
      msg: "Not authorized to send to channel 'general'",
    }));

  it('lets a subscribed guest send', () =>
    when({ sender: gus }).then([sentToGeneral({ sender_id: 6, sender_email: 'gus@acme.example', sender_full_name: 'Gus' })]));

  it('refuses an archived channel, even to a subscriber', () =>
    toGeneral({ is_archived: true }).thenThrows({ code: 'BAD_REQUEST', msg: "Not authorized to send to channel 'general'" }));
});

describe("decideSendMessage: the channel's can_send_message_group", () => {
  const noPosting = { code: 'BAD_REQUEST', msg: 'You do not have permission to post in this channel.' };
  const fromOlivia = { sender_id: 1, sender_email: 'olivia@acme.example', sender_full_name: 'Olivia' };

  it('refuses a member when only administrators may post', () =>
    toGeneral({ can_send_message_group: SYSTEM_GROUP.administrators }).thenThrows(noPosting));

  it('lets an owner post where administrators may', () =>
    when({ sender: olivia, target: { ...general, can_send_message_group: SYSTEM_GROUP.administrators } }).then([sentToGeneral(fromOlivia)]));

  it('refuses even an owner when nobody may post', () =>
    when({ sender: olivia, target: { ...general, can_send_message_group: SYSTEM_GROUP.nobody } }).thenThrows(noPosting));

  it('counts every member as a full member (waiting period 0)', () =>
    toGeneral({ can_send_message_group: SYSTEM_GROUP.fullmembers }).then([sentToGeneral()]));

  it('refuses a subscribed guest when only members may post', () =>
    when({ sender: gus, target: { ...general, can_send_message_group: SYSTEM_GROUP.members } }).thenThrows(noPosting));

  it('lets the users an anonymous group names post, and only them', () => {
    const target = { ...general, can_send_message_group: { direct_members: [4], direct_subgroups: [SYSTEM_GROUP.owners] } };
    when({ target }).then([sentToGeneral()]);
    when({ sender: olivia, target }).then([sentToGeneral(fromOlivia)]);
    when({ sender: mary, target: { ...target, subscriber_ids: [5] } }).thenThrows(noPosting);
  });

  it('checks the posting permission before archiving, as Zulip', () =>
    toGeneral({ is_archived: true, can_send_message_group: SYSTEM_GROUP.nobody }).thenThrows(noPosting));
});

describe('decideSendMessage content', () => {
  it.each(['', '   ', '\n\t'])('refuses the empty content %j', (content) =>
    when({ content }).thenThrows({ code: 'BAD_REQUEST', msg: 'Message must not be empty' }));

  it('accepts 10000 code points, even when they take 20000 UTF-16 units', () =>
    when({ content: '😀'.repeat(10000) }).then([sentToGeneral({ content: '😀'.repeat(10000) })]));

  it.each([
    ['ASCII', 'x'.repeat(10001)],
    ['emoji', '😀'.repeat(10001)],
  ])('refuses 10001 code points (%s)', (_, content) =>
    when({ content }).thenThrows({ code: 'BAD_REQUEST', msg: 'Message too long (limit: 10000 characters)' }));

  it('refuses a null byte', () => when({ content: 'a\u0000b' }).thenThrows({ code: 'BAD_REQUEST', msg: 'Message must not contain null bytes' }));

  it('keeps the content as sent, surrounding spaces included', () =>
    when({ content: '  indented\n' }).then([sentToGeneral({ content: '  indented\n' })]));
});

describe('decideSendMessage to users directly', () => {
  const dm = (users: FactOf<'MessageSent'>['recipient'] & { type: 'direct' }, ids: number[], overrides: Partial<FactOf<'MessageSent'>> = {}) =>
    sentToGeneral({ recipient: users, recipient_user_ids: ids, ...overrides });
  const shown = (p: Participant) => ({ id: p.id, email: p.email, full_name: p.full_name, is_mirror_dummy: false });

  it('lists every participant once, sender included, by id', () =>
    when({ target: direct(mary, olivia, mark, mary) }).then([dm({ type: 'direct', users: [shown(olivia), shown(mark), shown(mary)] }, [1, 4, 5])]));

  it('includes the sender when not named', () =>
    when({ target: direct(mary) }).then([dm({ type: 'direct', users: [shown(mark), shown(mary)] }, [4, 5])]));

  it('sends to the sender alone', () => when({ target: direct(mark) }).then([dm({ type: 'direct', users: [shown(mark)] }, [4])]));

  it('lets a guest send directly', () =>
    when({ sender: gus, target: direct(mark) }).then([
      dm({ type: 'direct', users: [shown(mark), shown(gus)] }, [4, 6], { sender_id: 6, sender_email: 'gus@acme.example', sender_full_name: 'Gus' }),
    ]));

  it('refuses no recipients', () => when({ target: direct() }).thenThrows({ code: 'BAD_REQUEST', msg: 'Message must have recipients' }));

  it('refuses a deactivated recipient', () =>
    when({ target: direct(mary, gone) }).thenThrows({ code: 'BAD_REQUEST', msg: "'gone@acme.example' is no longer using this organization." }));

  it('needs no topic', () => when({ target: direct(mary) }).then([dm({ type: 'direct', users: [shown(mark), shown(mary)] }, [4, 5])]));
});

describe('read_by_sender and local echo', () => {
  it('takes an explicit false over an interactive client', () =>
    when({ client: 'website', read_by_sender: false }).then([sentToGeneral({ read_by_sender: false })]));

  it('takes an explicit true over an integration', () =>
    when({ client: 'curl', read_by_sender: true }).then([sentToGeneral({ client: 'curl', read_by_sender: true })]));

  it.each([
    ['website', true],
    ['ZulipMobile', true],
    ['ZulipFlutter', true],
    ['Zulip Desktop App', true],
    ['curl', false],
    ['ZulipPython', false],
    ['API', false],
  ])('defaults by the client %j to %p', (client, read) =>
    when({ client, read_by_sender: undefined }).then([sentToGeneral({ client, read_by_sender: read })]));

  it('passes the local echo ids through', () =>
    when({ local_echo: { queue_id: 'q-1', local_id: '1.01' } }).then([sentToGeneral({ local_echo: { queue_id: 'q-1', local_id: '1.01' } })]));
});

describe('defaultReadBySender', () => {
  it('ignores case', () => {
    expect(defaultReadBySender('WEBSITE')).toBe(true);
    expect(defaultReadBySender('zulipmobile')).toBe(true);
  });

  it('is false for an unknown or empty client', () => {
    expect(defaultReadBySender('')).toBe(false);
    expect(defaultReadBySender('my-script')).toBe(false);
  });
});

describe('directParticipants', () => {
  it('keeps the sender once and sorts by id', () => {
    expect(directParticipants(mary, [mark, mary, olivia]).map((p) => p.id)).toEqual([1, 4, 5]);
    expect(directParticipants(mary, []).map((p) => p.id)).toEqual([5]);
  });
});

describe('decideSendMessage mentions', () => {
  const crowd = Array.from({ length: 16 }, (_, i) => 100 + i);
  const busy = { ...general, subscriber_ids: [...crowd, 4] };
  const wildcard = (kind: 'channel' | 'topic') => ({ wildcard: kind, mentioned_user_ids: [], wildcard_mentioned_user_ids: crowd });

  it('records the mentioned and wildcard-mentioned users on the fact', () => {
    const mentions = { wildcard: null, mentioned_user_ids: [5], wildcard_mentioned_user_ids: [1, 6] };
    const fact = decideSendMessage({ ...cmd, mentions });
    expect(fact.mentioned_user_ids).toEqual([5]);
    expect(fact.wildcard_mentioned_user_ids).toEqual([1, 6]);
  });

  it('refuses a channel wildcard in a channel of more than 15 subscribers from a member', () =>
    when({ target: busy, mentions: wildcard('channel') }).thenThrows({ code: 'STREAM_WILDCARD_MENTION_NOT_ALLOWED' }));

  it('lets an administrator use a channel wildcard in a busy channel', () => {
    const admin = person(2, 'Adam', ROLE.administrator);
    expect(decideSendMessage({ ...cmd, sender: admin, target: busy, mentions: wildcard('channel') }).wildcard_mentioned_user_ids).toEqual(crowd);
  });

  it('allows a channel wildcard in a channel of 15 subscribers or fewer', () => {
    const small = { ...general, subscriber_ids: crowd.slice(0, 14).concat(4) };
    expect(decideSendMessage({ ...cmd, target: small, mentions: wildcard('channel') }).type).toBe('MessageSent');
  });

  it('refuses a topic wildcard in a topic with more than 15 participants from a member', () =>
    when({ target: busy, mentions: wildcard('topic'), topic_participant_count: 16 }).thenThrows({ code: 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED' }));

  it('allows a topic wildcard in a topic of 15 participants', () => {
    expect(decideSendMessage({ ...cmd, target: busy, mentions: wildcard('topic'), topic_participant_count: 15 }).type).toBe('MessageSent');
  });
});

describe('decideSendMessage topics policy', () => {
  it('allows the empty topic when the channel inherits the organization default', () => {
    expect(decideSendMessage({ ...cmd, target: { ...general, topic: '' } }).recipient).toMatchObject({ topic: '' });
  });

  it('refuses the empty topic, and its display name, where empty topics are disabled', () => {
    for (const topic of ['', 'general chat', '  ']) {
      toGeneral({ topic, topics_policy: 'disable_empty_topic' }).thenThrows({ code: 'BAD_REQUEST', msg: /not allowed in this channel/ });
    }
  });

  it('accepts a named topic where empty topics are disabled', () => {
    expect(decideSendMessage({ ...cmd, target: { ...general, topics_policy: 'disable_empty_topic' } }).recipient).toMatchObject({ topic: 'greetings' });
  });

  it('accepts only the empty topic where the channel is empty-topic-only', () => {
    toGeneral({ topics_policy: 'empty_topic_only' }).thenThrows({ code: 'BAD_REQUEST', msg: /Only the general chat topic/ });
    expect(decideSendMessage({ ...cmd, target: { ...general, topic: 'general chat', topics_policy: 'empty_topic_only' } }).recipient).toMatchObject({ topic: '' });
  });

  it('allows anything where the channel allows empty topics explicitly', () => {
    expect(decideSendMessage({ ...cmd, target: { ...general, topic: '', topics_policy: 'allow_empty_topic' } }).recipient).toMatchObject({ topic: '' });
  });
});

describe('recipients who muted the sender', () => {
  it('names them on the message, so that it reaches them already read', () =>
    when({ muted_sender_user_ids: [5] }).then([sentToGeneral({ muted_sender_user_ids: [5] })]));

  it('leaves the field out when nobody muted the sender', () => when({ muted_sender_user_ids: [] }).then([sentToGeneral()]));

  it('gives them the read flag and keeps their mention flag', () => {
    const fact = sentToGeneral({ muted_sender_user_ids: [5], mentioned_user_ids: [5, 6] });
    expect(initialMessageFlags(fact, 5)).toEqual(['read', 'mentioned']);
    expect(initialMessageFlags(fact, 6)).toEqual(['mentioned']);
  });
});
