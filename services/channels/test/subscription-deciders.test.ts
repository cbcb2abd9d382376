import { describe, expect, it } from '@jest/globals';
import { channelFromCreated, defaultChannelGroupSettings, ROLE, SYSTEM_GROUP, type Fact, type FactOf, type GroupMember } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import { ORGANIZATION_POLICY, type OrganizationPolicy, NO_CUSTOM_GROUPS } from '@teamchat/policies';
import { decideCreateChannels } from '../src/domain/create-channels';
import { decideDefaultChannel, type SetDefaultChannel } from '../src/domain/default-channels';
import { decideCreateFolder, decideUpdateFolder, evolveFolders, initialFolders, type CreateFolder, type FolderState, type UpdateFolder } from '../src/domain/folders';
import { evolveRegistry, initialRegistry, type RegistryState } from '../src/domain/registry';
import { decideSubscriptionProperties, type PropertyChange } from '../src/domain/subscription-properties';
import { decideSubscribe, evolveChannel, initialChannel, type ChannelState, type Subscribe } from '../src/domain/subscriptions';
import { decideUnsubscribe, decideUnsubscribeRequest, type Unsubscribe, type UnsubscribeRequest } from '../src/domain/unsubscribe';
import { decideUpdateChannel, type UpdateChannel } from '../src/domain/update-channel';
import { channelCreated } from './fixtures';

const NOW = 1_700_000_000_999;
const person = (user_id: number, role: number): GroupMember => ({ user_id, role, date_joined: 1_600_000_000 });
const owner = person(1, ROLE.owner);
const admin = person(2, ROLE.administrator);
const moderator = person(3, ROLE.moderator);
const mark = person(4, ROLE.member);
const mary = person(5, ROLE.member);
const guest = person(6, ROLE.guest);
const users = [owner, admin, moderator, mark, mary, guest];

const general = channelCreated(1, 'general', { creator_id: 4, ...defaultChannelGroupSettings(4) });
const secret = channelCreated(2, 'secret', { creator_id: 2, invite_only: true, history_public_to_subscribers: false, ...defaultChannelGroupSettings(2) });
const registry = [general, secret].reduce<RegistryState>(evolveRegistry, initialRegistry());
const publicView = channelFromCreated(general);
const privateView = channelFromCreated(secret);

const subscribed = (channel_id: number, ...user_ids: number[]): Fact => ({ type: 'SubscriptionsAdded', channel_id, user_ids });
const setting = (user_id: number, property: FactOf<'SubscriptionPropertyUpdated'>['property'], value: boolean | string | null): FactOf<'SubscriptionPropertyUpdated'> => ({
  type: 'SubscriptionPropertyUpdated',
  channel_id: 1,
  user_id,
  property,
  value,
});

// ---------------------------------------------------------------------------------------
// Leaving channels
// ---------------------------------------------------------------------------------------

describe('decideUnsubscribeRequest', () => {
  const request = (overrides: Partial<UnsubscribeRequest>): UnsubscribeRequest => ({
    groups: NO_CUSTOM_GROUPS,
    actor: mark,
    names: ['general'],
    principal_ids: [4],
    actor_channel_ids: new Set([1]),
    now: NOW,
    ...overrides,
  });
  const names = (req: Partial<UnsubscribeRequest>) => decideUnsubscribeRequest(registry, request(req)).map((c) => c.name);

  it('finds each named channel once, case-insensitively', () => expect(names({ names: ['General', ' general '] })).toEqual(['general']));

  it('refuses channels that do not exist, and private ones the actor may not see, alike', () => {
    for (const req of [{ names: ['nowhere'] }, { names: ['secret'] }, { actor: guest, principal_ids: [6], actor_channel_ids: new Set<number>() }]) {
      expect(() => names(req)).toThrow(expect.objectContaining({ msg: expect.stringMatching(/^Channel\(s\) \(.*\) do not exist$/) }));
    }
  });

  it("lets organization administrators remove others, and others only through the channel's can_remove_subscribers_group", () => {
    expect(names({ actor: admin, principal_ids: [4], actor_channel_ids: new Set() })).toEqual(['general']);
    expect(names({ actor: owner, names: ['secret'], principal_ids: [2], actor_channel_ids: new Set() })).toEqual(['secret']);
    expect(() => names({ actor: moderator, principal_ids: [4] })).toThrow(expect.objectContaining({ msg: 'Insufficient permission' }));
    const opened = evolveRegistry(registry, {
      type: 'ChannelUpdated',
      channel_id: 1,
      name: 'general',
      change: { property: 'can_remove_subscribers_group', value: SYSTEM_GROUP.members },
      audience_user_ids: [],
    });
    expect(decideUnsubscribeRequest(opened, request({ actor: mary, principal_ids: [4], actor_channel_ids: new Set() })).map((c) => c.name)).toEqual(['general']);
  });

  it("lets the channel's administrators remove others", () =>
    expect(names({ actor: mark, principal_ids: [5] })).toEqual(['general']));
});

