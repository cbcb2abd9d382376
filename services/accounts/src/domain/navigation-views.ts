/**
 * Navigation views (issue 17): which views a user pins to their left sidebar, and the
 * names of their own views. A built-in view (Zulip's inbox, recent conversations, …) has
 * no custom name; any other fragment is a custom view and needs one. Pure.
 */
import { badRequest, type Fact, type StoredNavigationView } from '@teamchat/contracts';
import { codePointLength } from '@teamchat/policies';
import { hasNullByte } from './user-data';

/** Zulip's built-in views, by the fragment that opens them. */
export const BUILT_IN_VIEW_FRAGMENTS: readonly string[] = ['inbox', 'recent', 'feed', 'drafts', 'reactions', 'mentions', 'starred', 'scheduled', 'reminders', 'subscriptions', 'channels', 'topics'];
/** Zulip's NavigationView column limits. */
export const MAX_NAVIGATION_VIEW_NAME_LENGTH = 100;
export const MAX_FRAGMENT_LENGTH = 255;

export interface NavigationViewsState {
  views: ReadonlyMap<string, StoredNavigationView>;
}

export const initialNavigationViews = (): NavigationViewsState => ({ views: new Map() });

export function evolveNavigationViews(state: NavigationViewsState, fact: Fact): NavigationViewsState {
  const views = new Map(state.views);
  switch (fact.type) {
    case 'NavigationViewAdded':
      views.set(fact.navigation_view.fragment, fact.navigation_view);
      return { views };
    case 'NavigationViewUpdated': {
      const current = views.get(fact.fragment);
      if (current) views.set(fact.fragment, { ...current, ...fact.data });
      return { views };
    }
    case 'NavigationViewRemoved':
      views.delete(fact.fragment);
      return { views };
    default:
      return state;
  }
}

function checkName(fragment: string, name: string | null | undefined): string | null {
  const builtIn = BUILT_IN_VIEW_FRAGMENTS.includes(fragment);
  if (builtIn) {
    if (name !== null && name !== undefined) throw badRequest('Built-in views cannot have a custom name.');
    return null;
  }
  const trimmed = name?.trim() ?? '';
  if (trimmed.length === 0) throw badRequest('Custom views must have a valid name.');
  if (hasNullByte(trimmed)) throw badRequest('Name must not contain null bytes');
  if (codePointLength(trimmed) > MAX_NAVIGATION_VIEW_NAME_LENGTH) throw badRequest(`Name is too long (limit: ${MAX_NAVIGATION_VIEW_NAME_LENGTH} characters)`);
  return trimmed;
}

function mustBeUniqueName(state: NavigationViewsState, name: string | null, fragment: string): void {
  if (name === null) return;
  for (const view of state.views.values()) {
    if (view.fragment !== fragment && view.name === name) throw badRequest('Navigation view already exists.');
  }
}

export function decideAddNavigationView(
  state: NavigationViewsState,
  cmd: { user_id: number; fragment: string; is_pinned: boolean; name?: string | null | undefined },
): Fact[] {
  const fragment = cmd.fragment.trim();
  if (fragment.length === 0) throw badRequest('Fragment cannot be empty.');
  if (hasNullByte(fragment)) throw badRequest('Fragment must not contain null bytes');
  if (codePointLength(fragment) > MAX_FRAGMENT_LENGTH) throw badRequest(`Fragment is too long (limit: ${MAX_FRAGMENT_LENGTH} characters)`);
  if (state.views.has(fragment)) throw badRequest('Navigation view already exists.');
  const name = checkName(fragment, cmd.name);
  mustBeUniqueName(state, name, fragment);
  return [{ type: 'NavigationViewAdded', user_id: cmd.user_id, navigation_view: { fragment, is_pinned: cmd.is_pinned, name } }];
}

export function decideUpdateNavigationView(
  state: NavigationViewsState,
  cmd: { user_id: number; fragment: string; is_pinned?: boolean | undefined; name?: string | null | undefined },
): Fact[] {
  const current = state.views.get(cmd.fragment);
  if (!current) throw badRequest('Navigation view does not exist.');
  if (cmd.is_pinned === undefined && cmd.name === undefined) throw badRequest('At least one of is_pinned or name must be given.');
  const data: { is_pinned?: boolean; name?: string | null } = {};
  if (cmd.is_pinned !== undefined && cmd.is_pinned !== current.is_pinned) data.is_pinned = cmd.is_pinned;
  if (cmd.name !== undefined) {
    const name = checkName(current.fragment, cmd.name);
    mustBeUniqueName(state, name, current.fragment);
    if (name !== current.name) data.name = name;
  }
  if (Object.keys(data).length === 0) return [];
  return [{ type: 'NavigationViewUpdated', user_id: cmd.user_id, fragment: current.fragment, data }];
}

export function decideRemoveNavigationView(state: NavigationViewsState, cmd: { user_id: number; fragment: string }): Fact[] {
  if (!state.views.has(cmd.fragment)) throw badRequest('Navigation view does not exist.');
  return [{ type: 'NavigationViewRemoved', user_id: cmd.user_id, fragment: cmd.fragment }];
}
