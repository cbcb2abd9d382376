import { describe, expect, it } from '@jest/globals';
import type { FactOf, StateParams } from '@teamchat/contracts';
import { Directory, groupSnapshotOf } from '@teamchat/directory';
import { SqliteReadModelStore } from '@teamchat/platform';
import { ChannelFolders } from '../src/projections/channel-folders';
import { ChannelMessages } from '../src/projections/channel-messages';
import { SubscriptionSettingsModel } from '../src/projections/subscription-settings';
import { channelsState } from '../src/queries/register-state';
import { channelCreated } from './fixtures';

function user(user_id: number, role: number): FactOf<'UserCreated'> {
  return {
    type: 'UserCreated', user_id, email: `u${user_id}@example.com`, full_name: `User ${user_id}`, role,
    is_bot: false, bot_type: null, bot_owner_id: null, timezone: 'UTC', date_joined: 1, api_key_salt: 's', api_key_hash: 'h',
  } as FactOf<'UserCreated'>;
}

const all: StateParams = { fetch_event_types: null, include_subscribers: false, client_gravatar: true, archived_channels: false };

async function organization() {
  const store = SqliteReadModelStore.open(':memory:');
  const directory = new Directory(store);
  const messages = new ChannelMessages(store);
  const h = directory.handlers;
  for (const [id, role] of [[1, 400], [2, 400], [3, 600]] as const) await h.UserCreated(user(id, role));
  await h.ChannelCreated(channelCreated(10, 'general', { is_default: true }));
  await h.ChannelCreated(channelCreated(11, 'random'));
  await h.ChannelCreated(channelCreated(12, 'secret', { invite_only: true }));
  await h.ChannelCreated(channelCreated(13, 'left'));
  const add = (channel_id: number, user_ids: number[]) => h.SubscriptionsAdded({ type: 'SubscriptionsAdded', channel_id, user_ids });
  await add(10, [1, 2, 3]);
  await add(12, [2]);
  await add(13, [1]);
  await h.SubscriptionsRemoved({ type: 'SubscriptionsRemoved', channel_id: 13, user_ids: [1] } as FactOf<'SubscriptionsRemoved'>);
  return { store, deps: { directory, messages, userGroups: { snapshot: async () => groupSnapshotOf([]) } } };
}

const names = (list: { name: string }[] | undefined) => list?.map((c) => c.name);

describe('channels register state', () => {
  it('splits channels into subscribed, left and never joined, hiding private ones the user is not in', async () => {
    const { store, deps } = await organization();
    const state = await channelsState(deps, 1, all);
    expect(names(state.subscriptions)).toEqual(['general']);
    expect(names(state.unsubscribed)).toEqual(['left']);
    expect(names(state.never_subscribed)).toEqual(['random']);
    expect(names(state.streams)).toEqual(['general', 'random', 'left']);
    expect(state.realm_default_streams).toEqual([10]);
    expect(state.subscriptions?.[0]).not.toHaveProperty('subscribers');
    await store.close();
  });

  it('gives subscribers when asked, and only the sections asked for', async () => {
    const { store, deps } = await organization();
    const state = await channelsState(deps, 2, { ...all, fetch_event_types: ['subscription'], include_subscribers: true });
    expect(names(state.subscriptions)).toEqual(['general', 'secret']);
    expect(state.subscriptions?.[0]?.subscribers).toEqual([1, 2, 3]);
    expect(state.never_subscribed?.[0]?.subscribers).toEqual([]);
    expect(state.streams).toBeUndefined();
    expect(state.realm_default_streams).toBeUndefined();
    await store.close();
  });

  it('shows a guest only the channels they are subscribed to', async () => {
    const { store, deps } = await organization();
    const state = await channelsState(deps, 3, all);
    expect(names(state.subscriptions)).toEqual(['general']);
    expect(state.never_subscribed).toEqual([]);
    expect(names(state.streams)).toEqual(['general']);
    await store.close();
  });
});

describe('channels register state: visibility, own settings and folders', () => {
  it("shows administrators private channels they are not in, as the events do, and guests no default channels", async () => {
    const { store, deps } = await organization();
    await deps.directory.handlers.UserCreated(user(4, 200));
    const admin = await channelsState(deps, 4, all);
    expect(names(admin.never_subscribed)).toEqual(['general', 'random', 'secret', 'left']);
    expect(names(admin.streams)).toContain('secret');
    expect((await channelsState(deps, 3, all)).realm_default_streams).toEqual([]);
    await store.close();
  });

  it("gives each subscription the user's own settings, and the folders when asked", async () => {
    const { store, deps } = await organization();
    const settings = new SubscriptionSettingsModel(store);
    const folders = new ChannelFolders(store);
    await settings.handlers.SubscriptionPropertyUpdated({ type: 'SubscriptionPropertyUpdated', channel_id: 10, user_id: 1, property: 'is_muted', value: true });
    await settings.handlers.SubscriptionPropertyUpdated({ type: 'SubscriptionPropertyUpdated', channel_id: 10, user_id: 1, property: 'color', value: '#123456' });
    await settings.handlers.SubscriptionPropertyUpdated({ type: 'SubscriptionPropertyUpdated', channel_id: 10, user_id: 2, property: 'pin_to_top', value: true });
    await folders.handlers.ChannelFolderCreated({
      type: 'ChannelFolderCreated', folder_id: 1, name: 'Work', description: '', rendered_description: '', order: 1, creator_id: 1, date_created: 5, audience_user_ids: [1],
    });
    await folders.handlers.ChannelFolderUpdated({ type: 'ChannelFolderUpdated', folder_id: 1, is_archived: true, audience_user_ids: [1] });
    const state = await channelsState({ ...deps, settings, folders }, 1, all);
    expect(state.subscriptions?.[0]).toMatchObject({ name: 'general', is_muted: true, in_home_view: false, color: '#123456', pin_to_top: false });
    expect(state.channel_folders).toEqual([
      { id: 1, name: 'Work', description: '', rendered_description: '', order: 1, creator_id: 1, date_created: 5, is_archived: true },
    ]);
    expect((await channelsState({ ...deps, settings, folders }, 1, { ...all, fetch_event_types: ['stream'] })).channel_folders).toBeUndefined();
    await store.close();
  });
});
