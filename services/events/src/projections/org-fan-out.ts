/**
 * What clients see of organization settings and user status changes (Zulip's `realm` and
 * `user_status` events), beside the fan-out table that names them.
 */
import { REALM_SETTINGS, type ClientEvent, type FactOf, type RealmSettingName } from '@teamchat/contracts';
import type { Delivery } from './delivery';

/**
 * One `realm` event per changed setting, as Zulip sends them: `update` with the value, or
 * for message editing settings and group-settings `update_dict` with property `default`.
 */
export function realmSettingsDeliveries(fact: FactOf<'RealmSettingsChanged'>): Delivery[] {
  return Object.entries(fact.changes).flatMap(([name, value]) => {
    const spec = REALM_SETTINGS[name as RealmSettingName];
    if (!spec) return [];
    const event: ClientEvent =
      spec.event === 'update_dict'
        ? { type: 'realm', op: 'update_dict', property: 'default', data: { [name]: value } }
        : { type: 'realm', op: 'update', property: name, value };
    return [{ user_ids: fact.audience_user_ids, eventFor: () => event }];
  });
}

/** Only what the request set: the text, the emoji (all three members), or both. */
export function userStatusEvent(fact: FactOf<'UserStatusChanged'>): ClientEvent {
  return {
    type: 'user_status',
    user_id: fact.user_id,
    ...(fact.changed.includes('status_text') ? { status_text: fact.status_text } : {}),
    ...(fact.changed.includes('emoji') ? { emoji_name: fact.emoji_name, emoji_code: fact.emoji_code, reaction_type: fact.reaction_type } : {}),
  };
}
