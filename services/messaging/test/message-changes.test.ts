import { describe, expect, it } from '@jest/globals';
import { defaultChannelGroupSettings, isApiError, ROLE, SYSTEM_GROUP, VISIBILITY_POLICY, type Fact, type FactOf } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  automaticVisibilityPolicy,
  checkEditableFlag,
  decideDeleteMessage,
  decideEditMessage,
  decideFlags,
  decideReaction,
  decideUserTopic,
  evolveMessage,
  initialMessage,
  type ChannelGrants,
  type EditCommand,
  type MessageSnapshot,
  type MessageState,
  type ReactionCommand,
} from '../src/domain/message-changes';
import { NO_CUSTOM_GROUPS, ORGANIZATION_POLICY, type OrganizationPolicy } from '@teamchat/policies';

// ---------------------------------------------------------------------------------------
// Reactions: the message's own stream (reactions and deletion) is the state.
// ---------------------------------------------------------------------------------------

const reactions = deciderSpec<MessageState, ReactionCommand>({
  initial: initialMessage,
  evolve: evolveMessage,
  decide: (cmd, state) => decideReaction(state, cmd),
});

type Emoji = ReactionCommand['emoji'];
const thumbsUp: Emoji = { emoji_name: '+1', emoji_code: '1f44d', reaction_type: 'unicode_emoji' };
const audience = [1, 4, 5];
const react = (overrides: Partial<ReactionCommand> = {}): ReactionCommand => ({
  op: 'add',
  message_id: 42,
  user_id: 4,
  emoji: thumbsUp,
  audience_user_ids: audience,
  ...overrides,
});
const reactionAdded = (user_id = 4, emoji: Emoji = thumbsUp): FactOf<'ReactionAdded'> => ({
  type: 'ReactionAdded',
  message_id: 42,
  user_id,
  ...emoji,
  audience_user_ids: audience,
});
const reactionRemoved = (user_id = 4, emoji: Emoji = thumbsUp): FactOf<'ReactionRemoved'> => ({
  type: 'ReactionRemoved',
  message_id: 42,
  user_id,
  ...emoji,
  audience_user_ids: audience,
});
const deleted: FactOf<'MessageDeleted'> = {
  type: 'MessageDeleted',
  message_id: 42,
  deleted_by: 4,
  channel_id: 10,
  topic: 'greetings',
  audience_user_ids: audience,
};

