/**
 * Facts of the organization's linkifiers (issue 17), on one stream (`realm_linkifiers`).
 * Accounts appends them; messaging keeps its own projection to render messages with the
 * list, and the fan-out announces each change with the whole list, so every fact carries
 * the list after the change and the active users who hear of it.
 */
import { z } from 'zod';
import { OrganizationAudience } from './audiences';

const int = () => z.number().int();

/** A linkifier as GET /realm/linkifiers and register list it, in the organization's order. */
export const StoredLinkifier = z.object({ id: int(), pattern: z.string(), url_template: z.string() });
export type StoredLinkifier = z.infer<typeof StoredLinkifier>;

const ListAfter = { linkifiers: z.array(StoredLinkifier), ...OrganizationAudience };

export const LinkifierAdded = z.object({ type: z.literal('LinkifierAdded'), linkifier: StoredLinkifier, ...ListAfter });
export const LinkifierUpdated = z.object({ type: z.literal('LinkifierUpdated'), linkifier: StoredLinkifier, ...ListAfter });
export const LinkifierRemoved = z.object({ type: z.literal('LinkifierRemoved'), linkifier_id: int(), ...ListAfter });
export const LinkifiersReordered = z.object({ type: z.literal('LinkifiersReordered'), ...ListAfter });

export const LINKIFIER_FACTS = [LinkifierAdded, LinkifierUpdated, LinkifierRemoved, LinkifiersReordered] as const;
