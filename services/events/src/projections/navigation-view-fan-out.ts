/** What a user's own clients see of their navigation views (Zulip's `navigation_view` events). */
import type { FactOf } from '@teamchat/contracts';
import { announce } from './announce';

const mine = (user_id: number) => ({ acting_user_id: user_id });

export const navigationViewFanOut = {
  NavigationViewAdded: (fact: FactOf<'NavigationViewAdded'>) => [
    announce({ type: 'navigation_view', op: 'add', navigation_view: { ...fact.navigation_view } }, mine(fact.user_id)),
  ],
  NavigationViewUpdated: (fact: FactOf<'NavigationViewUpdated'>) => [
    announce({ type: 'navigation_view', op: 'update', fragment: fact.fragment, data: { ...fact.data } }, mine(fact.user_id)),
  ],
  NavigationViewRemoved: (fact: FactOf<'NavigationViewRemoved'>) => [announce({ type: 'navigation_view', op: 'remove', fragment: fact.fragment }, mine(fact.user_id))],
};
