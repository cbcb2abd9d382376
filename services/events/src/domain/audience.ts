/**
 * Who may receive each event type the spec names. Most types already reach their users
 * through a fact that carries its audience (the deciding service knows who may see a
 * message or a channel); the rest belong to features not built yet, and this table
 * fixes their audience now so that each feature's issue only has to emit the event.
 * A queue still applies its own `event_types` filter on top (EventQueue.wants).
 */
import { isAdministrator } from '@teamchat/policies';
import type { ClientEvent, SpecEventType } from '@teamchat/contracts';

export type AudienceRule =
  /** Only the acting user's own queues: their personal data and settings. */
  | 'acting_user'
  /** Every active user of the organization. */
  | 'organization'
  /**
   * Every active user who may access the user the event is about, and that user. Zulip
   * restricts guests' access with `can_access_all_users_group`; this server has no such
   * restriction yet, so the caller's `may_access` decides (default: everyone).
   */
  | 'user_access'
  /** Administrators (owners included) and the bot's owner, as Zulip sends `realm_bot`. */
  | 'administrators_and_bot_owner'
  /** Computed by the deciding service from who may see the message or channel, and carried by the fact or notice. */
  | 'carried'
  /** Never delivered: each long-poll makes its own when it times out. */
  | 'polling_queue';

export const AUDIENCE: Readonly<Record<SpecEventType, AudienceRule>> = {
  alert_words: 'acting_user',
  attachment: 'acting_user',
  channel_folder: 'organization',
  device: 'acting_user',
  drafts: 'acting_user',
  has_meeting_token: 'acting_user',
  heartbeat: 'polling_queue',
  message: 'carried',
  navigation_view: 'acting_user',
  reaction: 'carried',
  realm: 'organization',
  realm_bot: 'administrators_and_bot_owner',
  realm_domains: 'organization',
  realm_emoji: 'organization',
  realm_user: 'user_access',
  realm_user_settings_defaults: 'organization',
  reminders: 'acting_user',
  saved_snippets: 'acting_user',
  scheduled_messages: 'acting_user',
  stream: 'carried',
  subscription: 'carried',
  typing: 'carried',
  typing_edit_message: 'carried',
  update_message_flags: 'acting_user',
  user_group: 'organization',
  user_settings: 'acting_user',
  user_topic: 'acting_user',
};

export interface AudienceUser {
  user_id: number;
  role: number;
  is_active: boolean;
  bot_owner_id: number | null;
}

/** The organization as the event's emitter saw it. */
export interface Organization {
  acting_user_id: number;
  /** Personal events need none: a fact of the user's own data names only its user. */
  users?: readonly AudienceUser[];
  /** For `user_access`: whether `viewer` may see `subject`. */
  may_access?: (viewer: number, subject: number) => boolean;
  /** For `carried` types: the audience the deciding service computed. */
  carried_user_ids?: readonly number[];
}

export const audienceRuleOf = (type: string): AudienceRule | undefined =>
  Object.hasOwn(AUDIENCE, type) ? AUDIENCE[type as SpecEventType] : undefined;

/** The users whose queues may take `event`, each once, in id order. */
export function recipientsOf(event: ClientEvent, org: Organization): number[] {
  const users = org.users ?? [];
  const active = users.filter((u) => u.is_active);
  const ids = (users: readonly AudienceUser[]) => users.map((u) => u.user_id);
  let recipients: number[];
  switch (audienceRuleOf(event.type)) {
    case 'acting_user':
      recipients = users.some((u) => u.user_id === org.acting_user_id && !u.is_active) ? [] : [org.acting_user_id];
      break;
    case 'organization':
      recipients = ids(active);
      break;
    case 'user_access': {
      const subject = event.type === 'realm_user' ? event.person.user_id : undefined;
      const mayAccess = org.may_access ?? (() => true);
      recipients = ids(active.filter((u) => subject === undefined || u.user_id === subject || mayAccess(u.user_id, subject)));
      break;
    }
    case 'administrators_and_bot_owner': {
      const botId = event.type === 'realm_bot' ? event.bot.user_id : undefined;
      // An added bot names its owner; later forms only the bot, whose owner the organization knows.
      const owner =
        event.type === 'realm_bot' && event.op === 'add' ? event.bot.owner_id : users.find((u) => u.user_id === botId)?.bot_owner_id;
      recipients = ids(active.filter((u) => isAdministrator(u.role) || u.user_id === owner));
      break;
    }
    case 'carried': {
      const inactive = new Set(ids(users.filter((u) => !u.is_active)));
      recipients = (org.carried_user_ids ?? []).filter((id) => !inactive.has(id));
      break;
    }
    default:
      recipients = [];
  }
  return [...new Set(recipients)].sort((a, b) => a - b);
}
