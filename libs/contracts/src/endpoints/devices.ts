/**
 * Logged-in devices and their push registration (issue 17 item 6), served by accounts,
 * in Zulip's shapes: POST /register_client_device (feature level 468), POST
 * /remove_client_device (470) and POST /mobile_push/register (406, redesigned at 468),
 * which this server, having no push bouncer, refuses as Zulip does without one; and the
 * older per-user push tokens the mobile apps register at start-up and remove at logout
 * (POST/DELETE /users/me/android_gcm_reg_id and /users/me/apns_device_token).
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
  addFcmToken: endpoint({
    service: 'accounts',
    subject: 'accounts.add_fcm_token',
    http: { method: 'POST', path: '/users/me/android_gcm_reg_id' },
    auth: true,
    params: z.object({ token: z.string() }),
    reply: EmptyReply,
  }),
  removeFcmToken: endpoint({
    service: 'accounts',
    subject: 'accounts.remove_fcm_token',
    http: { method: 'DELETE', path: '/users/me/android_gcm_reg_id' },
    auth: true,
    params: z.object({ token: z.string() }),
    reply: EmptyReply,
  }),
  addApnsToken: endpoint({
    service: 'accounts',
    subject: 'accounts.add_apns_token',
    http: { method: 'POST', path: '/users/me/apns_device_token' },
    auth: true,
    // The app's bundle id, which APNs needs beside the token (Zulip requires it).
    params: z.object({ token: z.string(), appid: z.string() }),
    reply: EmptyReply,
  }),
  removeApnsToken: endpoint({
    service: 'accounts',
    subject: 'accounts.remove_apns_token',
    http: { method: 'DELETE', path: '/users/me/apns_device_token' },
    auth: true,
    params: z.object({ token: z.string() }),
    reply: EmptyReply,
  }),
};
