import { describe, expect, it } from '@jest/globals';
import type { FactOf, StateParams } from '@teamchat/contracts';
import { Directory } from '@teamchat/directory';
import { SqliteReadModelStore } from '@teamchat/platform';
import { ChannelMessages } from '../src/projections/channel-messages';
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
  return { store, deps: { directory, messages } };
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
