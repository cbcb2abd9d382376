/**
 * Typing notifications and presence: ephemeral state that clients send constantly. None
 * of it is stored as facts. Messaging checks who may type where and publishes a notice
 * (`typingNotice`) that the events service hands to queues; presence lives in the events
 * service's memory.
 */
import { z } from 'zod';
import { TypingEditMessageEvent, TypingEvent } from '../client-events';
import { EmptyReply, endpoint } from './contract';

const int = () => z.number().int();

/** As for messages, the wire's legacy `stream` and `private` become `channel` and `direct`. */
const TypingMessageType = z
  .enum(['direct', 'private', 'channel', 'stream'])
  .default('direct')
  .transform((type): 'direct' | 'channel' => (type === 'stream' ? 'channel' : type === 'private' ? 'direct' : type));

export const TypingOp = z.enum(['start', 'stop']);
export type TypingOp = z.infer<typeof TypingOp>;

export const SetTypingParams = z.object({
  type: TypingMessageType,
  op: TypingOp,
  /** Direct typing: the user ids of the conversation. */
  to: z.array(int()).optional(),
  channel_id: int().optional(),
  topic: z.string().optional(),
});
export type SetTypingParams = z.infer<typeof SetTypingParams>;

export const SetEditTypingParams = z.object({ message_id: int(), op: TypingOp });
export type SetEditTypingParams = z.infer<typeof SetEditTypingParams>;

export const UpdatePresenceParams = z.object({
  /** Checked by the service, so that an unknown status gets Zulip's own message. */
  status: z.string(),
  ping_only: z.boolean().optional(),
  new_user_input: z.boolean().optional(),
  last_update_id: int().optional(),
  history_limit_days: int().optional(),
  slim_presence: z.boolean().optional(),
});
export type UpdatePresenceParams = z.infer<typeof UpdatePresenceParams>;

export const GetUserPresenceParams = z.object({ user_id_or_email: z.string() });

/** One client's presence in the legacy format. */
export const LegacyClientPresence = z.object({
  client: z.string().optional(),
  status: z.enum(['active', 'idle', 'offline']),
  timestamp: int(),
  pushable: z.boolean().optional(),
});
export type LegacyClientPresence = z.infer<typeof LegacyClientPresence>;

/** A user's presence in the legacy format: `aggregated` and one entry per client. */
export const LegacyUserPresence = z.record(z.string(), LegacyClientPresence);
export type LegacyUserPresence = z.infer<typeof LegacyUserPresence>;

/** A user's presence in the modern format (slim_presence / last_update_id). */
export const ModernUserPresence = z.object({ active_timestamp: int(), idle_timestamp: int() });
export type ModernUserPresence = z.infer<typeof ModernUserPresence>;

export const PresencesReply = z.object({
  /** By user id (modern) or by email (legacy). */
  presences: z.record(z.string(), z.union([ModernUserPresence, LegacyUserPresence])),
  server_timestamp: z.number(),
  presence_last_update_id: int(),
});
export type PresencesReply = z.infer<typeof PresencesReply>;

export const typingEndpoints = {
  setTyping: endpoint({
    service: 'messaging',
    subject: 'messaging.set_typing',
    http: { method: 'POST', path: '/typing', wireNames: { stream_id: 'channel_id' } },
    auth: true,
    params: SetTypingParams,
    reply: EmptyReply,
  }),
  setEditTyping: endpoint({
    service: 'messaging',
    subject: 'messaging.set_edit_typing',
    http: { method: 'POST', path: '/messages/{message_id}/typing' },
    auth: true,
    params: SetEditTypingParams,
    reply: EmptyReply,
  }),
};

export const presenceEndpoints = {
  updatePresence: endpoint({
    service: 'events',
    subject: 'events.update_presence',
    http: { method: 'POST', path: '/users/me/presence' },
    auth: true,
    params: UpdatePresenceParams,
    // Empty for ping_only.
    reply: PresencesReply.partial(),
  }),
  getUserPresence: endpoint({
    service: 'events',
    subject: 'events.get_user_presence',
    http: { method: 'GET', path: '/users/{user_id_or_email}/presence' },
    auth: true,
    params: GetUserPresenceParams,
    reply: z.object({ presence: LegacyUserPresence }),
  }),
  getRealmPresence: endpoint({
    service: 'events',
    subject: 'events.get_realm_presence',
    http: { method: 'GET', path: '/realm/presence' },
    auth: true,
    params: z.object({}),
    reply: PresencesReply,
  }),
};

/**
 * A typing notification on its way from messaging (which checked it) to the events
 * service: the client event and who may receive it. Published, never stored.
 */
export const typingNotice = {
  subject: 'ephemeral.typing',
  payload: z.object({
    event: z.union([TypingEvent, TypingEditMessageEvent]),
    user_ids: z.array(int()),
  }),
};
export type TypingNotice = z.infer<typeof typingNotice.payload>;
