/**
 * Custom user groups in messaging's permissions: posting, typing, moving and deleting
 * follow a channel's group-settings that name a custom group, as the command's directory
 * of groups shows its members at that moment.
 */
import { describe, expect, it } from '@jest/globals';
import { defaultChannelGroupSettings, ROLE, SYSTEM_GROUP } from '@teamchat/contracts';
import { ORGANIZATION_POLICY, type DirectoryGroup, type GroupDirectory, type OrganizationPolicy } from '@teamchat/policies';
import { decideDeleteMessage, decideEditMessage, initialMessage, type ChannelGrants, type MessageSnapshot } from '../src/domain/message-changes';
import { decideSendMessage, type ChannelTarget, type Participant, type SendMessage } from '../src/domain/send-message';
import { decideChannelTyping } from '../src/domain/typing';

const SENT = 1_700_000_000;
const NOW_MS = (SENT + 60) * 1000;
const participant = (id: number, role: number): Participant => ({
  id,
  email: `u${id}@acme.example`,
  full_name: `User ${id}`,
  role,
  is_active: true,
  is_bot: false,
  date_joined: SENT - 1000 * 86400,
});
const mark = participant(4, ROLE.member);
const mary = participant(5, ROLE.member);
const asMember = (p: Participant) => ({ user_id: p.id, role: p.role, date_joined: p.date_joined });

/** Group 9 holds `members` directly and group 10 as a subgroup, which holds `nested`. */
function groups(members: number[], nested: number[] = []): GroupDirectory {
  const all: Record<number, DirectoryGroup> = {
    9: { direct_members: members, direct_subgroups: [10], deactivated: false },
    10: { direct_members: nested, direct_subgroups: [], deactivated: false },
  };
  return { group: (id) => all[id] };
}

const msgOf = (run: () => unknown) => {
  try {
    run();
    return 'allowed';
  } catch (err) {
    return (err as { msg: string }).msg;
  }
};

describe('posting where can_send_message_group names a custom group', () => {
  const announcements: ChannelTarget = {
    kind: 'channel',
    channel_id: 10,
    name: 'announcements',
    invite_only: false,
    is_archived: false,
    subscriber_ids: [4, 5],
    topic: 'news',
    topics_policy: 'inherit',
    can_send_message_group: 9,
  };
  const send = (sender: Participant, directory: GroupDirectory): SendMessage => ({
    sender,
    target: announcements,
    content: 'hi',
    rendered_content: '<p>hi</p>',
    mentions: { wildcard: null, mentioned_user_ids: [], wildcard_mentioned_user_ids: [] },
    topic_participant_count: 0,
    is_me_message: false,
    client: 'test',
    read_by_sender: undefined,
    local_echo: null,
    recipient_id: 7,
    groups: directory,
    now: NOW_MS,
  });

  it('lets the group members post (directly or through a subgroup) and refuses everyone else', () => {
    expect(decideSendMessage(send(mary, groups([5]))).sender_id).toBe(5);
    expect(decideSendMessage(send(mark, groups([], [4]))).sender_id).toBe(4);
    expect(msgOf(() => decideSendMessage(send(mary, groups([]))))).toBe('You do not have permission to post in this channel.');
    expect(msgOf(() => decideSendMessage(send(mark, groups([5]))))).toBe('You do not have permission to post in this channel.');
  });

  it('lets only the group members type there', () => {
    const target = { ...announcements, topic: 'news' };
    expect(decideChannelTyping(mary, 'start', target, [mark, mary], SENT, groups([5])).user_ids).toEqual([4, 5]);
    expect(msgOf(() => decideChannelTyping(mary, 'start', target, [mark, mary], SENT, groups([])))).toBe('You do not have permission to post in this channel.');
  });
});

describe('moving and deleting where a channel grants it to a custom group', () => {
  const message: MessageSnapshot = {
    id: 42,
    sender_id: 1,
    timestamp: SENT,
    channel_id: 10,
    channel_name: 'general',
    recipient_id: 42,
    topic: 'greetings',
    content: 'hello',
    rendered_content: '<p>hello</p>',
  };
  const grants = (overrides: Partial<ChannelGrants>): ChannelGrants => ({ ...defaultChannelGroupSettings(null), ...overrides });
  // The organization lets only moderators move topics here, so the channel's grant is what decides.
  const policy: OrganizationPolicy = { ...ORGANIZATION_POLICY, canMoveMessagesBetweenTopicsGroup: SYSTEM_GROUP.moderators };

  it("lets a member of the channel's can_delete_any_message_group delete anyone's message", () => {
    const del = (directory: GroupDirectory) =>
      decideDeleteMessage(initialMessage(), {
        actor: asMember(mary),
        message,
        grants: grants({ can_delete_any_message_group: 9 }),
        audience_user_ids: [1, 5],
        groups: directory,
        now: NOW_MS,
      });
    expect(del(groups([5]))[0]).toMatchObject({ type: 'MessageDeleted', deleted_by: 5 });
    expect(msgOf(() => del(groups([])))).toBe("You don't have permission to delete this message");
  });

  it("lets a member of the channel's can_move_messages_within_channel_group move topics", () => {
    const move = (directory: GroupDirectory) =>
      decideEditMessage(initialMessage(), {
        actor: asMember(mary),
        message,
        source_grants: grants({ can_move_messages_within_channel_group: 9 }),
        topic: 'elsewhere',
        propagate_mode: 'change_one',
        moved_message_ids: [42],
        audience_user_ids: [1, 5],
        groups: directory,
        now: NOW_MS,
        policy,
      });
    expect(move(groups([], [5]))[0]!.move).toMatchObject({ topic: 'elsewhere' });
    expect(msgOf(() => move(groups([])))).toBe("You don't have permission to edit this message");
  });
});

