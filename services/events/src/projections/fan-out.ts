/**
 * Which client events a stored fact becomes, and for whom: the one place that decides
 * who may see a fact. Facts carry their audience (computed by the service that decided
 * them, from who may see the message); the events service applies the result to the
 * queues of exactly those users.
 */
import { Fact, type FactOf, type FactType } from '@teamchat/contracts';
import { factOf, type FactHandlers, type StoredFact } from '@teamchat/platform';
import type { Delivery } from './delivery';
import { orgFanOut } from './org-fan-out';
import { linkifierFanOut } from './linkifier-fan-out';
import { navigationViewFanOut } from './navigation-view-fan-out';
import { deviceFanOut } from './device-fan-out';
import { toolsFanOut } from './tools-fan-out';
import { scheduledFanOut } from './scheduled-fan-out';
import { uploadsFanOut } from './uploads-fan-out';
import { settingsFanOut } from './settings-fan-out';
import { inviteFanOut } from './invite-fan-out';
import { channelFanOut } from './channel-fan-out';
import { messageFanOut } from './message-fan-out';
import { userGroupFanOut } from './user-group-fan-out';
import { mutedUsersFanOut } from './muted-users-fan-out';
import { peopleFanOutCases, type FanOutContext } from './people-fan-out';

export type { FanOutContext };

export type { Delivery };

/** A fact type that clients are not told of. */
const NO_CLIENT_EVENT = null;

type FanOutCase<T extends FactType> = ((fact: FactOf<T>, stored: StoredFact, ctx: FanOutContext) => Delivery[]) | typeof NO_CLIENT_EVENT;

/**
 * Every fact type, with what clients see of it: a new fact type fails the build here
 * until someone decides whether and how it is announced.
 */
const fanOut = {
  ...peopleFanOutCases,
  ...channelFanOut,
  ...messageFanOut,
  ...userGroupFanOut,
  ...toolsFanOut,
  ...linkifierFanOut,
  ...navigationViewFanOut,
  ...deviceFanOut,
  ...uploadsFanOut,
  ...settingsFanOut,
  ...inviteFanOut,
  ...orgFanOut,
  ...scheduledFanOut,
  ...mutedUsersFanOut,
  // Web sessions: no client is told of a login or logout (as Zulip).
  SessionStarted: NO_CLIENT_EVENT,
  SessionEnded: NO_CLIENT_EVENT,
} satisfies { [T in FactType]: FanOutCase<T> };

/**
 * Who gets which event for a stored fact. Facts are checked against their schema here,
 * as this is where they leave the system: one that does not match becomes no event.
 */
export function deliveriesFor(stored: StoredFact, ctx: FanOutContext): Delivery[] {
  return deliveriesOf(factOf(stored), stored, ctx);
}

function deliveriesOf(fact: Fact, stored: StoredFact, ctx: FanOutContext): Delivery[] {
  const parsed = Fact.safeParse(fact);
  if (!parsed.success) return [];
  const deliveries = fanOut[parsed.data.type] as FanOutCase<FactType>;
  return deliveries ? deliveries(parsed.data, stored, ctx) : [];
}

/**
 * The events projection: each fact announced is handed to `deliver`, delivery by delivery,
 * with its store position: queues derive their event ids from it, and a new queue leaves
 * out what its initial state already holds.
 */
export function fanOutHandlers(deliver: (delivery: Delivery, position: number) => void, ctx: FanOutContext): FactHandlers {
  const announce = (fact: Fact, stored: StoredFact) => {
    for (const delivery of deliveriesOf(fact, stored, ctx)) deliver(delivery, stored.position);
  };
  const announced = (Object.keys(fanOut) as FactType[]).filter((type) => fanOut[type] !== NO_CLIENT_EVENT);
  return Object.fromEntries(announced.map((type) => [type, announce]));
}
