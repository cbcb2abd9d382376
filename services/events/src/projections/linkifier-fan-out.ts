/**
 * What clients see of a linkifier change: the whole ordered list as `realm_linkifiers`, to
 * the active users the fact names, on the queues of clients with the
 * `linkifier_url_template` capability only. As in Zulip since feature level 176, a client
 * without it (one that reads URL format strings, not templates) gets no linkifier events
 * and an empty `realm_linkifiers` at registration, and the legacy `realm_filters` event is
 * sent to no one (register's `realm_filters` is always empty): a template handed to such a
 * client would make wrong links.
 */
import type { FactOf } from '@teamchat/contracts';
import { toOrganization, type AudienceContext, type Delivery } from './delivery';

type LinkifierFact = FactOf<'LinkifierAdded' | 'LinkifierUpdated' | 'LinkifierRemoved' | 'LinkifiersReordered'>;

const linkifiersDelivery = (fact: LinkifierFact, _stored: unknown, ctx: AudienceContext): Delivery[] => {
  const event = { type: 'realm_linkifiers' as const, realm_linkifiers: fact.linkifiers.map((l) => ({ id: l.id, pattern: l.pattern, url_template: l.url_template })) };
  return toOrganization(fact, ctx, ({ options }) => (options.linkifier_url_template ? event : null));
};

export const linkifierFanOut = {
  LinkifierAdded: linkifiersDelivery,
  LinkifierUpdated: linkifiersDelivery,
  LinkifierRemoved: linkifiersDelivery,
  LinkifiersReordered: linkifiersDelivery,
};
