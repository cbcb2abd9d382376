import { describe, expect, it } from '@jest/globals';
import { NO_CUSTOM_GROUPS } from '@teamchat/policies';
import {
  channelFromCreated,
  defaultChannelGroupSettings,
  ROLE,
  SYSTEM_GROUP,
  type Fact,
  type FactOf,
  type GroupMember,
} from '@teamchat/contracts';
import { channelCreated } from './fixtures';
import { deciderSpec } from '@teamchat/platform/testing';
import { decideArchiveChannel, type ArchiveChannel } from '../src/domain/archive-channel';
import { decideCreateChannels, type CreateChannels } from '../src/domain/create-channels';
import { evolveRegistry, initialRegistry, type RegistryState } from '../src/domain/registry';
import { decideUpdateChannel, type ChannelChanges, type UpdateChannel } from '../src/domain/update-channel';

const NOW = 1_700_000_000_999;
const NOW_S = 1_700_000_000;
const JOINED = 1_600_000_000;

const person = (user_id: number, role: number): GroupMember => ({ user_id, role, date_joined: JOINED });
const owner = person(1, ROLE.owner);
const admin = person(2, ROLE.administrator);
const moderator = person(3, ROLE.moderator);
const mark = person(4, ROLE.member);
const mary = person(5, ROLE.member);
const guest = person(6, ROLE.guest);
const bot = person(7, ROLE.member);
const users = [owner, admin, moderator, mark, mary, guest, bot];
const NON_GUESTS = [1, 2, 3, 4, 5, 7];


const registryOf = (facts: Fact[]) => facts.reduce(evolveRegistry, initialRegistry());

// ---------------------------------------------------------------------------------------
// Creating channels
// ---------------------------------------------------------------------------------------

const creating = deciderSpec<RegistryState, CreateChannels>({
  initial: initialRegistry,
  evolve: evolveRegistry,
  decide: (cmd, state) => decideCreateChannels(state, cmd),
});

const newChannel = (name: string, description = '') => ({ name, description, rendered_description: description ? `<p>${description}</p>` : '' });
const create = (overrides: Partial<CreateChannels> = {}, settings: Partial<CreateChannels['settings']> = {}): CreateChannels => ({
  actor: mark,
  channels: [newChannel('engineering')],
  settings: { invite_only: false, is_web_public: false, is_default: false, group_settings: {}, ...settings },
  users,
  groups: NO_CUSTOM_GROUPS,
  now: NOW,
  ...overrides,
});

/** What a member's new public channel holds: Zulip's defaults, the creator administering it. */
function created(channel_id: number, name: string, overrides: Partial<FactOf<'ChannelCreated'>> = {}): FactOf<'ChannelCreated'> {
  return {
    ...channelCreated(channel_id, name, { creator_id: 4 }),
    ...defaultChannelGroupSettings(4),
    audience_user_ids: NON_GUESTS,
    ...overrides,
  };
}

