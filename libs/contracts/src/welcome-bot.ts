/**
 * The welcome bot: the system user that greets people who join by invitation (Zulip's
 * cross-realm "Welcome Bot"). Like the notification bot it is no user of the organization:
 * no account, no key, never a recipient; it sends only, and register's `cross_realm_bots`
 * lists it. Its id is fixed beside the notification bot's, far above any user id.
 */
export const WELCOME_BOT = Object.freeze({
  user_id: 2_000_000_002,
  email: 'welcome-bot@zulip.com',
  full_name: 'Welcome Bot',
  client: 'Internal',
});
