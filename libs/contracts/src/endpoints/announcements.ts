/**
 * Internal contracts for new-channel announcements (no HTTP route): the organization's
 * new-channel announcements channel, an organization setting accounts keeps (set by
 * trusted callers such as seeding), and the announcement itself, which channels asks
 * messaging to post as the notification bot once a channel was created with `announce`.
 */
import { z } from 'zod';
import { endpoint } from './contract';

const int = () => z.number().int();

export const announcementsAccountsEndpoints = {
  setNewChannelAnnouncementsChannel: endpoint({
    service: 'accounts',
    subject: 'accounts.set_new_channel_announcements_channel',
    auth: false,
    /** null: no announcements. */
    params: z.object({ channel_id: int().positive().nullable() }),
    reply: z.object({}),
  }),
};

export const announcementsMessagingEndpoints = {
  announceNewChannel: endpoint({
    service: 'messaging',
    subject: 'messaging.announce_new_channel',
    auth: false,
    params: z.object({ channel_id: int().positive(), creator_id: int().positive() }),
    /** The announcement's message id; null when there is nowhere (or nothing) to announce. */
    reply: z.object({ message_id: int().nullable() }),
  }),
};
