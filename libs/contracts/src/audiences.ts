/**
 * An audience named rather than listed. A fact announced to every active user used to
 * carry each of their ids: at 10,000 users every new user's fact held 10,000 ids, which
 * accounts copied to decide it and the events service walked to fan it out. A fact now
 * names the audience, and the events service resolves the name over its own queues from
 * the users as it has folded them in store order (services/events/src/projections/roster.ts),
 * so the fact and its decision cost the same at any size, and the fan-out grows with the
 * queues, not with the organization.
 *
 * Facts stored before carry `audience_user_ids` (or no audience at all) and are read as
 * they were: a fact with a list is announced to that list.
 */
import { z } from 'zod';

/**
 * `active_users`: every active user of the organization (a person's fact: and the person
 * it is about, even when that change deactivates them).
 */
export const NamedAudience = z.enum(['active_users']);
export type NamedAudience = z.infer<typeof NamedAudience>;

export const ACTIVE_USERS: NamedAudience = 'active_users';

/**
 * The audience of a fact told to the whole organization: named (`audience`) since
 * audiences were named, listed (`audience_user_ids`) in facts stored before.
 */
export const OrganizationAudience = {
  audience: NamedAudience.optional(),
  audience_user_ids: z.array(z.number().int()).optional(),
};
