/**
 * What clients see of PATCH /settings beyond the `user_settings` events (tools-fan-out):
 * a confirmed email change as `realm_user` updates (the new API email and delivery email)
 * to those who may see the real address, and `realm_bot` for a bot's administrators.
 * A requested change is not an event: nothing changed yet. Nor is a server-level
 * permission, which Zulip's clients are not told of.
 */
import type { ClientEvent, FactOf } from '@teamchat/contracts';
import type { Delivery } from './delivery';

const person = (user_ids: number[] | undefined, person: Record<string, unknown>): Delivery[] =>
  user_ids?.length ? [{ user_ids, eventFor: () => ({ type: 'realm_user', op: 'update', person }) as ClientEvent }] : [];

export const settingsFanOut = {
  EmailChangeRequested: null,
  ServerPermissionChanged: null,
  // Nothing a client is told of (as Zulip): a reset link is mailed, and a user's own new key
  // is in the reply of the request that made it.
  PasswordResetRequested: null,
  UserApiKeyRegenerated: null,
  UserEmailChanged: (fact: FactOf<'UserEmailChanged'>): Delivery[] => [
    ...person(fact.audience_user_ids, { user_id: fact.user_id, new_email: fact.new_email }),
    ...person(fact.audience_user_ids, { user_id: fact.user_id, delivery_email: fact.new_email }),
    ...(fact.bot_audience_user_ids?.length
      ? [{ user_ids: fact.bot_audience_user_ids, eventFor: () => ({ type: 'realm_bot', op: 'update', bot: { user_id: fact.user_id, email: fact.new_email } }) as ClientEvent }]
      : []),
  ],
};
