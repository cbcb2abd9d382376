import { describe, expect, it } from '@jest/globals';
import type { FactOf } from '@teamchat/contracts';
import { matchesQueueNarrow, parseQueueNarrow } from '../src/domain/queue-narrow';

const base = {
  type: 'MessageSent' as const,
  sender_id: 4,
  sender_email: 'Mark@acme.example',
  sender_full_name: 'Mark',
  content: 'x',
  rendered_content: '<p>x</p>',
  is_me_message: false,
  client: 'website',
  recipient_id: 1,
  timestamp: 1,
  recipient_user_ids: [1, 4, 5],
  mentioned_user_ids: [],
  wildcard_mentioned_user_ids: [],
  read_by_sender: true,
  local_echo: null,
};
const inChannel = (channel_name: string, topic: string, channel_id = 10): FactOf<'MessageSent'> => ({
  ...base,
  recipient: { type: 'channel', channel_id, channel_name, topic },
});
const user = (id: number, email: string) => ({ id, email, full_name: email, is_mirror_dummy: false });
const direct = (...users: ReturnType<typeof user>[]): FactOf<'MessageSent'> => ({ ...base, recipient: { type: 'direct', users } });

const OWNER = 5;
const matches = (narrow: Parameters<typeof parseQueueNarrow>[0], message: FactOf<'MessageSent'>) =>
  matchesQueueNarrow(parseQueueNarrow(narrow, OWNER), message);

describe('queue narrows', () => {
  it('lets everything through without a narrow', () => {
    expect(matches([], inChannel('general', 'a'))).toBe(true);
    expect(matches(undefined, direct(user(4, 'm@x'), user(5, 'o@x')))).toBe(true);
  });

  it('matches a channel by name (case-insensitive) or id, with legacy names and tuple form', () => {
    expect(matches([{ operator: 'channel', operand: 'General' }], inChannel('general', 'a'))).toBe(true);
    expect(matches([['stream', 'general']], inChannel('random', 'a'))).toBe(false);
    expect(matches([{ operator: 'channel', operand: 10 }], inChannel('general', 'a'))).toBe(true);
    expect(matches([{ operator: 'channel', operand: '11' }], inChannel('general', 'a'))).toBe(false);
    expect(matches([{ operator: 'channel', operand: 'general' }], direct(user(4, 'm@x')))).toBe(false);
  });

  it('matches topics case-insensitively, the empty topic by its display name too, and negation', () => {
    expect(matches([['channel', 'general'], ['subject', 'Lunch']], inChannel('general', 'lunch'))).toBe(true);
    expect(matches([{ operator: 'topic', operand: 'general chat' }], inChannel('general', ''))).toBe(true);
    expect(matches([{ operator: 'topic', operand: 'lunch', negated: true }], inChannel('general', 'lunch'))).toBe(false);
    expect(matches([{ operator: 'topic', operand: 'lunch', negated: true }], inChannel('general', 'dinner'))).toBe(true);
  });

  it('matches exactly the direct conversation with the given users (and the owner), by id or email', () => {
    const withMark = direct(user(4, 'mark@x'), user(OWNER, 'me@x'));
    const group = direct(user(4, 'mark@x'), user(6, 'gus@x'), user(OWNER, 'me@x'));
    expect(matches([{ operator: 'dm', operand: [4] }], withMark)).toBe(true);
    expect(matches([{ operator: 'dm', operand: 'MARK@x' }], withMark)).toBe(true);
    expect(matches([{ operator: 'dm', operand: [4] }], group)).toBe(false);
    expect(matches([{ operator: 'pm-with', operand: 'mark@x,gus@x' }], group)).toBe(true);
    expect(matches([{ operator: 'is', operand: 'dm' }], group)).toBe(true);
    expect(matches([{ operator: 'is', operand: 'private' }], inChannel('general', 'a'))).toBe(false);
  });

  it('matches the sender by id or email', () => {
    expect(matches([{ operator: 'sender', operand: 4 }], inChannel('general', 'a'))).toBe(true);
    expect(matches([{ operator: 'sender', operand: 'mark@acme.example' }], inChannel('general', 'a'))).toBe(true);
    expect(matches([{ operator: 'sender', operand: 5 }], inChannel('general', 'a'))).toBe(false);
  });

  it('refuses operators and operands it cannot apply to events', () => {
    for (const narrow of [[{ operator: 'search', operand: 'x' }], [{ operator: 'is', operand: 'starred' }], [{ operator: 'channel', operand: ['a'] }], [{ operator: 'dm', operand: [{}] }]]) {
      expect(() => parseQueueNarrow(narrow as never, OWNER)).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
    }
  });
});
