/** The system bots as register's `cross_realm_bots` lists them: bots of no organization. */
import { cachedGravatarUrls, ROLE, SYSTEM_BOTS, type RealmUser, type SystemBot } from '@teamchat/contracts';
import type { z } from 'zod';

const avatarUrls = cachedGravatarUrls();

export function systemBotUser(bot: SystemBot, clientGravatar: boolean): z.infer<typeof RealmUser> & { is_system_bot: true } {
  return {
    user_id: bot.user_id,
    delivery_email: bot.email,
    email: bot.email,
    full_name: bot.full_name,
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
    avatar_url: clientGravatar ? null : avatarUrls(bot.email),
    avatar_version: 1,
    is_imported_stub: false,
    is_billing_admin: false,
    profile_data: {},
    is_system_bot: true,
  };
}

/** Every system bot, ordered by id as Zulip orders its cross-realm bots. */
export function systemBotUsers(clientGravatar: boolean) {
  return Object.values(SYSTEM_BOTS)
    .sort((a, b) => a.user_id - b.user_id)
    .map((bot) => systemBotUser(bot, clientGravatar));
}
