/**
 * What a user's own clients see of their navigation views (Zulip's `navigation_view`
 * events), and what the active users see of a change to the defaults for new users.
 */
import type { FactOf } from '@teamchat/contracts';
import { announce } from './announce';
import { toOrganization, type AudienceContext } from './delivery';

const mine = (user_id: number) => ({ acting_user_id: user_id });

export const navigationViewFanOut = {
  NavigationViewAdded: (fact: FactOf<'NavigationViewAdded'>) => [
    announce({ type: 'navigation_view', op: 'add', navigation_view: { ...fact.navigation_view } }, mine(fact.user_id)),
  ],
  NavigationViewUpdated: (fact: FactOf<'NavigationViewUpdated'>) => [
    announce({ type: 'navigation_view', op: 'update', fragment: fact.fragment, data: { ...fact.data } }, mine(fact.user_id)),
  ],
  RealmUserSettingsDefaultChanged: (fact: FactOf<'RealmUserSettingsDefaultChanged'>, _stored: unknown, ctx: AudienceContext) => {
    const event = { type: 'realm_user_settings_defaults' as const, op: 'update' as const, property: fact.property, value: fact.value };
    return toOrganization(fact, ctx, () => event);
  },
  NavigationViewRemoved: (fact: FactOf<'NavigationViewRemoved'>) => [announce({ type: 'navigation_view', op: 'remove', fragment: fact.fragment }, mine(fact.user_id))],
};
