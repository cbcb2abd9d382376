/**
 * What a user's own clients see of their muted users: the whole list after each change
 * (Zulip's `muted_users` event), carried by the fact. Nobody else is told: whom one mutes
 * is private, as in Zulip.
 */
import type { FactOf } from '@teamchat/contracts';
import { same, type Delivery } from './delivery';

const mutedUsersDelivery = (fact: FactOf<'UserMuted' | 'UserUnmuted'>): Delivery[] => [
  { user_ids: [fact.user_id], eventFor: same({ type: 'muted_users', muted_users: fact.muted_users.map(({ id, timestamp }) => ({ id, timestamp })) }) },
];

export const mutedUsersFanOut = {
  UserMuted: mutedUsersDelivery,
  UserUnmuted: mutedUsersDelivery,
};
