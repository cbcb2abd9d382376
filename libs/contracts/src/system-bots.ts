/**
 * The system bots: users of no organization that the server itself speaks as (Zulip's
 * cross-realm bots). The notification bot (notification-bot.ts) posts automated notices
 * such as new-channel announcements and tells a referrer that their invitee joined; the
 * welcome bot greets a new user with the organization's welcome text.
 *
 * Every organization sees them in register's `cross_realm_bots`. They have no account,
 * no password, no API key and no event queue: nobody can log in as one (the key endpoints
 * and HTTP Basic refuse their addresses outright), and no user may take their addresses.
 * Their ids are fixed far above any id an organization hands out.
 */
import { NOTIFICATION_BOT } from './notification-bot';

export const WELCOME_BOT = Object.freeze({
  user_id: 2_000_000_002,
  email: 'welcome-bot@zulip.com',
  full_name: 'Welcome Bot',
  client: 'Internal',
});

export interface SystemBot {
  readonly user_id: number;
  readonly email: string;
  readonly full_name: string;
  readonly client: string;
}

/** By the name the internal send command uses. */
export const SYSTEM_BOTS = Object.freeze({ notification: NOTIFICATION_BOT, welcome: WELCOME_BOT } satisfies Record<string, SystemBot>);
export type SystemBotName = keyof typeof SYSTEM_BOTS;
export const SYSTEM_BOT_NAMES = Object.keys(SYSTEM_BOTS) as [SystemBotName, ...SystemBotName[]];

/** Whether an address is a system bot's (addresses compare without case, as logins do). */
export function isSystemBotEmail(email: string): boolean {
  const normalized = email.trim().toLowerCase();
  return Object.values(SYSTEM_BOTS).some((bot) => bot.email === normalized);
}

export function isSystemBotId(userId: number): boolean {
  return Object.values(SYSTEM_BOTS).some((bot) => bot.user_id === userId);
}
