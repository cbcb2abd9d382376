import { describe, expect, it } from '@jest/globals';
import { ROLE, SYSTEM_GROUP, type Fact } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { decideAllocateRecipient, evolveRecipients, initialRecipients, type RecipientRegistry } from '../src/domain/recipients';
import { recipientKey, type ChannelTarget, type Participant } from '../src/domain/send-message';

const registry = deciderSpec<RecipientRegistry, string>({
  initial: initialRecipients,
  evolve: evolveRecipients,
  decide: (key, state) => decideAllocateRecipient(state, key),
});
const allocated = (key: string, recipient_id: number): Fact => ({ type: 'RecipientAllocated', key, recipient_id });

describe('decideAllocateRecipient', () => {
  it('allocates id 1 to the first conversation', () => registry.given([]).when('channel:10').then([allocated('channel:10', 1)]));

  it('allocates the next id to a new conversation', () =>
    registry.given([allocated('channel:10', 1), allocated('direct:1,4', 2)]).when('direct:4,5').then([allocated('direct:4,5', 3)]));

  it('allocates above the highest id seen', () => registry.given([allocated('channel:3', 8)]).when('channel:4').then([allocated('channel:4', 9)]));

  it('decides nothing for a known conversation', () =>
    registry.given([allocated('channel:10', 1), allocated('direct:1,4', 2)]).when('channel:10').then([]));

  it('ignores other facts', () =>
    registry.given([{ type: 'SubscriptionsAdded', channel_id: 10, user_ids: [1] }]).when('channel:10').then([allocated('channel:10', 1)]));
});

describe('evolveRecipients', () => {
  it('adds each allocation to the one map, never copying it (folding the stream stays linear in conversations)', () => {
    const facts = Array.from({ length: 1000 }, (_, i) => allocated(`direct:${i}`, i + 1));
    const start = initialRecipients();
    const folded = facts.reduce(evolveRecipients, start);
    expect(folded.byKey).toBe(start.byKey);
    expect(folded.byKey.size).toBe(1000);
    expect([folded.byKey.get('direct:999'), folded.lastId]).toEqual([1000, 1000]);
    expect(decideAllocateRecipient(folded, 'channel:1')).toEqual([allocated('channel:1', 1001)]);
  });
});

describe('recipientKey', () => {
  const person = (id: number): Participant => ({ id, email: `u${id}@acme.example`, full_name: `U${id}`, role: ROLE.member, is_active: true, is_bot: false, date_joined: 0 });
  const [u1, u4, u5] = [person(1), person(4), person(5)];
  const direct = (...users: Participant[]) => ({ kind: 'direct' as const, users });

  it('is shared by everyone in the same set, whoever sends and in whatever order', () => {
    expect(recipientKey(u4, direct(u5, u1))).toBe('direct:1,4,5');
    expect(recipientKey(u1, direct(u5, u4))).toBe('direct:1,4,5');
    expect(recipientKey(u5, direct(u4, u1, u5, u4))).toBe('direct:1,4,5');
  });

  it('is the same both ways for two people', () => {
    expect(recipientKey(u4, direct(u5))).toBe('direct:4,5');
    expect(recipientKey(u5, direct(u4))).toBe('direct:4,5');
  });

  it('differs for a different set', () => {
    expect(recipientKey(u4, direct(u5))).not.toBe(recipientKey(u4, direct(u1)));
  });

  it('is the sender alone for a message to oneself', () => {
    expect(recipientKey(u4, direct(u4))).toBe('direct:4');
    expect(recipientKey(u4, direct())).toBe('direct:4');
  });

  it('sorts ids numerically, not as text', () => {
    expect(recipientKey(person(10), direct(person(9), person(100)))).toBe('direct:9,10,100');
  });

  it('is the channel for a channel message, whoever sends', () => {
    const target: ChannelTarget = { kind: 'channel', channel_id: 10, name: 'general', invite_only: false, is_archived: false, subscriber_ids: [], topic: 'a', topics_policy: 'inherit', can_send_message_group: SYSTEM_GROUP.everyone };
    expect(recipientKey(u1, target)).toBe('channel:10');
    expect(recipientKey(u5, { ...target, topic: 'b' })).toBe('channel:10');
  });
});
