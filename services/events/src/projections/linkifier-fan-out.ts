/**
 * What clients see of a linkifier change: the whole ordered list, to the active users the
 * fact names, as `realm_linkifiers` and, for clients before Zulip 4.0, as `realm_filters`
 * tuples (each queue keeps the types it asked for).
 */
import type { FactOf } from '@teamchat/contracts';
import type { Delivery } from './delivery';

type LinkifierFact = FactOf<'LinkifierAdded' | 'LinkifierUpdated' | 'LinkifierRemoved' | 'LinkifiersReordered'>;

const linkifiersDelivery = (fact: LinkifierFact): Delivery[] => {
  const modern = { type: 'realm_linkifiers' as const, realm_linkifiers: fact.linkifiers.map((l) => ({ id: l.id, pattern: l.pattern, url_template: l.url_template })) };
  const legacy = { type: 'realm_filters' as const, realm_filters: fact.linkifiers.map((l): [string, string, number] => [l.pattern, l.url_template, l.id]) };
  return [
    { user_ids: fact.audience_user_ids, eventFor: () => modern },
    { user_ids: fact.audience_user_ids, eventFor: () => legacy },
  ];
};

export const linkifierFanOut = {
  LinkifierAdded: linkifiersDelivery,
  LinkifierUpdated: linkifiersDelivery,
  LinkifierRemoved: linkifiersDelivery,
  LinkifiersReordered: linkifiersDelivery,
};