const leaving = deciderSpec<ChannelState, Unsubscribe>({ initial: initialChannel, evolve: evolveChannel, decide: (cmd, state) => decideUnsubscribe(state, cmd) });

describe('decideUnsubscribe', () => {
  const removing = (user_ids: number[], channel = publicView): Unsubscribe => ({ channel, user_ids, users, groups: NO_CUSTOM_GROUPS, now: NOW });

  it('removes the subscribed users, telling everyone else who sees the channel', () =>
    leaving
      .given([subscribed(1, 4, 5, 6)])
      .when(removing([5, 9, 5]))
      .then([{ type: 'SubscriptionsRemoved', channel_id: 1, user_ids: [5], name: 'general', peer_user_ids: [1, 2, 3, 4, 6] }]));

  it('decides nothing when nobody named is subscribed', () => leaving.given([subscribed(1, 4)]).when(removing([5])).then([]));

  it('hides a public channel from a guest who leaves it', () =>
    leaving
      .given([subscribed(1, 4, 6)])
      .when(removing([6]))
      .then([{ type: 'SubscriptionsRemoved', channel_id: 1, user_ids: [6], name: 'general', peer_user_ids: [1, 2, 3, 4, 5], hidden_user_ids: [6] }]));

  it('hides a private channel from a member who leaves it, but not from an administrator', () =>
    leaving
      .given([subscribed(2, 2, 4, 1)])
      .when(removing([4, 1], privateView))
      .then([{ type: 'SubscriptionsRemoved', channel_id: 2, user_ids: [1, 4], name: 'secret', peer_user_ids: [2], hidden_user_ids: [4] }]));
});

// ---------------------------------------------------------------------------------------
// A subscriber's own settings
// ---------------------------------------------------------------------------------------

const properties = deciderSpec<ChannelState, PropertyChange[]>({
  initial: initialChannel,
  evolve: evolveChannel,
  decide: (changes, state) => decideSubscriptionProperties(state, { user_id: 4, channel_id: 1, changes }),
});
const change = (property: string, value: boolean | string | null): PropertyChange => ({ channel_id: 1, property, value });

describe('decideSubscriptionProperties', () => {
  it('records each change in the stored form: in_home_view as its inverse, colors in lower case', () =>
    properties
      .given([subscribed(1, 4)])
      .when([change('in_home_view', false), change('color', '#ABCDEF'), change('audible_notifications', true), change('wildcard_mentions_notify', null)])
      .then([setting(4, 'is_muted', true), setting(4, 'color', '#abcdef'), setting(4, 'audible_notifications', true)]));

  it('records nothing for a value the subscriber already has', () =>
    properties.given([subscribed(1, 4), setting(4, 'pin_to_top', true)]).when([change('pin_to_top', true), change('is_muted', false)]).then([]));

  it('refuses users not subscribed (also those who left) and bad properties or values', () => {
    properties.given([]).when([change('pin_to_top', true)]).thenThrows({ msg: 'Not subscribed to channel ID 1' });
    properties.given([subscribed(1, 4), { type: 'SubscriptionsRemoved', channel_id: 1, user_ids: [4] }]).when([change('pin_to_top', true)]).thenThrows({ msg: 'Not subscribed to channel ID 1' });
    properties.given([subscribed(1, 4)]).when([change('role', 1 as never)]).thenThrows({ msg: 'Unknown subscription property: role' });
    properties.given([subscribed(1, 4)]).when([change('color', '#12345g')]).thenThrows({ msg: 'color is not a valid hex color code' });
    properties.given([subscribed(1, 4)]).when([change('is_muted', null)]).thenThrows({ msg: 'is_muted is not a boolean' });
    properties.given([subscribed(1, 4)]).when([change('push_notifications', 'yes')]).thenThrows({ msg: 'push_notifications is not a boolean' });
  });

  it('gives a re-subscribed user their settings back in the subscription fact', () => {
    const state = [subscribed(1, 4, 5), setting(4, 'color', '#000000'), { type: 'SubscriptionsRemoved', channel_id: 1, user_ids: [4] } as Fact].reduce(evolveChannel, initialChannel());
    const cmd: Subscribe = { channel: publicView, user_ids: [4], users, groups: NO_CUSTOM_GROUPS, first_message_id: null, now: NOW };
    expect(decideSubscribe(state, cmd)[0]).toMatchObject({ user_ids: [4], properties: { '4': { color: '#000000' } } });
    expect(decideSubscribe(initialChannel(), { ...cmd, user_ids: [5] })[0]).not.toHaveProperty('properties');
  });
});

