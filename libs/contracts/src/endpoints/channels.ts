/** The channels service's endpoints: channels, their settings, subscriptions. */
import { z } from 'zod';
import { CHANNEL_GROUP_SETTINGS, TOPICS_POLICIES, type ChannelGroupSettingName } from '../channel-settings';
import { GroupSettingUpdate, GroupSettingValue } from '../groups';
import { EmptyReply, endpoint } from './contract';

const int = () => z.number().int();

/**
 * Every channel group-setting as an optional parameter of the given form: a new setting
 * becomes a parameter of each endpoint that takes them.
 */
function groupSettingParams<T extends z.ZodType>(form: T) {
  return Object.fromEntries(CHANNEL_GROUP_SETTINGS.map((name) => [name, form.optional()])) as Record<ChannelGroupSettingName, z.ZodOptional<T>>;
}

/** `realm_default`, `unlimited` or a number of days. */
const MessageRetentionDays = z.union([z.string(), int()]);

export const SubscribeParams = z.object({
  subscriptions: z.array(z.object({ name: z.string(), description: z.string().optional() })),
  principals: z.union([z.array(int()), z.array(z.string())]).optional(),
  authorization_errors_fatal: z.boolean().optional(),
  announce: z.boolean().optional(),
  invite_only: z.boolean().optional(),
  is_web_public: z.boolean().optional(),
  is_default: z.boolean().optional(),
  history_public_to_subscribers: z.boolean().optional(),
  message_retention_days: MessageRetentionDays.optional(),
  topics_policy: z.enum(TOPICS_POLICIES).optional(),
  // A union, so that the wire's `null` decodes as JSON.
  folder_id: z.union([int(), z.null()]).optional(),
  ...groupSettingParams(GroupSettingValue),
});
export type SubscribeParams = z.infer<typeof SubscribeParams>;

export const UpdateChannelParams = z.object({
  channel_id: int(),
  description: z.string().optional(),
  name: z.string().optional(),
  invite_only: z.boolean().optional(),
  is_web_public: z.boolean().optional(),
  history_public_to_subscribers: z.boolean().optional(),
  is_default: z.boolean().optional(),
  message_retention_days: MessageRetentionDays.optional(),
  is_archived: z.boolean().optional(),
  topics_policy: z.enum(TOPICS_POLICIES).optional(),
  // A union, so that the wire's `null` decodes as JSON.
  folder_id: z.union([int(), z.null()]).optional(),
  ...groupSettingParams(GroupSettingUpdate),
});
export type UpdateChannelParams = z.infer<typeof UpdateChannelParams>;

export const ChannelIdPathParams = z.object({ channel_id: int() });

export const CreateChannelParams = z.object({
  name: z.string(),
  description: z.string().default(''),
  invite_only: z.boolean().default(false),
  history_public_to_subscribers: z.boolean().optional(),
  is_default: z.boolean().default(false),
  subscribers: z.array(int()).default([]),
});

/** Channel names by user id (as a string: a JSON object key). */
const NamesByUser = z.record(z.string(), z.array(z.string()));

export const channelsEndpoints = {
  subscribe: endpoint({
    service: 'channels',
    subject: 'channels.subscribe',
    http: { method: 'POST', path: '/users/me/subscriptions', wireNames: { is_default_stream: 'is_default' } },
    auth: true,
    params: SubscribeParams,
    reply: z.object({
      subscribed: NamesByUser,
      already_subscribed: NamesByUser,
      /** Only with authorization_errors_fatal=false: the channels the caller may not join. */
      unauthorized: z.array(z.string()).optional(),
    }),
  }),
  updateChannel: endpoint({
    service: 'channels',
    subject: 'channels.update_channel',
    http: {
      method: 'PATCH',
      path: '/streams/{stream_id}',
      wireNames: { stream_id: 'channel_id', new_name: 'name', is_private: 'invite_only', is_default_stream: 'is_default' },
    },
    auth: true,
    params: UpdateChannelParams,
    reply: EmptyReply,
  }),
  archiveChannel: endpoint({
    service: 'channels',
    subject: 'channels.archive_channel',
    http: { method: 'DELETE', path: '/streams/{stream_id}', wireNames: { stream_id: 'channel_id' } },
    auth: true,
    params: ChannelIdPathParams,
    reply: EmptyReply,
  }),

  /** Trusted internal creation (seeding, benchmarks): no actor, no permission checks. */
  createChannel: endpoint({
    service: 'channels',
    subject: 'channels.create_channel',
    auth: false,
    params: CreateChannelParams,
    reply: z.object({ channel_id: int() }),
  }),
};
