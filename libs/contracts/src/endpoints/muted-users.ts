/**
 * Muted users (Zulip's feature level 48), served by messaging, which owns what a mute
 * changes: POST and DELETE /users/me/muted_users/{muted_user_id}. The list itself is
 * register's `muted_users` section and the `muted_users` event.
 */
import { z } from 'zod';
import { EmptyReply, endpoint } from './contract';

const params = z.object({ muted_user_id: z.number().int() });

export const mutedUsersEndpoints = {
  muteUser: endpoint({
    service: 'messaging',
    subject: 'messaging.mute_user',
    http: { method: 'POST', path: '/users/me/muted_users/{muted_user_id}' },
    auth: true,
    params,
    reply: EmptyReply,
  }),
  unmuteUser: endpoint({
    service: 'messaging',
    subject: 'messaging.unmute_user',
    http: { method: 'DELETE', path: '/users/me/muted_users/{muted_user_id}' },
    auth: true,
    params,
    reply: EmptyReply,
  }),
};