// ---------------------------------------------------------------------------------------
// Default channels
// ---------------------------------------------------------------------------------------

const defaults = deciderSpec<RegistryState, SetDefaultChannel>({ initial: initialRegistry, evolve: evolveRegistry, decide: (cmd, state) => decideDefaultChannel(state, cmd) });

describe('decideDefaultChannel', () => {
  const set = (overrides: Partial<SetDefaultChannel>): SetDefaultChannel => ({
    actor: admin,
    channel_id: 1,
    is_default: true,
    subscribed: false,
    subscriber_ids: [4],
    users,
    groups: NO_CUSTOM_GROUPS,
    now: NOW,
    ...overrides,
  });

  it('makes a public channel a default channel, told to non-guests as the new list', () =>
    defaults.given([general, secret]).when(set({})).then([
      {
        type: 'ChannelUpdated',
        channel_id: 1,
        name: 'general',
        change: { property: 'is_default', value: true },
        audience_user_ids: [1, 2, 3, 4, 5],
        default_channels: { channel_ids: [1], user_ids: [1, 2, 3, 4, 5] },
      },
    ]));

  it('changes nothing when the channel already is (or is not) a default channel', () => {
    defaults.given([general]).when(set({ is_default: false })).then([]);
  });

  it('refuses non-administrators, private, archived and unknown channels', () => {
    defaults.given([general]).when(set({ actor: moderator })).thenThrows({ msg: 'Must be an organization administrator' });
    defaults.given([general, secret]).when(set({ channel_id: 2 })).thenThrows({ msg: 'Private channels cannot be made default.' });
    defaults.given([general, { type: 'ChannelArchived', channel_id: 1, name: 'general', audience_user_ids: [] }]).when(set({})).thenThrows({ msg: 'Archived channels cannot be made default.' });
    defaults.given([general]).when(set({ channel_id: 9 })).thenThrows({ msg: 'Invalid channel ID' });
  });
});

// ---------------------------------------------------------------------------------------
// Channel folders
// ---------------------------------------------------------------------------------------

const folderCreated = (folder_id: number, name: string): FactOf<'ChannelFolderCreated'> => ({
  type: 'ChannelFolderCreated',
  folder_id,
  name,
  description: '',
  rendered_description: '',
  order: folder_id,
  creator_id: 2,
  date_created: 1_700_000_000,
  audience_user_ids: [1, 2],
});
const creatingFolder = deciderSpec<FolderState, CreateFolder>({ initial: initialFolders, evolve: evolveFolders, decide: (cmd, state) => decideCreateFolder(state, cmd) });
const updatingFolder = deciderSpec<FolderState, UpdateFolder>({ initial: initialFolders, evolve: evolveFolders, decide: (cmd, state) => decideUpdateFolder(state, cmd) });

