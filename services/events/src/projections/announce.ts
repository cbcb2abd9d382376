/**
 * How a feature not built yet hands its client event to the queues: it builds the event
 * to its schema and calls `announce`, and the audience table (domain/audience.ts) says
 * who gets it. For a stored fact, the fan-out case returns `announce(event, org)` with
 * what the fact recorded (its user for personal types; the organization's users as the
 * deciding service saw them otherwise, as facts carry `audience_user_ids` today), so that
 * a replay after a restart reaches the same queues and gives the same ids. `announceNow`
 * is for what is not stored (as presence), with the organization as the events service's
 * directory has it at that moment.
 */
import type { ClientEvent } from '@teamchat/contracts';
import type { UserDoc } from '@teamchat/directory';
import { recipientsOf, type AudienceUser, type Organization } from '../domain/audience';
import type { Delivery } from './delivery';

export function announce(event: ClientEvent, org: Organization): Delivery {
  return { user_ids: recipientsOf(event, org), eventFor: () => event };
}

export const audienceUserOf = (user: Pick<UserDoc, '_id' | 'role' | 'is_active' | 'bot_owner_id'>): AudienceUser => ({
  user_id: user._id,
  role: user.role,
  is_active: user.is_active,
  bot_owner_id: user.bot_owner_id,
});

export interface AnnounceDeps {
  directory: { allUsers(): Promise<Pick<UserDoc, '_id' | 'role' | 'is_active' | 'bot_owner_id'>[]> };
  deliver: (delivery: Delivery) => void;
}

export async function announceNow(
  deps: AnnounceDeps,
  event: ClientEvent,
  context: Omit<Organization, 'users'>,
): Promise<Delivery> {
  const users = (await deps.directory.allUsers()).map(audienceUserOf);
  const delivery = announce(event, { ...context, users });
  deps.deliver(delivery);
  return delivery;
}
