/**
 * Facts of a user's navigation views (issue 17): the views pinned to or named in their
 * left sidebar, one stream per user (`navigation_views-{user_id}`). Accounts appends
 * them; the fan-out tells the user's own clients.
 */
import { z } from 'zod';

const int = () => z.number().int();

/** A navigation view as GET /navigation_views and register list it. */
export const StoredNavigationView = z.object({ fragment: z.string(), is_pinned: z.boolean(), name: z.string().nullable() });
export type StoredNavigationView = z.infer<typeof StoredNavigationView>;

export const NavigationViewAdded = z.object({ type: z.literal('NavigationViewAdded'), user_id: int(), navigation_view: StoredNavigationView });
/** `data`: only the properties that changed, as the `navigation_view` update event carries them. */
export const NavigationViewUpdated = z.object({
  type: z.literal('NavigationViewUpdated'),
  user_id: int(),
  fragment: z.string(),
  data: z.object({ is_pinned: z.boolean().optional(), name: z.string().nullable().optional() }),
});
export const NavigationViewRemoved = z.object({ type: z.literal('NavigationViewRemoved'), user_id: int(), fragment: z.string() });

export const NAVIGATION_VIEW_FACTS = [NavigationViewAdded, NavigationViewUpdated, NavigationViewRemoved] as const;