describe('channel folders', () => {
  const create = (overrides: Partial<CreateFolder>): CreateFolder => ({
    actor: admin,
    name: ' Work ',
    description: 'About *work*',
    rendered_description: '<p>About <em>work</em></p>',
    audience_user_ids: [1, 2],
    now: NOW,
    ...overrides,
  });
  const update = (overrides: Partial<UpdateFolder>): UpdateFolder => ({ actor: admin, folder_id: 1, active_channels_in_folder: 0, audience_user_ids: [1, 2], ...overrides });

  it('creates a folder with the next id, last in order', () =>
    creatingFolder.given([folderCreated(1, 'Play')]).when(create({})).then([
      { ...folderCreated(2, 'Work'), description: 'About *work*', rendered_description: '<p>About <em>work</em></p>', date_created: 1_700_000_000 },
    ]));

  it('refuses non-administrators, empty, long, and taken names', () => {
    creatingFolder.given([]).when(create({ actor: moderator })).thenThrows({ msg: 'Must be an organization administrator' });
    creatingFolder.given([]).when(create({ name: '  ' })).thenThrows({ msg: "Channel folder name can't be empty." });
    creatingFolder.given([]).when(create({ name: 'x'.repeat(61) })).thenThrows({ msg: 'Channel folder name too long (limit: 60 characters)' });
    creatingFolder.given([folderCreated(1, 'WORK')]).when(create({})).thenThrows({ msg: 'Channel folder name already in use' });
  });

  it('renames, describes and archives, recording only what changes', () => {
    updatingFolder.given([folderCreated(1, 'Work')]).when(update({ name: 'Work', is_archived: true })).then([
      { type: 'ChannelFolderUpdated', folder_id: 1, is_archived: true, audience_user_ids: [1, 2] },
    ]);
    updatingFolder.given([folderCreated(1, 'Work')]).when(update({ name: 'work', description: 'x', rendered_description: '<p>x</p>' })).then([
      { type: 'ChannelFolderUpdated', folder_id: 1, name: 'work', description: 'x', rendered_description: '<p>x</p>', audience_user_ids: [1, 2] },
    ]);
    updatingFolder.given([folderCreated(1, 'Work')]).when(update({ is_archived: false })).then([]);
  });

  it('refuses unknown folders, no changes, taken names and archiving a folder in use', () => {
    updatingFolder.given([]).when(update({ name: 'x' })).thenThrows({ msg: 'Invalid channel folder ID' });
    updatingFolder.given([folderCreated(1, 'Work')]).when(update({})).thenThrows({ msg: 'No new data supplied' });
    updatingFolder.given([folderCreated(1, 'Work'), folderCreated(2, 'Play')]).when(update({ name: 'play' })).thenThrows({ msg: 'Channel folder name already in use' });
    updatingFolder.given([folderCreated(1, 'Work')]).when(update({ is_archived: true, active_channels_in_folder: 1 })).thenThrows({
      msg: 'You need to remove all the channels from this folder to archive it.',
    });
    updatingFolder.given([folderCreated(1, 'Work')]).when(update({ actor: mark, name: 'x' })).thenThrows({ msg: 'Must be an organization administrator' });
  });
});

// ---------------------------------------------------------------------------------------
// A channel's folder and permissions, through PATCH /streams/{id}
// ---------------------------------------------------------------------------------------

