/**
 * The channels service's reading endpoints and the endpoints around subscriptions:
 * listing channels, a user's subscriptions and their personal properties, leaving
 * channels, default channels and channel folders.
 */
import { z } from 'zod';
import { ApiChannel, ApiSubscription } from '../client-events';
import { ApiChannelFolder } from '../feature-events';
import { SUBSCRIPTION_SETTINGS } from '../facts';
import { EmptyReply, endpoint } from './contract';

const int = () => z.number().int();
const ids = () => z.array(int());

export const GetChannelsParams = z.object({
  include_public: z.boolean().default(true),
  include_web_public: z.boolean().default(false),
  include_subscribed: z.boolean().default(true),
  /** `include_all_active` on the wire, its older name. */
  include_all: z.boolean().default(false),
  include_default: z.boolean().default(false),
  include_owner_subscribed: z.boolean().default(false),
  exclude_archived: z.boolean().default(true),
});
export type GetChannelsParams = z.infer<typeof GetChannelsParams>;

/** A channel in GET /streams: `is_default` only when the request asked for the default channels. */
const ListedChannel = ApiChannel.extend({ is_default: z.boolean().optional() });

export const GetSubscriptionsParams = z.object({ include_subscribers: z.union([z.boolean(), z.literal('partial')]).default(false) });

const SubscriptionRecord = ApiSubscription.extend({ subscribers: ids().optional(), partial_subscribers: ids().optional() });

export const UnsubscribeParams = z.object({
  subscriptions: z.array(z.string()),
  principals: z.union([z.array(int()), z.array(z.string())]).optional(),
});
export type UnsubscribeParams = z.infer<typeof UnsubscribeParams>;

/** The properties a subscriber sets for themselves (Zulip's names). */
/** What clients may set: the stored settings, and `in_home_view`, the inverse of `is_muted` under its old name. */
export const SUBSCRIPTION_PROPERTIES = [...SUBSCRIPTION_SETTINGS, 'in_home_view'] as const;
export type SubscriptionPropertyName = (typeof SUBSCRIPTION_PROPERTIES)[number];

const PropertyChange = z.object({
  stream_id: int(),
  property: z.string(),
  value: z.union([z.boolean(), z.string(), z.null()]),
});
export const UpdateSubscriptionPropertiesParams = z.object({ subscription_data: z.array(PropertyChange) });
export type UpdateSubscriptionPropertiesParams = z.infer<typeof UpdateSubscriptionPropertiesParams>;

export const ChannelFolderCreateParams = z.object({ name: z.string(), description: z.string().default('') });
export const ChannelFolderUpdateParams = z.object({
  channel_folder_id: int(),
  name: z.string().optional(),
  description: z.string().optional(),
  is_archived: z.boolean().optional(),
});
export type ChannelFolderUpdateParams = z.infer<typeof ChannelFolderUpdateParams>;

export const subscriptionsEndpoints = {
  getChannels: endpoint({
    service: 'channels',
    subject: 'channels.get_channels',
    http: { method: 'GET', path: '/streams', wireNames: { include_all_active: 'include_all' } },
    auth: true,
    params: GetChannelsParams,
    reply: z.object({ streams: z.array(ListedChannel) }),
  }),
  getChannel: endpoint({
    service: 'channels',
    subject: 'channels.get_channel',
    http: { method: 'GET', path: '/streams/{stream_id}', wireNames: { stream_id: 'channel_id' } },
    auth: true,
    params: z.object({ channel_id: int() }),
    reply: z.object({ stream: ApiChannel }),
  }),
  getChannelId: endpoint({
    service: 'channels',
    subject: 'channels.get_channel_id',
    http: { method: 'GET', path: '/get_stream_id' },
    auth: true,
    params: z.object({ stream: z.string() }),
    reply: z.object({ stream_id: int() }),
  }),
  getSubscribers: endpoint({
    service: 'channels',
    subject: 'channels.get_subscribers',
    http: { method: 'GET', path: '/streams/{stream_id}/members', wireNames: { stream_id: 'channel_id' } },
    auth: true,
    params: z.object({ channel_id: int() }),
    reply: z.object({ subscribers: ids() }),
  }),
  getSubscriptions: endpoint({
    service: 'channels',
    subject: 'channels.get_subscriptions',
    http: { method: 'GET', path: '/users/me/subscriptions' },
    auth: true,
    params: GetSubscriptionsParams,
    reply: z.object({ subscriptions: z.array(SubscriptionRecord) }),
  }),
  getSubscriptionStatus: endpoint({
    service: 'channels',
    subject: 'channels.get_subscription_status',
    http: { method: 'GET', path: '/users/{user_id}/subscriptions/{stream_id}', wireNames: { stream_id: 'channel_id' } },
    auth: true,
    params: z.object({ user_id: int(), channel_id: int() }),
    reply: z.object({ is_subscribed: z.boolean() }),
  }),
  unsubscribe: endpoint({
    service: 'channels',
    subject: 'channels.unsubscribe',
    http: { method: 'DELETE', path: '/users/me/subscriptions' },
    auth: true,
    params: UnsubscribeParams,
    reply: z.object({ removed: z.array(z.string()), not_removed: z.array(z.string()) }),
  }),
  updateSubscriptionProperties: endpoint({
    service: 'channels',
    subject: 'channels.update_subscription_properties',
    http: { method: 'POST', path: '/users/me/subscriptions/properties' },
    auth: true,
    params: UpdateSubscriptionPropertiesParams,
    reply: z.object({ subscription_data: z.array(PropertyChange) }),
  }),
  addDefaultChannel: endpoint({
    service: 'channels',
    subject: 'channels.add_default_channel',
    http: { method: 'POST', path: '/default_streams', wireNames: { stream_id: 'channel_id' } },
    auth: true,
    params: z.object({ channel_id: int() }),
    reply: EmptyReply,
  }),
  removeDefaultChannel: endpoint({
    service: 'channels',
    subject: 'channels.remove_default_channel',
    http: { method: 'DELETE', path: '/default_streams', wireNames: { stream_id: 'channel_id' } },
    auth: true,
    params: z.object({ channel_id: int() }),
    reply: EmptyReply,
  }),
  createChannelFolder: endpoint({
    service: 'channels',
    subject: 'channels.create_channel_folder',
    http: { method: 'POST', path: '/channel_folders/create' },
    auth: true,
    params: ChannelFolderCreateParams,
    reply: z.object({ channel_folder_id: int() }),
  }),
  getChannelFolders: endpoint({
    service: 'channels',
    subject: 'channels.get_channel_folders',
    http: { method: 'GET', path: '/channel_folders' },
    auth: true,
    params: z.object({ include_archived: z.boolean().default(false) }),
    reply: z.object({ channel_folders: z.array(ApiChannelFolder) }),
  }),
  /** Reorders every folder (Zulip's PATCH /channel_folders): each folder's `order` becomes its place in the list. */
  reorderChannelFolders: endpoint({
    service: 'channels',
    subject: 'channels.reorder_channel_folders',
    http: { method: 'PATCH', path: '/channel_folders' },
    auth: true,
    params: z.object({ order: z.array(int()) }),
    reply: EmptyReply,
  }),
  updateChannelFolder: endpoint({
    service: 'channels',
    subject: 'channels.update_channel_folder',
    http: { method: 'PATCH', path: '/channel_folders/{channel_folder_id}' },
    auth: true,
    params: ChannelFolderUpdateParams,
    reply: EmptyReply,
  }),
};
