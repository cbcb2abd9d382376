/**
 * The channels service's reading endpoints: channels a user may see, one channel, a
 * channel's id and subscribers, and the user's own subscriptions. Who may see a channel
 * is the rule the events follow (hasMetadataAccess): a channel a user may not see reads
 * as one that does not exist.
 */
import {
  badRequest,
  channelApiObject,
  subscriptionRecord,
  type Actor,
  type ChannelView,
  type GetChannelsParams,
  type GroupMember,
} from '@teamchat/contracts';
import type { Directory, UserDoc, UserGroups } from '@teamchat/directory';
import { hasMetadataAccess, isAdministrator, isGuest } from '@teamchat/policies';
import { subscribersField } from '../domain/partial-subscribers';
import type { ChannelMessages } from '../projections/channel-messages';
import type { UserActivity } from '../projections/user-activity';
import type { SubscriptionSettingsModel } from '../projections/subscription-settings';

export interface ChannelQueryDeps {
  directory: Directory;
  /** The custom user groups, which may give metadata access to private channels. */
  userGroups: Pick<UserGroups, 'snapshot'>;
  messages: Pick<ChannelMessages, 'firstMessageId'>;
  settings: Pick<SubscriptionSettingsModel, 'ofUser'>;
  /** For `include_subscribers: "partial"`; absent: every list is full. */
  partial?: { activity: Pick<UserActivity, 'all'>; minChannelSize: number };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const asMember = (user: UserDoc): GroupMember => ({ user_id: user._id, role: user.role, date_joined: user.date_joined });

async function reader(deps: ChannelQueryDeps, actor: Actor): Promise<UserDoc> {
  const me = await deps.directory.userById(actor.user_id);
  if (!me || !me.is_active) throw badRequest('Not an active user');
  return me;
}

async function channelObject(deps: ChannelQueryDeps, channel: ChannelView) {
  const [firstMessageId, subscribers] = await Promise.all([deps.messages.firstMessageId(channel.channel_id), deps.directory.subscriberIds(channel.channel_id)]);
  return channelApiObject(channel, { first_message_id: firstMessageId, subscriber_count: subscribers.length });
}

/** The channel, if the user may see it; otherwise the error an unknown id gets. */
async function visibleChannel(deps: ChannelQueryDeps, me: UserDoc, channelId: number): Promise<ChannelView> {
  const channel = await deps.directory.channelViewById(channelId);
  if (!channel || !hasMetadataAccess(channel, asMember(me), await deps.directory.isSubscribed(channelId, me._id), nowSeconds(), await deps.userGroups.snapshot())) {
    throw badRequest('Invalid channel ID');
  }
  return channel;
}

/** GET /streams: the union of the kinds of channels asked for, or every channel (administrators only). */
export async function getChannels(deps: ChannelQueryDeps, actor: Actor, params: GetChannelsParams) {
  const me = await reader(deps, actor);
  if (params.include_all && !isAdministrator(me.role)) throw badRequest('User not authorized for this query');
  const member = asMember(me);
  const now = nowSeconds();
  const groups = await deps.userGroups.snapshot();
  const subscribed = new Set(await deps.directory.subscribedChannelIds(me._id));
  // A bot may ask for its owner's channels too (include_owner_subscribed).
  const ownerChannels =
    params.include_owner_subscribed && me.is_bot && me.bot_owner_id !== null ? new Set(await deps.directory.subscribedChannelIds(me.bot_owner_id)) : new Set<number>();
  const channels = (await deps.directory.allChannels())
    .filter((c) => !(params.exclude_archived && c.is_archived))
    .filter((c) => {
      if (params.include_all) return hasMetadataAccess(c, member, subscribed.has(c.channel_id), now, groups);
      return (
        // Guests see no public channel they have not joined.
        (params.include_public && !c.invite_only && !isGuest(me.role)) ||
        (params.include_web_public && c.is_web_public) ||
        (params.include_subscribed && subscribed.has(c.channel_id)) ||
        (params.include_default && c.is_default && !isGuest(me.role)) ||
        (ownerChannels.has(c.channel_id) && hasMetadataAccess(c, member, subscribed.has(c.channel_id), now, groups))
      );
    })
    .sort((a, b) => a.channel_id - b.channel_id);
  const streams = [];
  for (const channel of channels) {
    const object = await channelObject(deps, channel);
    streams.push(params.include_default ? { ...object, is_default: channel.is_default } : object);
  }
  return { streams };
}

/** GET /streams/{stream_id}. */
export async function getChannel(deps: ChannelQueryDeps, actor: Actor, channelId: number) {
  const me = await reader(deps, actor);
  return { stream: await channelObject(deps, await visibleChannel(deps, me, channelId)) };
}

/** GET /get_stream_id: by name, case-insensitively. */
export async function getChannelId(deps: ChannelQueryDeps, actor: Actor, name: string) {
  const me = await reader(deps, actor);
  const doc = await deps.directory.channelByName(name.trim());
  const channel = doc && (await deps.directory.channelViewById(doc._id));
  const subscribed = channel && (await deps.directory.isSubscribed(channel.channel_id, me._id));
  if (!channel || !hasMetadataAccess(channel, asMember(me), subscribed === true, nowSeconds(), await deps.userGroups.snapshot())) {
    throw badRequest(`Invalid channel name '${name}'`);
  }
  return { stream_id: channel.channel_id };
}

/** GET /streams/{stream_id}/members. */
export async function getSubscribers(deps: ChannelQueryDeps, actor: Actor, channelId: number) {
  const me = await reader(deps, actor);
  await visibleChannel(deps, me, channelId);
  return { subscribers: (await deps.directory.subscriberIds(channelId)).sort((a, b) => a - b) };
}

/** GET /users/me/subscriptions: the user's subscription records, with their own settings. */
export async function getSubscriptions(deps: ChannelQueryDeps, actor: Actor, includeSubscribers: boolean | 'partial') {
  const me = await reader(deps, actor);
  const subscribed = new Set(await deps.directory.subscribedChannelIds(me._id));
  const settings = await deps.settings.ofUser(me._id);
  const channels = (await deps.directory.allChannels()).filter((c) => subscribed.has(c.channel_id)).sort((a, b) => a.channel_id - b.channel_id);
  const listOf = await subscriberLists(deps, includeSubscribers);
  const subscriptions = [];
  for (const channel of channels) {
    const [firstMessageId, subscriberIds] = await Promise.all([deps.messages.firstMessageId(channel.channel_id), deps.directory.subscriberIds(channel.channel_id)]);
    const record = subscriptionRecord(channel, { first_message_id: firstMessageId, subscriber_count: subscriberIds.length, settings: settings.get(channel.channel_id) });
    subscriptions.push(includeSubscribers === false ? record : Object.assign(record, listOf(subscriberIds.sort((a, b) => a - b))));
  }
  return { subscriptions };
}

/** GET /users/{user_id}/subscriptions/{stream_id}. */
export async function getSubscriptionStatus(deps: ChannelQueryDeps, actor: Actor, userId: number, channelId: number) {
  const me = await reader(deps, actor);
  const user = await deps.directory.userById(userId);
  if (!user) throw badRequest('No such user');
  await visibleChannel(deps, me, channelId);
  return { is_subscribed: await deps.directory.isSubscribed(channelId, userId) };
}

/** How a channel's subscribers are listed: whole, or in part for large channels when the client asked for 'partial'. */
async function subscriberLists(deps: ChannelQueryDeps, includeSubscribers: boolean | 'partial') {
  if (includeSubscribers !== 'partial' || !deps.partial) return (ids: number[]) => ({ subscribers: ids });
  const { activity, minChannelSize } = deps.partial;
  const [lastActive, users] = await Promise.all([activity.all(), deps.directory.activeUsers()]);
  const bots = new Set(users.filter((u) => u.is_bot).map((u) => u._id));
  const rule = { minChannelSize, isBot: (id: number) => bots.has(id), lastActive: (id: number) => lastActive.get(id), now: Date.now() };
  return (ids: number[]) => subscribersField(ids, rule);
}
