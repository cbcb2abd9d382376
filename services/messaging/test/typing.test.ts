import { describe, expect, it } from '@jest/globals';
import { NO_CUSTOM_GROUPS } from '@teamchat/policies';
import { ClientEvent, SYSTEM_GROUP } from '@teamchat/contracts';
import { decideChannelTyping, decideDirectTyping, decideEditTyping, MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS } from '../src/domain/typing';
import type { Participant } from '../src/domain/send-message';

const user = (id: number, extra: Partial<Participant> = {}): Participant => ({
  id,
  email: `u${id}@example.com`,
  full_name: `User ${id}`,
  role: 400,
  is_active: true,
  is_bot: false,
  date_joined: 0,
  ...extra,
});
const NOW = 1_700_000_000;

const channel = (extra: Partial<Parameters<typeof decideChannelTyping>[2]> = {}): Parameters<typeof decideChannelTyping>[2] => ({
  kind: 'channel',
  channel_id: 10,
  name: 'general',
  invite_only: false,
  is_archived: false,
  subscriber_ids: [1, 2, 3],
  topic: 'lunch',
  can_send_message_group: SYSTEM_GROUP.everyone,
  ...extra,
});

describe('direct typing', () => {
  it('names every participant, the sender too, once each and in id order, and reaches them all', () => {
    const notice = decideDirectTyping(user(3), 'start', [user(2), user(3)]);
    expect(notice).toEqual({
      event: {
        type: 'typing',
        op: 'start',
        message_type: 'direct',
        sender: { user_id: 3, email: 'u3@example.com' },
        recipients: [
          { user_id: 2, email: 'u2@example.com' },
          { user_id: 3, email: 'u3@example.com' },
        ],
      },
      user_ids: [2, 3],
    });
    expect(ClientEvent.safeParse(notice.event).success).toBe(true);
  });

  it('refuses an empty conversation and deactivated users', () => {
    expect(() => decideDirectTyping(user(1), 'start', [])).toThrow("Empty 'to' list");
    expect(() => decideDirectTyping(user(1), 'stop', [user(2, { is_active: false })])).toThrow('no longer using this organization');
  });
});

describe('channel typing', () => {
  it('reaches the active subscribers where the sender may post', () => {
    const notice = decideChannelTyping(user(1), 'stop', channel(), [user(1), user(2), user(3, { is_active: false })], NOW, NO_CUSTOM_GROUPS);
    expect(notice).toEqual({
      event: { type: 'typing', op: 'stop', message_type: 'stream', sender: { user_id: 1, email: 'u1@example.com' }, stream_id: 10, topic: 'lunch' },
      user_ids: [1, 2],
    });
    expect(ClientEvent.safeParse(notice.event).success).toBe(true);
  });

  it('refuses private channels the sender is not in (as unknown), archived channels, posting restrictions and unsubscribed guests', () => {
    expect(() => decideChannelTyping(user(9), 'start', channel({ invite_only: true }), [], NOW, NO_CUSTOM_GROUPS)).toThrow('Invalid channel ID');
    expect(() => decideChannelTyping(user(1), 'start', channel({ is_archived: true }), [], NOW, NO_CUSTOM_GROUPS)).toThrow('Not authorized');
    expect(() => decideChannelTyping(user(1), 'start', channel({ can_send_message_group: SYSTEM_GROUP.administrators }), [], NOW, NO_CUSTOM_GROUPS)).toThrow(
      'permission to post',
    );
    expect(() => decideChannelTyping(user(9, { role: 600 }), 'start', channel(), [], NOW, NO_CUSTOM_GROUPS)).toThrow('Not authorized');
    expect(decideChannelTyping(user(1, { role: 600 }), 'start', channel(), [user(2)], NOW, NO_CUSTOM_GROUPS).user_ids).toEqual([2]);
  });

  it('tells nobody in a channel too busy for typing notifications', () => {
    const crowd = Array.from({ length: MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS + 1 }, (_, i) => user(i + 1));
    expect(decideChannelTyping(user(1), 'start', channel(), crowd, NOW, NO_CUSTOM_GROUPS).user_ids).toEqual([]);
  });
});

describe('edit typing', () => {
  const message = { id: 50, sender_id: 1, recipient: { type: 'direct' as const, user_ids: [1, 2] } };

  it('is announced by the message’s sender to its active audience', () => {
    const notice = decideEditTyping(user(1), 'start', message, [user(1), user(2), user(4, { is_active: false })]);
    expect(notice).toEqual({
      event: { type: 'typing_edit_message', op: 'start', sender_id: 1, message_id: 50, recipient: { type: 'direct', user_ids: [1, 2] } },
      user_ids: [1, 2],
    });
    expect(ClientEvent.safeParse(notice.event).success).toBe(true);
  });

  it('is refused to anyone else', () => {
    expect(() => decideEditTyping(user(2), 'start', message, [user(1), user(2)])).toThrow('permission');
  });
});

describe('receives_typing_notifications turned off', () => {
  const optedOut = new Set([2]);
  it('leaves those users out of direct, channel and edit typing, and no one else', () => {
    expect(decideDirectTyping(user(3), 'start', [user(2), user(3)], optedOut).user_ids).toEqual([3]);
    expect(decideChannelTyping(user(1), 'start', channel(), [user(1), user(2), user(3)], NOW, NO_CUSTOM_GROUPS, optedOut).user_ids).toEqual([1, 3]);
    const message = { id: 50, sender_id: 1, recipient: { type: 'direct' as const, user_ids: [1, 2] } };
    expect(decideEditTyping(user(1), 'start', message, [user(1), user(2)], optedOut).user_ids).toEqual([1]);
  });

  it('still names them in the event (the conversation is theirs), and refuses as before', () => {
    const notice = decideDirectTyping(user(3), 'start', [user(2), user(3)], optedOut);
    expect(notice.event).toMatchObject({ recipients: [{ user_id: 2 }, { user_id: 3 }] });
    expect(() => decideDirectTyping(user(1), 'start', [], optedOut)).toThrow("Empty 'to' list");
  });
});
