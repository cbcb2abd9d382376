/** The notification bot as register's `cross_realm_bots` lists it: a bot of no organization. */
import { cachedGravatarUrls, NOTIFICATION_BOT, ROLE, WELCOME_BOT, type RealmUser } from '@teamchat/contracts';
import type { z } from 'zod';

const avatarUrls = cachedGravatarUrls();

export function notificationBotUser(clientGravatar: boolean): z.infer<typeof RealmUser> {
  return {
    user_id: NOTIFICATION_BOT.user_id,
    delivery_email: NOTIFICATION_BOT.email,
    email: NOTIFICATION_BOT.email,
    full_name: NOTIFICATION_BOT.full_name,
    // A system bot exists before any organization: the epoch stands for "always".
    date_joined: new Date(0).toISOString(),
    is_active: true,
    is_owner: false,
    is_admin: false,
    is_guest: false,
    is_bot: true,
    bot_type: 1,
    bot_owner_id: null,
    role: ROLE.member,
    timezone: '',
    avatar_url: clientGravatar ? null : avatarUrls(NOTIFICATION_BOT.email),
    avatar_version: 1,
    is_imported_stub: false,
    is_billing_admin: false,
    profile_data: {},
  };
}

/** The welcome bot, listed beside it: the same kind of system user. */
export function welcomeBotUser(clientGravatar: boolean): z.infer<typeof RealmUser> {
  return {
    ...notificationBotUser(clientGravatar),
    user_id: WELCOME_BOT.user_id,
    delivery_email: WELCOME_BOT.email,
    email: WELCOME_BOT.email,
    full_name: WELCOME_BOT.full_name,
    avatar_url: clientGravatar ? null : avatarUrls(WELCOME_BOT.email),
  };
}
