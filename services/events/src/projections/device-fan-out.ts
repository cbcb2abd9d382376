/** What a user's own clients see of their logged-in devices (Zulip's `device` events). */
import type { FactOf } from '@teamchat/contracts';
import { announce } from './announce';

const mine = (user_id: number) => ({ acting_user_id: user_id });

export const deviceFanOut = {
  DeviceRegistered: (fact: FactOf<'DeviceRegistered'>) => [announce({ type: 'device', op: 'add', device_id: fact.device_id }, mine(fact.user_id))],
  DevicePushRegistrationChanged: (fact: FactOf<'DevicePushRegistrationChanged'>) => [
    announce({ type: 'device', op: 'update', device_id: fact.device_id, ...fact.changes }, mine(fact.user_id)),
  ],
  DeviceRemoved: (fact: FactOf<'DeviceRemoved'>) => [announce({ type: 'device', op: 'remove', device_id: fact.device_id }, mine(fact.user_id))],
  // Zulip sends no event for push tokens: no client shows them.
  PushTokenAdded: () => [],
  PushTokenRemoved: () => [],
};