describe('decideCreateChannels', () => {
  const general = channelCreated(1, 'General');
  const when = (given: Fact[], overrides: Partial<CreateChannels> = {}, settings: Partial<CreateChannels['settings']> = {}) =>
    creating.given(given).when(create(overrides, settings));

  it("creates a public channel with Zulip's default group-settings, announced to every non-guest", () =>
    when([], { channels: [newChannel('  design  ', 'Pixels')] }).then([
      {
        type: 'ChannelCreated',
        channel_id: 1,
        name: 'design',
        description: 'Pixels',
        rendered_description: '<p>Pixels</p>',
        invite_only: false,
        is_web_public: false,
        history_public_to_subscribers: true,
        is_default: false,
        topics_policy: 'inherit',
        message_retention_days: null,
        creator_id: 4,
        date_created: NOW_S,
        folder_id: null,
        can_add_subscribers_group: SYSTEM_GROUP.nobody,
        can_remove_subscribers_group: SYSTEM_GROUP.administrators,
        can_administer_channel_group: { direct_members: [4], direct_subgroups: [] },
        can_delete_any_message_group: SYSTEM_GROUP.nobody,
        can_delete_own_message_group: SYSTEM_GROUP.nobody,
        can_move_messages_out_of_channel_group: SYSTEM_GROUP.nobody,
        can_move_messages_within_channel_group: SYSTEM_GROUP.nobody,
        can_send_message_group: SYSTEM_GROUP.everyone,
        audience_user_ids: NON_GUESTS,
      },
    ]));

  it('announces a private channel to administrators and its creator only', () =>
    when([], {}, { invite_only: true }).then([
      created(1, 'engineering', { invite_only: true, history_public_to_subscribers: false, audience_user_ids: [1, 2, 4] }),
    ]));

  it('allocates consecutive ids after the highest one seen', () =>
    when([general, channelCreated(7, 'seven')], { channels: [newChannel('a'), newChannel('b')] }).then([created(8, 'a'), created(9, 'b')]));

  it('has no creator, and nobody administering, when a trusted internal caller creates it', () =>
    when([], { actor: undefined }).then([
      created(1, 'engineering', { creator_id: null, can_administer_channel_group: SYSTEM_GROUP.nobody }),
    ]));

  it('takes the group-settings asked for, normalized', () =>
    when([], {}, {
      group_settings: {
        can_send_message_group: { direct_members: [], direct_subgroups: [SYSTEM_GROUP.administrators] },
        can_move_messages_within_channel_group: { direct_members: [5, 4, 5], direct_subgroups: [] },
        can_remove_subscribers_group: { direct_members: [], direct_subgroups: [] },
      },
    }).then([
      created(1, 'engineering', {
        can_send_message_group: SYSTEM_GROUP.administrators,
        can_move_messages_within_channel_group: { direct_members: [4, 5], direct_subgroups: [] },
        can_remove_subscribers_group: SYSTEM_GROUP.nobody,
      }),
    ]));

  it('lists the default channels for everyone but guests when creating a default channel', () =>
    when([channelCreated(1, 'general', { is_default: true })], { actor: admin }, { is_default: true }).then([
      {
        ...created(2, 'engineering', { creator_id: 2, is_default: true }),
        can_administer_channel_group: { direct_members: [2], direct_subgroups: [] },
        default_channels: { channel_ids: [1, 2], user_ids: NON_GUESTS },
      },
    ]));

  it('lets an owner set the retention period', () =>
    when([], { actor: owner }, { message_retention_days: 'unlimited' }).then([
      { ...created(1, 'engineering', { creator_id: 1, message_retention_days: -1 }), can_administer_channel_group: { direct_members: [1], direct_subgroups: [] } },
    ]));

  it('lets a member choose a topics policy', () =>
    when([], {}, { topics_policy: 'disable_empty_topic' }).then([created(1, 'engineering', { topics_policy: 'disable_empty_topic' })]));

  it.each<[string, Partial<CreateChannels>, Partial<CreateChannels['settings']>, string]>([
    ['a guest', { actor: guest }, {}, 'Insufficient permission'],
    ['a member making a default channel', {}, { is_default: true }, 'Insufficient permission'],
    ['a private default channel', { actor: admin }, { is_default: true, invite_only: true }, 'A default channel cannot be private.'],
    ['a web-public channel', { actor: owner }, { is_web_public: true }, 'Web-public channels are not enabled.'],
    ['an administrator setting the retention period', { actor: admin }, { message_retention_days: 30 }, 'Must be an organization owner'],
    ['a retention period of 0 days', { actor: owner }, { message_retention_days: 0 }, "Bad value for 'message_retention_days': 0"],
    ['a retention period that is not a number', { actor: owner }, { message_retention_days: 'forever' }, "Bad value for 'message_retention_days': forever"],
    ['an unknown group', {}, { group_settings: { can_send_message_group: 99 } }, 'Invalid user group ID: 99'],
    ['an unknown subgroup', {}, { group_settings: { can_send_message_group: { direct_members: [4], direct_subgroups: [42] } } }, 'Invalid user group ID: 42'],
    ['an unknown user', {}, { group_settings: { can_send_message_group: { direct_members: [4, 404], direct_subgroups: [] } } }, 'Invalid user ID: 404'],
    ['role:internet', {}, { group_settings: { can_send_message_group: SYSTEM_GROUP.internet } }, "'can_send_message_group' setting cannot be set to 'role:internet' group."],
    ['role:everyone administering', {}, { group_settings: { can_administer_channel_group: SYSTEM_GROUP.everyone } }, "'can_administer_channel_group' setting cannot be set to 'role:everyone' group."],
    ['a member granting deletion', {}, { group_settings: { can_delete_own_message_group: SYSTEM_GROUP.members } }, 'Insufficient permission'],
  ])('refuses %s', (_, overrides, settings, msg) => when([], overrides, settings).thenThrows({ code: 'BAD_REQUEST', msg }));

  it('lets a moderator grant deletion', () =>
    when([], { actor: moderator }, { group_settings: { can_delete_any_message_group: SYSTEM_GROUP.moderators } }).then([
      {
        ...created(1, 'engineering', { creator_id: 3, can_delete_any_message_group: SYSTEM_GROUP.moderators }),
        can_administer_channel_group: { direct_members: [3], direct_subgroups: [] },
      },
    ]));

  it('refuses a name already taken, whatever its case', () =>
    when([general], { channels: [newChannel('general')] }).thenThrows({ code: 'BAD_REQUEST', msg: "Channel 'general' already exists" }));

  it('refuses the same name twice in one request', () =>
    when([], { channels: [newChannel('ops'), newChannel('OPS')] }).thenThrows({ msg: "Channel 'OPS' already exists" }));

  it('refuses a guest without revealing that a name is taken', () =>
    when([channelCreated(1, 'engineering')], { actor: guest }).thenThrows({ code: 'BAD_REQUEST', msg: 'Insufficient permission' }));

  it('accepts a name of 60 code points, even when they take 120 UTF-16 units', () =>
    when([], { channels: [newChannel('😀'.repeat(60))] }).then([created(1, '😀'.repeat(60))]));

  it.each([
    ['ASCII', 'x'.repeat(61)],
    ['emoji', '😀'.repeat(61)],
  ])('refuses a name of 61 code points (%s)', (_, name) =>
    when([], { channels: [newChannel(name)] }).thenThrows({ code: 'BAD_REQUEST', msg: 'Channel name too long (limit: 60 characters)' }));

  it.each(['', '   ', '\t\n'])('refuses the empty name %j', (name) =>
    when([], { channels: [newChannel(name)] }).thenThrows({ code: 'BAD_REQUEST', msg: 'Channel name is required' }));

  it.each(['bad\u0000name', 'bell\u0007', 'new\nline', 'del\u007f'])('refuses the control character in %j', (name) =>
    when([], { channels: [newChannel(name)] }).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid character in channel name' }));

  it('refuses a description of 1025 code points', () =>
    when([], { channels: [{ name: 'x', description: 'x'.repeat(1025), rendered_description: '' }] }).thenThrows({ msg: 'Channel description too long' }));

  describe('history_public_to_subscribers', () => {
    it.each([undefined, true, false])('is always true for a public channel (asked %p)', (asked) =>
      when([], {}, { history_public_to_subscribers: asked }).then([created(1, 'engineering')]));

    it.each([true, false])('is as asked (%p) for a private channel', (asked) =>
      when([], {}, { invite_only: true, history_public_to_subscribers: asked }).then([
        created(1, 'engineering', { invite_only: true, history_public_to_subscribers: asked, audience_user_ids: [1, 2, 4] }),
      ]));
  });
});

describe('evolveRegistry', () => {
  it('indexes names in lower case, holds each channel, and ignores other facts', () => {
    const state = registryOf([channelCreated(1, 'General'), { type: 'SubscriptionsAdded', channel_id: 1, user_ids: [1] }, channelCreated(2, 'Ops')]);
    expect([...state.byName]).toEqual([
      ['general', 1],
      ['ops', 2],
    ]);
    expect(state.lastChannelId).toBe(2);
    expect(state.channels.get(2)?.name).toBe('Ops');
  });

  it('reads channels stored before group-settings existed with the defaults', () => {
    expect(registryOf([channelCreated(1, 'general')]).channels.get(1)).toMatchObject({
      ...defaultChannelGroupSettings(null),
      can_administer_channel_group: SYSTEM_GROUP.nobody,
      is_archived: false,
    });
  });

  it('moves the name index on a rename and marks archiving', () => {
    const state = registryOf([
      channelCreated(1, 'General'),
      { type: 'ChannelUpdated', channel_id: 1, name: 'General', change: { property: 'name', value: 'Lobby' }, audience_user_ids: [] },
      { type: 'ChannelArchived', channel_id: 1, name: 'Lobby', audience_user_ids: [] },
    ]);
    expect([...state.byName]).toEqual([['lobby', 1]]);
    expect(state.channels.get(1)).toMatchObject({ name: 'Lobby', is_archived: true });
  });
});

// ---------------------------------------------------------------------------------------
// Changing a channel
// ---------------------------------------------------------------------------------------

const updating = deciderSpec<RegistryState, UpdateChannel>({
  initial: initialRegistry,
  evolve: evolveRegistry,
  decide: (cmd, state) => decideUpdateChannel(state, cmd),
});

const engineering = created(10, 'engineering');
const leadership = created(11, 'leadership', { creator_id: 1, invite_only: true, history_public_to_subscribers: false, ...defaultChannelGroupSettings(1), audience_user_ids: [1, 2] });
const given = [channelCreated(1, 'general', { is_default: true }), engineering, leadership];

const update = (changes: ChannelChanges, overrides: Partial<UpdateChannel> = {}): UpdateChannel => ({
  groups: NO_CUSTOM_GROUPS,
  actor: admin,
  channel_id: 10,
  subscribed: false,
  changes,
  subscriber_ids: [1, 4],
  users,
  has_named_topics: false,
  first_message_id: null,
  now: NOW,
  ...overrides,
});

const updated = (
  change: FactOf<'ChannelUpdated'>['change'],
  overrides: Partial<FactOf<'ChannelUpdated'>> = {},
): FactOf<'ChannelUpdated'> => ({ type: 'ChannelUpdated', channel_id: 10, name: 'engineering', change, audience_user_ids: NON_GUESTS, ...overrides });

const thenRefused = (cmd: UpdateChannel, msg: string) => updating.given(given).when(cmd).thenThrows({ code: 'BAD_REQUEST', msg });

describe('decideUpdateChannel', () => {
  it('renames, telling everyone who sees the channel its old name', () =>
    updating.given(given).when(update({ name: ' platform ' })).then([updated({ property: 'name', value: 'platform' })]));

  it('changes only the case of a name', () =>
    updating.given(given).when(update({ name: 'Engineering' })).then([updated({ property: 'name', value: 'Engineering' })]));

  it('changes the description, rendered', () =>
    updating
      .given(given)
      .when(update({ description: 'Building\nthings', rendered_description: '<p>Building things</p>' }))
      .then([updated({ property: 'description', value: 'Building things', rendered_description: '<p>Building things</p>' })]));

  it('lets the creator, in can_administer_channel_group, change the channel', () =>
    updating.given(given).when(update({ topics_policy: 'empty_topic_only' }, { actor: mark })).then([updated({ property: 'topics_policy', value: 'empty_topic_only' })]));

  it('changes a group-setting, with the value as the event gives it', () =>
    updating
      .given(given)
      .when(update({ can_send_message_group: { new: SYSTEM_GROUP.administrators, old: SYSTEM_GROUP.everyone } }))
      .then([updated({ property: 'can_send_message_group', value: SYSTEM_GROUP.administrators })]));

  it("accepts an 'old' anonymous group equal in any order", () =>
    updating
      .given(given)
      .when(update({ can_administer_channel_group: { new: { direct_members: [4, 5], direct_subgroups: [] }, old: { direct_members: [4, 4], direct_subgroups: [] } } }))
      .then([updated({ property: 'can_administer_channel_group', value: { direct_members: [4, 5], direct_subgroups: [] } })]));

  it('decides nothing when every value is already as asked', () =>
    updating
      .given(given)
      .when(update({ can_send_message_group: { new: SYSTEM_GROUP.everyone }, invite_only: false, topics_policy: 'inherit', description: '' }))
      .then([]));

  it('makes a public channel private: those who lose sight of it see it go', () =>
    updating
      .given(given)
      .when(update({ invite_only: true }, { actor: mark, subscribed: true }))
      .then([
        updated(
          { property: 'invite_only', value: true, history_public_to_subscribers: false, is_web_public: false },
          { audience_user_ids: [1, 2, 4], hidden_user_ids: [3, 5, 7] },
        ),
      ]));

  it('makes a private channel public: those who gain sight of it get it whole, with its subscribers', () => {
    const next = { ...channelFromCreated(leadership), invite_only: false, history_public_to_subscribers: true };
    updating
      .given(given)
      .when(update({ invite_only: false }, { actor: owner, channel_id: 11, subscribed: true, subscriber_ids: [1, 2], first_message_id: 40 }))
      .then([
        {
          type: 'ChannelUpdated',
          channel_id: 11,
          name: 'leadership',
          change: { property: 'invite_only', value: false, history_public_to_subscribers: true, is_web_public: false },
          audience_user_ids: [1, 2],
          shown: { user_ids: [3, 4, 5, 7], channel: next, subscriber_ids: [1, 2], first_message_id: 40 },
        },
      ]);
  });

  it('gives a private channel shared history', () =>
    updating
      .given(given)
      .when(update({ history_public_to_subscribers: true }, { channel_id: 11 }))
      .then([
        {
          type: 'ChannelUpdated',
          channel_id: 11,
          name: 'leadership',
          change: { property: 'invite_only', value: true, history_public_to_subscribers: true, is_web_public: false },
          audience_user_ids: [1, 2, 4],
        },
      ]));

  it('makes a channel a default channel, announcing the default channels', () =>
    updating
      .given(given)
      .when(update({ is_default: true }))
      .then([updated({ property: 'is_default', value: true }, { default_channels: { channel_ids: [1, 10], user_ids: NON_GUESTS } })]));

  it('lets an owner change the retention period', () =>
    updating.given(given).when(update({ message_retention_days: 90 }, { actor: owner })).then([updated({ property: 'message_retention_days', value: 90 })]));

  it('unarchives an archived channel, showing it to everyone who may see it', () => {
    const archived: Fact = { type: 'ChannelArchived', channel_id: 10, name: 'engineering', audience_user_ids: [] };
    updating
      .given([...given, archived])
      .when(update({ is_archived: false }, { first_message_id: 12 }))
      .then([
        {
          type: 'ChannelUnarchived',
          channel_id: 10,
          name: 'engineering',
          audience_user_ids: NON_GUESTS,
          channel: channelFromCreated(engineering),
          subscriber_ids: [1, 4],
          first_message_id: 12,
        },
      ]);
  });

  it('makes several changes at once, each told in order', () =>
    updating
      .given(given)
      .when(update({ name: 'platform', description: 'x', rendered_description: '<p>x</p>', can_delete_any_message_group: { new: SYSTEM_GROUP.moderators } }))
      .then([
        updated({ property: 'description', value: 'x', rendered_description: '<p>x</p>' }),
        updated({ property: 'name', value: 'platform' }),
        updated({ property: 'can_delete_any_message_group', value: SYSTEM_GROUP.moderators }, { name: 'platform' }),
      ]));

  it.each<[string, UpdateChannel, string]>([
    ['an unknown channel', update({ description: 'x' }, { channel_id: 99 }), 'Invalid channel ID'],
    ['a member who does not administer the channel', update({ description: 'x' }, { actor: mary }), 'You do not have permission to administer this channel.'],
    ['a member who cannot even see the private channel', update({ description: 'x' }, { actor: mary, channel_id: 11 }), 'Invalid channel ID'],
    ['a guest, who may not see a public channel', update({ description: 'x' }, { actor: guest }), 'Invalid channel ID'],
    ["an administrator changing an unsubscribed private channel's privacy", update({ invite_only: false }, { channel_id: 11 }), 'Channel content access is required.'],
    ["an administrator changing who may add to an unsubscribed private channel", update({ can_add_subscribers_group: { new: SYSTEM_GROUP.members } }, { channel_id: 11 }), 'Channel content access is required.'],
    ['a public channel without shared history', update({ history_public_to_subscribers: false }), 'Invalid parameters'],
    ['a private default channel', update({ invite_only: true, is_default: true }, { subscribed: true }), 'A default channel cannot be private.'],
    ['making a default channel private', update({ invite_only: true }, { channel_id: 1, subscribed: true }), 'A default channel cannot be private.'],
    ['a web-public channel', update({ is_web_public: true }), 'Web-public channels are not enabled.'],
    ['a channel administrator changing default channels', update({ is_default: true }, { actor: mark }), 'Must be an organization administrator'],
    ['an administrator changing the retention period', update({ message_retention_days: 'unlimited' }), 'Must be an organization owner'],
    ['archiving through PATCH', update({ is_archived: true }), 'Only unarchiving is supported here: archive a channel with DELETE /streams/{stream_id}'],
    ['unarchiving a channel that is not archived', update({ is_archived: false }), 'Channel is not currently deactivated'],
    ['only the empty topic where other topics have messages', update({ topics_policy: 'empty_topic_only' }, { has_named_topics: true }), 'Only channels whose messages are all in the general chat topic can allow only that topic.'],
    ['the name it already has', update({ name: 'engineering' }), 'Channel already has that name.'],
    ["another channel's name", update({ name: 'General' }), "Channel 'General' already exists"],
    ['an empty name', update({ name: ' ' }), 'Channel name is required'],
    ['a description too long', update({ description: 'x'.repeat(1025) }), 'Channel description too long'],
    ["an 'old' value that is not the current one", update({ can_send_message_group: { new: SYSTEM_GROUP.members, old: SYSTEM_GROUP.members } }), "'old' value does not match the expected value."],
    ['an unknown group', update({ can_send_message_group: { new: 123 } }), 'Invalid user group ID: 123'],
    ['a deactivated or unknown user in a group', update({ can_send_message_group: { new: { direct_members: [4, 77], direct_subgroups: [] } } }), 'Invalid user ID: 77'],
    ['a channel administrator granting deletion', update({ can_delete_own_message_group: { new: SYSTEM_GROUP.everyone } }, { actor: mark }), 'Insufficient permission'],
  ])('refuses %s', (_, cmd, msg) => thenRefused(cmd, msg));

  it('refuses a guest even where can_administer_channel_group names them: guests never administer', () =>
    updating
      .given([...given, created(12, 'guests', { can_administer_channel_group: { direct_members: [6], direct_subgroups: [] } })])
      .when(update({ description: 'x' }, { actor: guest, channel_id: 12, subscribed: true }))
      .thenThrows({ code: 'BAD_REQUEST', msg: 'You do not have permission to administer this channel.' }));

  it('refuses the whole request when one change is refused', () =>
    thenRefused(update({ name: 'platform', can_send_message_group: { new: 99 } }), 'Invalid user group ID: 99'));
});

// ---------------------------------------------------------------------------------------
// Archiving
// ---------------------------------------------------------------------------------------

const archiving = deciderSpec<RegistryState, ArchiveChannel>({
  initial: initialRegistry,
  evolve: evolveRegistry,
  decide: (cmd, state) => decideArchiveChannel(state, cmd),
});
const archive = (overrides: Partial<ArchiveChannel> = {}): ArchiveChannel => ({
  actor: admin,
  channel_id: 10,
  subscribed: false,
  subscriber_ids: [1, 4],
  users,
  groups: NO_CUSTOM_GROUPS,
  now: NOW,
  ...overrides,
});

describe('decideArchiveChannel', () => {
  it('archives, telling everyone who sees the channel', () =>
    archiving.given(given).when(archive()).then([{ type: 'ChannelArchived', channel_id: 10, name: 'engineering', audience_user_ids: NON_GUESTS }]));

  it("lets the channel's creator archive it", () =>
    archiving.given(given).when(archive({ actor: mark })).then([{ type: 'ChannelArchived', channel_id: 10, name: 'engineering', audience_user_ids: NON_GUESTS }]));

  it('takes a default channel out of the default channels', () =>
    archiving
      .given(given)
      .when(archive({ channel_id: 1 }))
      .then([
        {
          type: 'ChannelArchived',
          channel_id: 1,
          name: 'general',
          audience_user_ids: NON_GUESTS,
          default_channels: { channel_ids: [], user_ids: NON_GUESTS },
        },
      ]));

  it('refuses a member who does not administer it', () =>
    archiving.given(given).when(archive({ actor: mary })).thenThrows({ msg: 'You do not have permission to administer this channel.' }));

  it('refuses a channel archived already', () =>
    archiving
      .given([...given, { type: 'ChannelArchived', channel_id: 10, name: 'engineering', audience_user_ids: [] }])
      .when(archive())
      .thenThrows({ msg: 'Channel is already deactivated' }));

  it('refuses an unknown channel', () => archiving.given(given).when(archive({ channel_id: 404 })).thenThrows({ msg: 'Invalid channel ID' }));
});
