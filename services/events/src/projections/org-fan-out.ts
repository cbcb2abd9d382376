/**
 * What clients see of organization settings, user status and custom profile field changes
 * (Zulip's `realm`, `user_status`, `custom_profile_fields` and `realm_user` events), to the
 * active users each fact names (see toOrganization).
 */
import { REALM_SETTINGS, type ClientEvent, type FactOf, type RealmSettingName } from '@teamchat/contracts';
import { same, toOrganization, type AudienceContext, type Delivery } from './delivery';

export const orgFanOut = {
  RealmSettingsChanged: (fact: FactOf<'RealmSettingsChanged'>, _stored: unknown, ctx: AudienceContext) => realmSettingsDeliveries(fact, ctx),
  UserStatusChanged: (fact: FactOf<'UserStatusChanged'>, _stored: unknown, ctx: AudienceContext): Delivery[] => toOrganization(fact, ctx, same(userStatusEvent(fact))),
  CustomProfileFieldsChanged: (fact: FactOf<'CustomProfileFieldsChanged'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    toOrganization(fact, ctx, same({ type: 'custom_profile_fields', fields: fact.fields })),
  CustomProfileDataChanged: (fact: FactOf<'CustomProfileDataChanged'>, _stored: unknown, ctx: AudienceContext): Delivery[] =>
    fact.changes.flatMap(({ id, value }) =>
      toOrganization(fact, ctx, same({ type: 'realm_user', op: 'update', person: { user_id: fact.user_id, custom_profile_field: { id, value } } })),
    ),
};

/**
 * One `realm` event per changed setting, as Zulip sends them: `update` with the value, or
 * for message editing settings and group-settings `update_dict` with property `default`.
 */
function realmSettingsDeliveries(fact: FactOf<'RealmSettingsChanged'>, ctx: AudienceContext): Delivery[] {
  return Object.entries(fact.changes).flatMap(([name, value]) => {
    const spec = REALM_SETTINGS[name as RealmSettingName];
    if (!spec) return [];
    const event: ClientEvent =
      spec.event === 'update_dict'
        ? { type: 'realm', op: 'update_dict', property: 'default', data: { [name]: value } }
        : { type: 'realm', op: 'update', property: name, value };
    return toOrganization(fact, ctx, () => event);
  });
}

/** Only what the request set: the text, the emoji (all three members), or both. */
function userStatusEvent(fact: FactOf<'UserStatusChanged'>): ClientEvent {
  return {
    type: 'user_status',
    user_id: fact.user_id,
    ...(fact.changed.includes('status_text') ? { status_text: fact.status_text } : {}),
    ...(fact.changed.includes('emoji') ? { emoji_name: fact.emoji_name, emoji_code: fact.emoji_code, reaction_type: fact.reaction_type } : {}),
  };
}
