/**
 * Logged-in devices and their push registration (issue 17 item 6), served by accounts,
 * in Zulip's shapes: POST /register_client_device (feature level 468), POST
 * /remove_client_device (470) and POST /mobile_push/register (406, redesigned at 468).
 */
import { z } from 'zod';
import { EmptyReply, endpoint, NoParams } from './contract';

const int = () => z.number().int();

export const devicesEndpoints = {
  registerClientDevice: endpoint({
    service: 'accounts',
    subject: 'accounts.register_client_device',
    http: { method: 'POST', path: '/register_client_device' },
    auth: true,
    params: NoParams,
    reply: z.object({ device_id: int() }),
  }),
  removeClientDevice: endpoint({
    service: 'accounts',
    subject: 'accounts.remove_client_device',
    http: { method: 'POST', path: '/remove_client_device' },
    auth: true,
    params: z.object({ device_id: int() }),
    reply: EmptyReply,
  }),
  registerPushDevice: endpoint({
    service: 'accounts',
    subject: 'accounts.register_push_device',
    http: { method: 'POST', path: '/mobile_push/register' },
    auth: true,
    params: z.object({
      device_id: int(),
      // The push key fields: both or neither.
      push_key_id: int().optional(),
      push_key: z.string().optional(),
      // The token fields: all or none.
      token_kind: z.string().optional(),
      token_id: z.string().optional(),
      bouncer_public_key: z.string().optional(),
      encrypted_push_registration: z.string().optional(),
    }),
    reply: EmptyReply,
  }),
};
