/** Given facts / when command / then facts for the navigation view deciders. */
import { describe, it } from '@jest/globals';
import type { Fact } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  decideAddNavigationView,
  decideRemoveNavigationView,
  decideUpdateNavigationView,
  evolveNavigationViews,
  initialNavigationViews,
  type NavigationViewsState,
} from '../src/domain/navigation-views';

const spec = <C>(decide: (state: NavigationViewsState, cmd: C) => Fact[]) =>
  deciderSpec<NavigationViewsState, C>({ initial: initialNavigationViews, evolve: evolveNavigationViews, decide: (cmd, state) => decide(state, cmd) });
type Cmd = { fragment: string; is_pinned?: boolean; name?: string | null };
const add = spec<Cmd>((state, cmd) => decideAddNavigationView(state, { user_id: 4, is_pinned: true, ...cmd }));
const update = spec<Cmd>((state, cmd) => decideUpdateNavigationView(state, { user_id: 4, ...cmd }));
const remove = spec<{ fragment: string }>((state, cmd) => decideRemoveNavigationView(state, { user_id: 4, ...cmd }));

const inbox: Fact = { type: 'NavigationViewAdded', user_id: 4, navigation_view: { fragment: 'inbox', is_pinned: true, name: null } };
const custom: Fact = { type: 'NavigationViewAdded', user_id: 4, navigation_view: { fragment: 'narrow/is/alerted', is_pinned: false, name: 'Alerts' } };

describe('navigation views', () => {
  it('adds a built-in view without a name and a custom view with one', () => {
    add.given([]).when({ fragment: 'inbox' }).then([inbox]);
    add.given([inbox]).when({ fragment: 'narrow/is/alerted', is_pinned: false, name: ' Alerts ' }).then([custom]);
  });

  it('refuses a named built-in view, an unnamed custom view, a duplicate fragment or name, and an empty fragment', () => {
    add.given([]).when({ fragment: 'inbox', name: 'Mine' }).thenThrows({ code: 'BAD_REQUEST', msg: 'Built-in views cannot have a custom name.' });
    add.given([]).when({ fragment: 'narrow/is/starred' }).thenThrows({ code: 'BAD_REQUEST', msg: 'Custom views must have a valid name.' });
    add.given([]).when({ fragment: 'narrow/is/starred', name: '  ' }).thenThrows({ code: 'BAD_REQUEST' });
    add.given([inbox]).when({ fragment: 'inbox' }).thenThrows({ code: 'BAD_REQUEST', msg: 'Navigation view already exists.' });
    add.given([custom]).when({ fragment: 'narrow/x', name: 'Alerts' }).thenThrows({ code: 'BAD_REQUEST' });
    add.given([]).when({ fragment: ' ' }).thenThrows({ code: 'BAD_REQUEST' });
    add.given([]).when({ fragment: 'x'.repeat(256), name: 'n' }).thenThrows({ code: 'BAD_REQUEST' });
  });

  it('updates only what changes, and refuses unknown views and nothing to change', () => {
    update.given([custom]).when({ fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' }).then([
      { type: 'NavigationViewUpdated', user_id: 4, fragment: 'narrow/is/alerted', data: { is_pinned: true } },
    ]);
    update.given([custom]).when({ fragment: 'narrow/is/alerted', name: 'Alarms' }).then([
      { type: 'NavigationViewUpdated', user_id: 4, fragment: 'narrow/is/alerted', data: { name: 'Alarms' } },
    ]);
    update.given([custom]).when({ fragment: 'narrow/is/alerted', is_pinned: false }).then([]);
    update.given([inbox]).when({ fragment: 'inbox', name: 'x' }).thenThrows({ code: 'BAD_REQUEST' });
    update.given([]).when({ fragment: 'inbox', is_pinned: true }).thenThrows({ code: 'BAD_REQUEST', msg: 'Navigation view does not exist.' });
    update.given([inbox]).when({ fragment: 'inbox' }).thenThrows({ code: 'BAD_REQUEST' });
  });

  it('removes a view, and refuses an unknown one', () => {
    remove.given([inbox]).when({ fragment: 'inbox' }).then([{ type: 'NavigationViewRemoved', user_id: 4, fragment: 'inbox' }]);
    remove.given([]).when({ fragment: 'inbox' }).thenThrows({ code: 'BAD_REQUEST' });
  });
});
