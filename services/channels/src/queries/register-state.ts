/**
 * Channels' sections of POST /register: the caller's subscriptions, the channels they
 * left or never joined but may see, every channel they may see, and the default channels.
 */
import { channelApiObject, subscriptionApiObject, wantsState, type ChannelsState, type ChannelView, type StateParams } from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import { channelAccess } from '@teamchat/policies';
import type { ChannelMessages } from '../projections/channel-messages';

export interface ChannelsStateDeps {
  directory: Pick<Directory, 'userById' | 'allChannels' | 'subscriptionsOf' | 'subscriberIds'>;
  messages: Pick<ChannelMessages, 'firstMessageId'>;
}

export async function channelsState(deps: ChannelsStateDeps, userId: number, params: StateParams): Promise<ChannelsState> {
  const want = (type: string) => wantsState(params, type);
  const state: ChannelsState = {};
  const me = await deps.directory.userById(userId);
  if (!me || !(want('subscription') || want('stream') || want('default_streams'))) return state;

  const subscriptions = new Map((await deps.directory.subscriptionsOf(userId)).map((s) => [s.channel_id, s.active]));
  // Archived channels reach only clients that say they handle them, as in Zulip.
  const channels = (await deps.directory.allChannels())
    .filter((c) => params.archived_channels || !c.is_archived)
    .sort((a, b) => a.channel_id - b.channel_id);
  const visible = channels.filter((c) => channelAccess(c, { role: me.role, subscribed: subscriptions.get(c.channel_id) === true }).seeMetadata);
  const firstIds = new Map<number, number | null>();
  const subscribers = new Map<number, number[]>();
  for (const channel of visible) {
    firstIds.set(channel.channel_id, await deps.messages.firstMessageId(channel.channel_id));
    subscribers.set(channel.channel_id, (await deps.directory.subscriberIds(channel.channel_id)).sort((a, b) => a - b));
  }
  const extra = (c: ChannelView) => ({ first_message_id: firstIds.get(c.channel_id) ?? null, subscriber_ids: subscribers.get(c.channel_id) ?? [] });
  const plain = (c: ChannelView) => channelApiObject(c, { first_message_id: extra(c).first_message_id, subscriber_count: extra(c).subscriber_ids.length });
  // Zulip leaves `subscribers` out unless asked; 'partial' may send fewer, and here sends all.
  const withSubscribers = <T extends object>(object: T, c: ChannelView) =>
    params.include_subscribers === false ? object : { ...object, subscribers: extra(c).subscriber_ids };

  if (want('subscription')) {
    state.subscriptions = visible
      .filter((c) => subscriptions.get(c.channel_id) === true)
      .map((c) => {
        const { subscribers: all, ...rest } = subscriptionApiObject(c, extra(c));
        return params.include_subscribers === false ? rest : { ...rest, subscribers: all };
      });
    state.unsubscribed = visible.filter((c) => subscriptions.get(c.channel_id) === false).map((c) => withSubscribers(plain(c), c));
    // A guest learns of a channel only by being subscribed to it.
    state.never_subscribed =
      me.role === 600 ? [] : visible.filter((c) => !subscriptions.has(c.channel_id)).map((c) => withSubscribers(plain(c), c));
  }
  if (want('stream')) {
    state.streams = visible.filter((c) => me.role !== 600 || subscriptions.get(c.channel_id) === true).map(plain);
  }
  if (want('default_streams')) {
    state.realm_default_streams = channels.filter((c) => c.is_default && !c.is_archived).map((c) => c.channel_id);
  }
  return state;
}