describe('decideReaction', () => {
  it('adds a reaction, announced to the audience', () => reactions.given([]).when(react()).then([reactionAdded()]));

  it('refuses to add the same reaction twice', () =>
    reactions.given([reactionAdded()]).when(react()).thenThrows({ code: 'BAD_REQUEST', msg: 'Reaction already exists.' }));

  it('refuses to remove a reaction that does not exist', () =>
    reactions.given([]).when(react({ op: 'remove' })).thenThrows({ code: 'BAD_REQUEST', msg: "Reaction doesn't exist." }));

  it('removes a reaction that was added', () =>
    reactions.given([reactionAdded()]).when(react({ op: 'remove' })).then([reactionRemoved()]));

  it('refuses to remove a reaction a second time', () =>
    reactions
      .given([reactionAdded(), reactionRemoved()])
      .when(react({ op: 'remove' }))
      .thenThrows({ code: 'BAD_REQUEST', msg: "Reaction doesn't exist." }));

  it('adds a reaction again after it was removed', () =>
    reactions.given([reactionAdded(), reactionRemoved()]).when(react()).then([reactionAdded()]));

  it('lets another user add the same emoji', () =>
    reactions.given([reactionAdded(4)]).when(react({ user_id: 5 })).then([reactionAdded(5)]));

  it("refuses to remove another user's reaction as one's own", () =>
    reactions
      .given([reactionAdded(5)])
      .when(react({ op: 'remove' }))
      .thenThrows({ code: 'BAD_REQUEST', msg: "Reaction doesn't exist." }));

  it('treats a different reaction_type with the same code as a different reaction', () => {
    const realm = { emoji_name: 'thumbs', emoji_code: '1f44d', reaction_type: 'realm_emoji' as const };
    reactions.given([reactionAdded(4, thumbsUp)]).when(react({ emoji: realm })).then([reactionAdded(4, realm)]);
  });

  it('treats a different code as a different reaction', () => {
    const heart = { emoji_name: 'heart', emoji_code: '2764', reaction_type: 'unicode_emoji' as const };
    reactions.given([reactionAdded(4, thumbsUp)]).when(react({ emoji: heart })).then([reactionAdded(4, heart)]);
  });

  it('refuses to add a reaction to a deleted message', () =>
    reactions.given([deleted]).when(react()).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid message(s)' }));

  it('refuses to remove a reaction from a deleted message', () =>
    reactions.given([reactionAdded(), deleted]).when(react({ op: 'remove' })).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid message(s)' }));
});

describe('evolveMessage', () => {
  it('starts with no reactions, not deleted, no widget', () => {
    expect(initialMessage()).toStrictEqual({ deleted: false, reactions: new Set(), widget: null });
  });

  it('folds reactions by user, type and code', () => {
    const state = [reactionAdded(4), reactionAdded(5), reactionRemoved(4)].reduce(evolveMessage, initialMessage());
    expect(state).toStrictEqual({ deleted: false, reactions: new Set(['5:unicode_emoji:1f44d']), widget: null });
  });

  it('marks the message deleted', () => {
    expect(evolveMessage(initialMessage(), deleted).deleted).toBe(true);
  });

  it('does not mutate the state it is given', () => {
    const before = initialMessage();
    evolveMessage(before, reactionAdded());
    expect(before.reactions.size).toBe(0);
  });

  it('ignores other facts', () => {
    const state = initialMessage();
    const other: Fact = { type: 'SubscriptionsAdded', channel_id: 10, user_ids: [1] };
    expect(evolveMessage(state, other)).toBe(state);
  });
});

// ---------------------------------------------------------------------------------------
// Edits and moves.
// ---------------------------------------------------------------------------------------

const edits = deciderSpec<MessageState, EditCommand>({
  initial: initialMessage,
  evolve: evolveMessage,
  decide: (cmd, state) => decideEditMessage(state, cmd),
});

const SENT = 1_700_000_000; // seconds
/** A clock `seconds` after the message was sent, with stray milliseconds to floor away. */
const after = (seconds: number, ms = 999) => (SENT + seconds) * 1000 + ms;
const DAY = 24 * 3600;

const JOINED = SENT - 365 * DAY;
const mark = { user_id: 4, role: ROLE.member, date_joined: JOINED };
const mary = { user_id: 5, role: ROLE.member, date_joined: JOINED };
const olivia = { user_id: 1, role: ROLE.owner, date_joined: JOINED };
const moderator = { user_id: 3, role: ROLE.moderator, date_joined: JOINED };
const gus = { user_id: 6, role: ROLE.guest, date_joined: JOINED };
const adam = { user_id: 2, role: ROLE.administrator, date_joined: JOINED };

/** A channel with Zulip's default group-settings: no channel-level grants. */
const DEFAULT_GRANTS: ChannelGrants = defaultChannelGroupSettings(null);
const target = (id: number, name: string, recipient_id: number, grants: ChannelGrants = DEFAULT_GRANTS) => ({ id, name, recipient_id, grants });

const message: MessageSnapshot = {
  id: 42,
  sender_id: 4,
  timestamp: SENT,
  channel_id: 10,
  channel_name: 'general',
  recipient_id: 42,
  topic: 'greetings',
  content: 'hello',
  rendered_content: '<p>hello</p>',
};
const directMessage: MessageSnapshot = { ...message, channel_id: null, channel_name: null, topic: null };

const newContent = {
  content: 'hello @**Mary**',
  rendered_content: '<p>hello <span class="user-mention" data-user-id="5">@Mary</span></p>',
  is_me_message: false,
  mentioned_user_ids: [5],
  wildcard_mentioned_user_ids: [],
  alert_word_user_ids: [6],
};

/** An organization that lets members only (not Zulip's default, everyone) move topics. */
const MEMBERS_MOVE_TOPICS: OrganizationPolicy = { ...ORGANIZATION_POLICY, canMoveMessagesBetweenTopicsGroup: SYSTEM_GROUP.members };

const edit = (overrides: Partial<EditCommand> = {}): EditCommand => ({
  groups: NO_CUSTOM_GROUPS,
  actor: mark,
  message,
  source_grants: DEFAULT_GRANTS,
  propagate_mode: 'change_one',
  moved_message_ids: [42],
  audience_user_ids: audience,
  now: after(60),
  ...overrides,
});

const edited = (overrides: Partial<FactOf<'MessageEdited'>> = {}): FactOf<'MessageEdited'> => ({
  type: 'MessageEdited',
  message_id: 42,
  editor_id: 4,
  timestamp: SENT + 60,
  content: null,
  move: null,
  audience_user_ids: audience,
  ...overrides,
});
const contentChange = {
  prev_content: 'hello',
  prev_rendered_content: '<p>hello</p>',
  ...newContent,
};
type Move = NonNullable<FactOf<'MessageEdited'>['move']>;
const topicMove = (overrides: Partial<Move> = {}): Move => ({
  prev_channel_id: 10,
  channel_id: 10,
  // A topic-only move keeps the message's channel name and recipient id.
  channel_name: 'general',
  prev_topic: 'greetings',
  topic: 'welcome',
  propagate_mode: 'change_one',
  message_ids: [42],
  recipient_id: 42,
  revoked_user_ids: [],
  ...overrides,
});

const thenThrows = (cmd: EditCommand, msg: string | RegExp, given: Fact[] = []) =>
  edits.given(given).when(cmd).thenThrows({ code: 'BAD_REQUEST', msg });

describe('decideEditMessage: content', () => {
  it('lets the sender edit the content, with the previous content and the new mentions', () =>
    edits.given([]).when(edit({ content: newContent })).then([edited({ content: contentChange })]));

  it('records the edit time in seconds, floored', () =>
    edits
      .given([])
      .when(edit({ content: newContent, now: after(120, 999) }))
      .then([edited({ content: contentChange, timestamp: SENT + 120 })]));

  it('carries is_me_message and wildcard mentions through', () => {
    const me = { content: '/me waves', rendered_content: '<p>/me waves</p>', is_me_message: true, mentioned_user_ids: [], wildcard_mentioned_user_ids: [1, 5], alert_word_user_ids: [] };
    edits
      .given([])
      .when(edit({ content: me }))
      .then([edited({ content: { prev_content: 'hello', prev_rendered_content: '<p>hello</p>', ...me } })]);
  });

  it('allows an edit up to the 600 second limit plus the 20 second grace', () =>
    edits
      .given([])
      .when(edit({ content: newContent, now: after(620, 999) }))
      .then([edited({ content: contentChange, timestamp: SENT + 620 })]));

  it('refuses an edit after 600 seconds and the grace', () =>
    thenThrows(edit({ content: newContent, now: after(621, 0) }), 'The time limit for editing this message has passed'));

  it("refuses another member's content edit", () =>
    thenThrows(edit({ actor: mary, content: newContent }), "You don't have permission to edit this message"));

  it("refuses an owner's edit of someone else's content", () =>
    thenThrows(edit({ actor: olivia, content: newContent }), "You don't have permission to edit this message"));

  it("refuses a moderator's edit of someone else's content", () =>
    thenThrows(edit({ actor: moderator, content: newContent }), "You don't have permission to edit this message"));

  it('refuses empty content', () =>
    thenThrows(edit({ content: { ...newContent, content: '' } }), 'Message must not be empty'));

  it('refuses whitespace-only content', () =>
    thenThrows(edit({ content: { ...newContent, content: '  \n\t ' } }), 'Message must not be empty'));

  it('allows content of exactly 10000 code points', () => {
    const long = { ...newContent, content: '😀'.repeat(10000) };
    edits
      .given([])
      .when(edit({ content: long }))
      .then([edited({ content: { prev_content: 'hello', prev_rendered_content: '<p>hello</p>', ...long } })]);
  });

  it('refuses content over 10000 code points', () =>
    thenThrows(edit({ content: { ...newContent, content: 'a'.repeat(10001) } }), /^Message too long \(limit: 10000 characters\)$/));

  it('counts code points, not UTF-16 units', () =>
    thenThrows(edit({ content: { ...newContent, content: '😀'.repeat(10001) } }), /Message too long/));

  it('refuses the same content with nothing else to change', () =>
    thenThrows(edit({ content: { ...newContent, content: 'hello' } }), 'Nothing to change'));

  it('refuses a request with no changes at all', () => thenThrows(edit(), 'Nothing to change'));

  it('lets the sender edit the content of a direct message', () =>
    edits.given([]).when(edit({ message: directMessage, content: newContent })).then([edited({ content: contentChange })]));

  it('refuses to edit a deleted message', () =>
    thenThrows(edit({ content: newContent }), 'Invalid message(s)', [deleted]));
});

describe('decideEditMessage: topic moves', () => {
  it('lets a member move the topic of any message within 7 days', () =>
    edits
      .given([])
      .when(edit({ actor: mary, topic: 'welcome', now: after(7 * DAY, 999) }))
      .then([edited({ editor_id: 5, timestamp: SENT + 7 * DAY, move: topicMove() })]));

  it('sorts and deduplicates the moved ids, the edited one included', () =>
    edits
      .given([])
      .when(edit({ topic: 'welcome', propagate_mode: 'change_all', moved_message_ids: [50, 7, 50, 43] }))
      .then([edited({ move: topicMove({ propagate_mode: 'change_all', message_ids: [7, 42, 43, 50] }) })]));

  it('sorts the moved ids numerically', () =>
    edits
      .given([])
      .when(edit({ topic: 'welcome', propagate_mode: 'change_later', moved_message_ids: [100, 42, 9] }))
      .then([edited({ move: topicMove({ propagate_mode: 'change_later', message_ids: [9, 42, 100] }) })]));

  it('trims the requested topic', () =>
    edits.given([]).when(edit({ topic: '  welcome  ' })).then([edited({ move: topicMove() })]));

  it("lets a guest move a topic: Zulip's organization default is role:everyone", () =>
    edits
      .given([])
      .when(edit({ actor: gus, topic: 'welcome' }))
      .then([edited({ editor_id: 6, move: topicMove() })]));

  it("refuses a guest's topic move where the organization allows members only", () =>
    thenThrows(edit({ actor: gus, topic: 'welcome', policy: MEMBERS_MOVE_TOPICS }), "You don't have permission to edit this message"));

  it("refuses a member's topic move after 7 days", () =>
    thenThrows(edit({ actor: mary, topic: 'welcome', now: after(7 * DAY + 21, 0) }), /^The time limit for editing this message's topic has passed/));

  it('lets a moderator move a topic after 7 days', () =>
    edits
      .given([])
      .when(edit({ actor: moderator, topic: 'welcome', now: after(30 * DAY, 0) }))
      .then([edited({ editor_id: 3, timestamp: SENT + 30 * DAY, move: topicMove() })]));

  it('lets an administrator move a topic after 7 days', () =>
    edits
      .given([])
      .when(edit({ actor: adam, topic: 'welcome', now: after(30 * DAY, 0) }))
      .then([edited({ editor_id: 2, timestamp: SENT + 30 * DAY, move: topicMove() })]));

  it("normalizes 'general chat' to the empty topic", () =>
    edits.given([]).when(edit({ topic: 'general chat' })).then([edited({ move: topicMove({ topic: '' }) })]));

  it("normalizes '  general chat ' after trimming", () =>
    edits.given([]).when(edit({ topic: '  general chat ' })).then([edited({ move: topicMove({ topic: '' }) })]));

  it("treats 'general chat' on a message already in the empty topic as no change", () =>
    thenThrows(edit({ message: { ...message, topic: '' }, topic: 'general chat' }), 'Nothing to change'));

  it('moves from the empty topic', () =>
    edits
      .given([])
      .when(edit({ message: { ...message, topic: '' }, topic: 'welcome' }))
      .then([edited({ move: topicMove({ prev_topic: '' }) })]));

  it('allows a topic of exactly 60 code points', () => {
    const topic = '🙂'.repeat(60);
    edits.given([]).when(edit({ topic })).then([edited({ move: topicMove({ topic }) })]);
  });

  it('refuses a topic over 60 code points', () =>
    thenThrows(edit({ topic: 'a'.repeat(61) }), /^Topic too long \(limit: 60 characters\)$/));

  it('refuses a topic containing a null byte', () =>
    thenThrows(edit({ topic: 'wel\u0000come' }), 'Topic must not contain null bytes'));

  it('refuses a topic on a direct message', () =>
    thenThrows(edit({ message: directMessage, topic: 'welcome' }), 'Direct messages cannot have topics.'));

  it('refuses to move a direct message to a channel', () =>
    thenThrows(
      edit({ message: directMessage, channel: target(11, 'random', 77) }),
      'Direct messages cannot be moved to channels.',
    ));

  it('refuses the same topic with nothing else to change', () =>
    thenThrows(edit({ topic: 'greetings' }), 'Nothing to change'));

  it('refuses the same topic after trimming', () =>
    thenThrows(edit({ topic: ' greetings ' }), 'Nothing to change'));

  it('treats a topic differing only in case as a change', () =>
    edits.given([]).when(edit({ topic: 'Greetings' })).then([edited({ move: topicMove({ topic: 'Greetings' }) })]));

  it('does not check the move limits when the topic does not change', () =>
    thenThrows(edit({ actor: gus, topic: 'greetings', now: after(30 * DAY, 0) }), 'Nothing to change'));

  it('refuses to move a deleted message', () =>
    thenThrows(edit({ topic: 'welcome' }), 'Invalid message(s)', [deleted]));
});

describe('decideEditMessage: channel moves', () => {
  const random = target(11, 'random', 77);
  const channelMove = (overrides: Partial<Move> = {}): Move => ({
    prev_channel_id: 10,
    channel_id: 11,
    channel_name: 'random',
    prev_topic: 'greetings',
    topic: 'greetings',
    propagate_mode: 'change_one',
    message_ids: [42],
    recipient_id: 77,
    revoked_user_ids: [],
    ...overrides,
  });

  it('lets a member move a message to another channel, keeping the topic', () =>
    edits.given([]).when(edit({ actor: mary, channel: random })).then([edited({ editor_id: 5, move: channelMove() })]));

  it('moves to another channel and topic at once', () =>
    edits
      .given([])
      .when(edit({ channel: random, topic: 'welcome', propagate_mode: 'change_all', moved_message_ids: [44, 42, 43] }))
      .then([edited({ move: channelMove({ topic: 'welcome', propagate_mode: 'change_all', message_ids: [42, 43, 44] }) })]));

  it("refuses a guest's channel move", () =>
    thenThrows(edit({ actor: gus, channel: random }), "You don't have permission to move this message"));

  it("refuses a member's channel move after 7 days", () =>
    thenThrows(edit({ channel: random, now: after(7 * DAY + 21, 0) }), /^The time limit for editing this message's channel has passed/));

  it('lets a moderator move to another channel after 7 days', () =>
    edits
      .given([])
      .when(edit({ actor: moderator, channel: random, now: after(10 * DAY, 0) }))
      .then([edited({ editor_id: 3, timestamp: SENT + 10 * DAY, move: channelMove() })]));

  it('refuses the same channel and the same topic', () =>
    thenThrows(edit({ channel: target(10, 'general', 42), topic: 'greetings' }), 'Nothing to change'));

  it('refuses the same channel alone', () =>
    thenThrows(edit({ channel: target(10, 'general', 42) }), 'Nothing to change'));

  it('does not treat naming the same channel as a channel move (a guest, who may not move channels, moves the topic)', () =>
    edits
      .given([])
      .when(edit({ actor: gus, channel: target(10, 'general', 42), topic: 'welcome' }))
      .then([edited({ editor_id: 6, move: topicMove({ channel_name: 'general', recipient_id: 42 }) })]));

  it('takes the name and recipient from a same-channel target on a topic move', () =>
    edits
      .given([])
      .when(edit({ channel: target(10, 'general', 42), topic: 'welcome' }))
      .then([edited({ move: topicMove({ channel_name: 'general', recipient_id: 42 }) })]));
});

describe('decideEditMessage: channel-level grants', () => {
  const grants = (overrides: Partial<ChannelGrants>): ChannelGrants => ({ ...DEFAULT_GRANTS, ...overrides });
  const random = (g: Partial<ChannelGrants> = {}) => target(11, 'random', 77, grants(g));
  const randomMove = (overrides: Partial<Move> = {}): Move => ({
    ...topicMove({ channel_id: 11, channel_name: 'random', recipient_id: 77, topic: 'greetings' }),
    ...overrides,
  });

  // Zulip lets everyone move topics by default; these organizations allow members only,
  // so that what a channel grants on top shows.
  it("lets a guest move a topic when the channel's can_move_messages_within_channel_group includes them", () =>
    edits
      .given([])
      .when(edit({ actor: gus, topic: 'welcome', policy: MEMBERS_MOVE_TOPICS, source_grants: grants({ can_move_messages_within_channel_group: SYSTEM_GROUP.everyone }) }))
      .then([edited({ editor_id: 6, move: topicMove() })]));

  it('lets the user an anonymous group names move a topic', () =>
    edits
      .given([])
      .when(edit({ actor: gus, topic: 'welcome', policy: MEMBERS_MOVE_TOPICS, source_grants: grants({ can_move_messages_within_channel_group: { direct_members: [6], direct_subgroups: [] } }) }))
      .then([edited({ editor_id: 6, move: topicMove() })]));

  it('refuses a guest named in can_administer_channel_group: guests never administer channels', () =>
    thenThrows(
      edit({ actor: gus, topic: 'welcome', policy: MEMBERS_MOVE_TOPICS, source_grants: grants({ can_administer_channel_group: { direct_members: [6], direct_subgroups: [] } }) }),
      "You don't have permission to edit this message",
    ));

  it("does not lift the time limit for topic moves granted by the channel", () =>
    thenThrows(
      edit({ actor: mary, topic: 'welcome', now: after(7 * DAY + 21, 0), source_grants: grants({ can_move_messages_within_channel_group: SYSTEM_GROUP.members }) }),
      /^The time limit for editing this message's topic has passed/,
    ));

  it("lets a guest move a message out of the channel with its can_move_messages_out_of_channel_group", () =>
    edits
      .given([])
      .when(edit({ actor: gus, channel: random(), source_grants: grants({ can_move_messages_out_of_channel_group: SYSTEM_GROUP.everyone }) }))
      .then([edited({ editor_id: 6, move: randomMove() })]));

  it("takes a topic move's grant from the destination channel too", () =>
    edits
      .given([])
      .when(
        edit({
          actor: gus,
          policy: MEMBERS_MOVE_TOPICS,
          channel: random({ can_move_messages_within_channel_group: SYSTEM_GROUP.everyone }),
          topic: 'welcome',
          source_grants: grants({ can_move_messages_out_of_channel_group: SYSTEM_GROUP.everyone }),
        }),
      )
      .then([edited({ editor_id: 6, move: randomMove({ topic: 'welcome' }) })]));

  it("does not take a channel move's grant from the destination", () =>
    thenThrows(edit({ actor: gus, channel: random({ can_move_messages_out_of_channel_group: SYSTEM_GROUP.everyone }) }), "You don't have permission to move this message"));

  it('refuses a move to a channel the mover may not post in', () =>
    thenThrows(edit({ actor: adam, channel: random({ can_send_message_group: SYSTEM_GROUP.nobody }) }), 'You do not have permission to post in this channel.'));

  it('never counts a guest as a channel administrator, even where the setting names everyone', () =>
    edits
      .given([])
      .when(edit({ actor: gus, channel: random(), source_grants: grants({ can_administer_channel_group: SYSTEM_GROUP.everyone }) }))
      .thenThrows({ code: 'BAD_REQUEST', msg: "You don't have permission to move this message" }));
});

describe('decideEditMessage: revoked access', () => {
  it('carries who loses the messages on a channel move, sorted', () => {
    const [fact] = decideEditMessage(initialMessage(), edit({ channel: target(11, 'secret', 77), revoked_user_ids: [9, 5] }));
    expect(fact!.move).toMatchObject({ channel_id: 11, revoked_user_ids: [5, 9] });
  });

  it('revokes nobody on a topic move', () => {
    const [fact] = decideEditMessage(initialMessage(), edit({ topic: 'welcome', revoked_user_ids: [9] }));
    expect(fact!.move!.revoked_user_ids).toEqual([]);
  });
});

describe('decideEditMessage: content and move together', () => {
  it('refuses a content change together with a channel move, as Zulip does', () =>
    thenThrows(edit({ content: newContent, channel: target(11, 'random', 77) }), 'Cannot change message content while changing channel'));

  it('gives both the content change and the move', () =>
    edits
      .given([])
      .when(edit({ content: newContent, topic: 'welcome', propagate_mode: 'change_later', moved_message_ids: [42, 45] }))
      .then([edited({ content: contentChange, move: topicMove({ propagate_mode: 'change_later', message_ids: [42, 45] }) })]));

  it('gives only the move when the content is unchanged', () =>
    edits
      .given([])
      .when(edit({ content: { ...newContent, content: 'hello' }, topic: 'welcome' }))
      .then([edited({ move: topicMove() })]));

  it('gives only the content when the topic is unchanged', () =>
    edits.given([]).when(edit({ content: newContent, topic: 'greetings' })).then([edited({ content: contentChange })]));

  it("refuses a member's topic move that also edits someone else's content", () =>
    thenThrows(edit({ actor: mary, content: newContent, topic: 'welcome' }), "You don't have permission to edit this message"));

  it('refuses the whole edit when the content limit has passed, even with a valid move', () =>
    thenThrows(edit({ content: newContent, topic: 'welcome', now: after(700, 0) }), 'The time limit for editing this message has passed'));
});

// ---------------------------------------------------------------------------------------
// Deletion.
// ---------------------------------------------------------------------------------------

type DeleteCommand = Parameters<typeof decideDeleteMessage>[1];
const deletes = deciderSpec<MessageState, DeleteCommand>({
  initial: initialMessage,
  evolve: evolveMessage,
  decide: (cmd, state) => decideDeleteMessage(state, cmd),
});
const del = (overrides: Partial<DeleteCommand> = {}): DeleteCommand => ({
  groups: NO_CUSTOM_GROUPS,
  actor: mark,
  message,
  grants: DEFAULT_GRANTS,
  audience_user_ids: audience,
  now: after(30 * DAY),
  ...overrides,
});

describe('decideDeleteMessage', () => {
  it('lets the sender delete their own message, with no time limit', () =>
    deletes.given([]).when(del()).then([deleted]));

  it('says where a direct message was (nowhere in a channel)', () =>
    deletes
      .given([])
      .when(del({ message: directMessage }))
      .then([{ ...deleted, channel_id: null, topic: null }]));

  it("refuses a member deleting someone else's message", () =>
    deletes
      .given([])
      .when(del({ actor: mary }))
      .thenThrows({ code: 'BAD_REQUEST', msg: "You don't have permission to delete this message" }));

  it("refuses a moderator deleting someone else's message", () =>
    deletes
      .given([])
      .when(del({ actor: moderator }))
      .thenThrows({ code: 'BAD_REQUEST', msg: "You don't have permission to delete this message" }));

  it("lets an administrator delete anyone's message", () =>
    deletes
      .given([])
      .when(del({ actor: adam }))
      .then([{ ...deleted, deleted_by: 2 }]));

  it("lets an owner delete anyone's message", () =>
    deletes.given([]).when(del({ actor: olivia })).then([{ ...deleted, deleted_by: 1 }]));

  it('lets a guest delete their own message', () =>
    deletes
      .given([])
      .when(del({ actor: gus, message: { ...message, sender_id: 6 } }))
      .then([{ ...deleted, deleted_by: 6 }]));

  it("refuses a guest deleting someone else's message", () =>
    deletes
      .given([])
      .when(del({ actor: gus }))
      .thenThrows({ code: 'BAD_REQUEST', msg: "You don't have permission to delete this message" }));

  it('refuses to delete a message twice', () =>
    deletes.given([deleted]).when(del()).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid message(s)' }));

  it('refuses an administrator deleting an already deleted message', () =>
    deletes
      .given([reactionAdded(), deleted])
      .when(del({ actor: olivia }))
      .thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid message(s)' }));
});

describe('decideDeleteMessage: channel-level grants', () => {
  const grants = (overrides: Partial<ChannelGrants>): ChannelGrants => ({ ...DEFAULT_GRANTS, ...overrides });

  it("lets a member delete anyone's message, at any time, with the channel's can_delete_any_message_group", () =>
    deletes
      .given([])
      .when(del({ actor: mary, grants: grants({ can_delete_any_message_group: SYSTEM_GROUP.members }), now: after(400 * DAY) }))
      .then([{ ...deleted, deleted_by: 5 }]));

  it('lets a moderator delete when the channel grants it to moderators', () =>
    deletes
      .given([])
      .when(del({ actor: moderator, grants: grants({ can_delete_any_message_group: SYSTEM_GROUP.moderators }) }))
      .then([{ ...deleted, deleted_by: 3 }]));

  it("does not let can_delete_own_message_group delete someone else's message", () =>
    deletes
      .given([])
      .when(del({ actor: mary, grants: grants({ can_delete_own_message_group: SYSTEM_GROUP.everyone }) }))
      .thenThrows({ code: 'BAD_REQUEST', msg: "You don't have permission to delete this message" }));

  it('grants nothing on a direct message', () =>
    deletes
      .given([])
      .when(del({ actor: mary, message: directMessage, grants: null }))
      .thenThrows({ code: 'BAD_REQUEST', msg: "You don't have permission to delete this message" }));
});

// ---------------------------------------------------------------------------------------
// Personal flags.
// ---------------------------------------------------------------------------------------

/** The error a call throws, or a failure when it throws none. */
function errorOf(call: () => unknown): { code: string; msg: string } {
  try {
    call();
  } catch (err) {
    if (!isApiError(err)) throw err;
    return { code: err.code, msg: err.msg };
  }
  throw new Error('expected an API error, but none was thrown');
}

describe('checkEditableFlag', () => {
  it.each(['read', 'starred', 'collapsed'])('accepts %s', (flag) => {
    expect(checkEditableFlag(flag)).toBe(flag);
  });

  it.each(['mentioned', 'wildcard_mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'has_alert_word', 'historical'])(
    'refuses the read-only flag %s',
    (flag) => {
      expect(errorOf(() => checkEditableFlag(flag))).toStrictEqual({ code: 'BAD_REQUEST', msg: `Flag not editable: '${flag}'` });
    },
  );

  it('refuses an unknown flag', () => {
    expect(errorOf(() => checkEditableFlag('x'))).toStrictEqual({ code: 'BAD_REQUEST', msg: "Invalid flag: 'x'" });
  });

  it('is case-sensitive', () => {
    expect(errorOf(() => checkEditableFlag('Read'))).toStrictEqual({ code: 'BAD_REQUEST', msg: "Invalid flag: 'Read'" });
  });
});

type FlagsCommand = Parameters<typeof decideFlags>[0];
// Flags read no stream of their own: the user's current flags come in with the command.
const flags = deciderSpec<null, FlagsCommand>({
  initial: () => null,
  evolve: (state) => state,
  decide: (cmd) => decideFlags(cmd),
});
const flagCmd = (overrides: Partial<FlagsCommand>): FlagsCommand => ({
  user_id: 4,
  op: 'add',
  flag: 'read',
  message_ids: [],
  current: new Map(),
  ...overrides,
});
const flagsUpdated = (op: 'add' | 'remove', flag: 'read' | 'starred' | 'collapsed', message_ids: number[]): FactOf<'MessageFlagsUpdated'> => ({
  type: 'MessageFlagsUpdated',
  user_id: 4,
  op,
  flag,
  message_ids,
});

describe('decideFlags', () => {
  const current = new Map<number, string[] | undefined>([
    [10, []],
    [11, ['read']],
    [12, ['read', 'starred']],
    [13, ['starred', 'mentioned']],
    [14, undefined],
  ]);

  it('marks as read only the messages not already read, sorted and deduplicated', () =>
    flags
      .given([])
      .when(flagCmd({ op: 'add', flag: 'read', message_ids: [13, 10, 11, 13, 10], current }))
      .then([flagsUpdated('add', 'read', [10, 13])]));

  it('marks as unread only the messages that were read', () =>
    flags
      .given([])
      .when(flagCmd({ op: 'remove', flag: 'read', message_ids: [12, 10, 11], current }))
      .then([flagsUpdated('remove', 'read', [11, 12])]));

  it('stars only the messages not already starred', () =>
    flags
      .given([])
      .when(flagCmd({ op: 'add', flag: 'starred', message_ids: [13, 12, 11, 10], current }))
      .then([flagsUpdated('add', 'starred', [10, 11])]));

  it('unstars only starred messages', () =>
    flags
      .given([])
      .when(flagCmd({ op: 'remove', flag: 'starred', message_ids: [10, 13, 12, 13], current }))
      .then([flagsUpdated('remove', 'starred', [12, 13])]));

  it('collapses messages', () =>
    flags
      .given([])
      .when(flagCmd({ op: 'add', flag: 'collapsed', message_ids: [11, 10], current }))
      .then([flagsUpdated('add', 'collapsed', [10, 11])]));

  it('decides nothing when nothing changes', () =>
    flags.given([]).when(flagCmd({ op: 'add', flag: 'starred', message_ids: [12, 13], current })).then([]));

  it('decides nothing for no messages', () => flags.given([]).when(flagCmd({ message_ids: [], current })).then([]));

  it('does not mark unread a message the user never received', () =>
    flags.given([]).when(flagCmd({ op: 'remove', flag: 'read', message_ids: [14], current })).then([]));

  it('does not mark unread a message with no row at all, but does the others', () =>
    flags
      .given([])
      .when(flagCmd({ op: 'remove', flag: 'read', message_ids: [99, 11, 14], current }))
      .then([flagsUpdated('remove', 'read', [11])]));

  it('counts a message the user never received as read already', () =>
    flags.given([]).when(flagCmd({ op: 'add', flag: 'read', message_ids: [14, 99], current })).then([]));

  it('stars a message the user never received', () =>
    flags
      .given([])
      .when(flagCmd({ op: 'add', flag: 'starred', message_ids: [14, 99], current }))
      .then([flagsUpdated('add', 'starred', [14, 99])]));

  it('does not unstar a message the user never received', () =>
    flags.given([]).when(flagCmd({ op: 'remove', flag: 'starred', message_ids: [14], current })).then([]));

  it("refuses the read-only flag 'mentioned'", () =>
    flags
      .given([])
      .when(flagCmd({ flag: 'mentioned', message_ids: [10], current }))
      .thenThrows({ code: 'BAD_REQUEST', msg: "Flag not editable: 'mentioned'" }));

  it('refuses an unknown flag, even with nothing to change', () =>
    flags.given([]).when(flagCmd({ flag: 'x', message_ids: [], current })).thenThrows({ code: 'BAD_REQUEST', msg: "Invalid flag: 'x'" }));
});

// ---------------------------------------------------------------------------------------
// Topic visibility.
// ---------------------------------------------------------------------------------------

type UserTopicCommand = Parameters<typeof decideUserTopic>[1];
// The current policy is folded from the user's earlier UserTopicUpdated facts.
const userTopics = deciderSpec<number, UserTopicCommand>({
  initial: () => VISIBILITY_POLICY.inherit,
  evolve: (state, fact) => (fact.type === 'UserTopicUpdated' ? fact.visibility_policy : state),
  decide: (cmd, current) => decideUserTopic(current, cmd),
});
const topicCmd = (visibility_policy: number): UserTopicCommand => ({
  user_id: 4,
  channel_id: 10,
  topic: 'greetings',
  visibility_policy,
  now: 1_700_000_123_987,
});
const topicUpdated = (visibility_policy: number, last_updated = 1_700_000_123): FactOf<'UserTopicUpdated'> => ({
  type: 'UserTopicUpdated',
  user_id: 4,
  channel_id: 10,
  topic: 'greetings',
  visibility_policy,
  last_updated,
});

describe('decideUserTopic', () => {
  it.each([VISIBILITY_POLICY.muted, VISIBILITY_POLICY.unmuted, VISIBILITY_POLICY.followed])('sets policy %i, last_updated in seconds', (policy) =>
    userTopics.given([]).when(topicCmd(policy)).then([topicUpdated(policy)]));

  it('sets the policy back to inherit', () =>
    userTopics
      .given([topicUpdated(VISIBILITY_POLICY.muted, 1_600_000_000)])
      .when(topicCmd(VISIBILITY_POLICY.inherit))
      .then([topicUpdated(VISIBILITY_POLICY.inherit)]));

  it('decides nothing when the policy is unchanged', () =>
    userTopics.given([topicUpdated(VISIBILITY_POLICY.followed, 1_600_000_000)]).when(topicCmd(VISIBILITY_POLICY.followed)).then([]));

  it('decides nothing for inherit on a topic with no policy', () =>
    userTopics.given([]).when(topicCmd(VISIBILITY_POLICY.inherit)).then([]));

  it.each([4, -1, 1.5, 100])('refuses policy %p', (policy) =>
    userTopics.given([]).when(topicCmd(policy)).thenThrows({ code: 'BAD_REQUEST', msg: /Invalid visibility_policy/ }));

  it('refuses an invalid policy even when it equals the current state', () => {
    expect(errorOf(() => decideUserTopic(4, topicCmd(4)))).toStrictEqual({ code: 'BAD_REQUEST', msg: 'Invalid visibility_policy 4' });
  });
});

describe('automaticVisibilityPolicy', () => {
  const { inherit, muted, unmuted, followed } = VISIBILITY_POLICY;

  it.each([inherit, muted, unmuted])('follows a topic the sender starts (from %i)', (current) => {
    expect(automaticVisibilityPolicy({ current, startsTopic: true, channelMuted: false })).toBe(followed);
  });

  it('follows a started topic in a muted channel too', () => {
    expect(automaticVisibilityPolicy({ current: inherit, startsTopic: true, channelMuted: true })).toBe(followed);
  });

  it('changes nothing for a started topic already followed', () => {
    expect(automaticVisibilityPolicy({ current: followed, startsTopic: true, channelMuted: false })).toBeNull();
    expect(automaticVisibilityPolicy({ current: followed, startsTopic: true, channelMuted: true })).toBeNull();
  });

  it('unmutes an inherited topic the sender sends to in a muted channel', () => {
    expect(automaticVisibilityPolicy({ current: inherit, startsTopic: false, channelMuted: true })).toBe(unmuted);
  });

  it.each([muted, unmuted, followed])('leaves an explicit policy (%i) in a muted channel alone', (current) => {
    expect(automaticVisibilityPolicy({ current, startsTopic: false, channelMuted: true })).toBeNull();
  });

  it.each([inherit, muted, unmuted, followed])('changes nothing otherwise (from %i)', (current) => {
    expect(automaticVisibilityPolicy({ current, startsTopic: false, channelMuted: false })).toBeNull();
  });
});