describe('decideUpdateChannel: folders and permission changes', () => {
  const folders = new Map([
    [1, { folder_id: 1, name: 'Work', is_archived: false }],
    [2, { folder_id: 2, name: 'Old', is_archived: true }],
  ]);
  const update = (overrides: Partial<UpdateChannel>): UpdateChannel => ({
    groups: NO_CUSTOM_GROUPS,
    actor: mark,
    channel_id: 1,
    subscribed: true,
    changes: {},
    subscriber_ids: [4],
    users,
    has_named_topics: false,
    first_message_id: null,
    folders,
    now: NOW,
    ...overrides,
  });
  const decide = (overrides: Partial<UpdateChannel>) => decideUpdateChannel(registry, update(overrides));

  it('puts a channel in an existing folder and takes it out again', () => {
    expect(decide({ changes: { folder_id: 1 } }).map((f) => (f as FactOf<'ChannelUpdated'>).change)).toEqual([{ property: 'folder_id', value: 1 }]);
    const inFolder = evolveRegistry(registry, { type: 'ChannelUpdated', channel_id: 1, name: 'general', change: { property: 'folder_id', value: 1 }, audience_user_ids: [] });
    expect(decideUpdateChannel(inFolder, update({ changes: { folder_id: null } })).map((f) => (f as FactOf<'ChannelUpdated'>).change)).toEqual([{ property: 'folder_id', value: null }]);
    expect(decide({ changes: { folder_id: null } })).toEqual([]);
  });

  it('refuses unknown and archived folders', () => {
    for (const folder_id of [9, 2]) expect(() => decide({ changes: { folder_id } })).toThrow(expect.objectContaining({ msg: 'Invalid channel folder ID' }));
  });

  it("refuses an administrator not subscribed to a private channel any change of its permissions, but not of its description", () => {
    const unsubscribed = { actor: owner, channel_id: 2, subscribed: false, subscriber_ids: [2] };
    for (const name of ['can_remove_subscribers_group', 'can_administer_channel_group', 'can_send_message_group'] as const) {
      expect(() => decide({ ...unsubscribed, changes: { [name]: { new: SYSTEM_GROUP.moderators } } })).toThrow(
        expect.objectContaining({ msg: 'Channel content access is required.' }),
      );
    }
    expect(decide({ ...unsubscribed, changes: { description: 'ok', rendered_description: '<p>ok</p>' } })).toHaveLength(1);
    expect(decide({ ...unsubscribed, subscribed: true, actor: admin, changes: { can_remove_subscribers_group: { new: SYSTEM_GROUP.moderators } } })).toHaveLength(1);
  });
});

// ---------------------------------------------------------------------------------------
// Web-public channels: the server, the organization and the actor must all allow them
// ---------------------------------------------------------------------------------------

describe('web-public channels', () => {
  const enabled = { ...ORGANIZATION_POLICY, webPublicChannelsEnabled: true, enableSpectatorAccess: true };
  const create = (actor: GroupMember, policy: OrganizationPolicy, invite_only = false) =>
    decideCreateChannels(registry, {
      groups: NO_CUSTOM_GROUPS,
      actor,
      channels: [{ name: 'open-web', description: '', rendered_description: '' }],
      settings: { invite_only, is_web_public: true, is_default: false, group_settings: {} },
      users,
      policy,
      now: NOW,
    });
  const msgOf = (run: () => unknown) => {
    try {
      run();
      return 'allowed';
    } catch (err) {
      return (err as { msg: string }).msg;
    }
  };

  it('refuses them while the server or the organization does not allow them, whoever asks', () => {
    expect(msgOf(() => create(owner, ORGANIZATION_POLICY))).toBe('Web-public channels are not enabled.');
    expect(msgOf(() => create(owner, { ...enabled, enableSpectatorAccess: false }))).toBe('Web-public channels are not enabled.');
  });

  it('lets only can_create_web_public_channel_group create them, public and with shared history', () => {
    expect(msgOf(() => create(admin, enabled))).toBe('Insufficient permission');
    expect(msgOf(() => create(owner, enabled, true))).toBe('Invalid parameters');
    expect(create(owner, enabled)[0]).toMatchObject({ is_web_public: true, invite_only: false, history_public_to_subscribers: true, audience_user_ids: [1, 2, 3, 4, 5, 6] });
    expect(msgOf(() => create(admin, { ...enabled, canCreateWebPublicChannelGroup: SYSTEM_GROUP.administrators }))).toBe('allowed');
  });

  it('applies the same rule to making an existing channel web-public', () => {
    const update = (actor: GroupMember, policy: OrganizationPolicy): UpdateChannel => ({
      groups: NO_CUSTOM_GROUPS,
      actor,
      channel_id: 1,
      subscribed: true,
      changes: { is_web_public: true },
      subscriber_ids: [4],
      users,
      has_named_topics: false,
      first_message_id: null,
      policy,
      now: NOW,
    });
    expect(msgOf(() => decideUpdateChannel(registry, update(owner, ORGANIZATION_POLICY)))).toBe('Web-public channels are not enabled.');
    expect(msgOf(() => decideUpdateChannel(registry, update(admin, enabled)))).toBe('Insufficient permission');
    const [fact] = decideUpdateChannel(registry, update(owner, enabled)) as FactOf<'ChannelUpdated'>[];
    // Guests now see it too.
    expect(fact).toMatchObject({ change: { property: 'invite_only', value: false, is_web_public: true }, shown: { user_ids: [6] } });
  });
});
