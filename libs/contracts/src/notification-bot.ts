/**
 * The notification bot: the system user the server posts automated notices as (Zulip's
 * cross-realm "Notification Bot"), beginning with new-channel announcements. It is no user
 * of the organization: it has no account, no queues and no API key, is never a recipient,
 * and is listed in register's `cross_realm_bots`. Its id is fixed far above any id the
 * organization hands out, so that it can never be taken by a user.
 */
export const NOTIFICATION_BOT = Object.freeze({
  user_id: 2_000_000_001,
  email: 'notification-bot@zulip.com',
  full_name: 'Notification Bot',
  /** The `client` of the messages it sends, as Zulip names its internal sender. */
  client: 'Internal',
});

/** The topic of new-channel announcements in the organization's announcements channel (Zulip's). */
export const NEW_CHANNELS_TOPIC = 'new channels';
