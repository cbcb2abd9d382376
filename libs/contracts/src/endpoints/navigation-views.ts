/** A user's navigation views and the organization's defaults for new users' settings (issue 17), served by accounts. */
import { z } from 'zod';
import { StoredNavigationView } from '../navigation-view-facts';
import { UpdateRealmUserDefaultsParams } from '../realm-user-defaults';
import { EmptyReply, endpoint, NoParams } from './contract';

export const navigationViewsEndpoints = {
  getNavigationViews: endpoint({
    service: 'accounts',
    subject: 'accounts.get_navigation_views',
    http: { method: 'GET', path: '/navigation_views' },
    auth: true,
    params: NoParams,
    reply: z.object({ navigation_views: z.array(StoredNavigationView) }),
  }),
  addNavigationView: endpoint({
    service: 'accounts',
    subject: 'accounts.add_navigation_view',
    http: { method: 'POST', path: '/navigation_views' },
    auth: true,
    params: z.object({ fragment: z.string(), is_pinned: z.boolean(), name: z.string().nullable().optional() }),
    reply: EmptyReply,
  }),
  updateNavigationView: endpoint({
    service: 'accounts',
    subject: 'accounts.update_navigation_view',
    http: { method: 'PATCH', path: '/navigation_views/{fragment}' },
    auth: true,
    params: z.object({ fragment: z.string(), is_pinned: z.boolean().optional(), name: z.string().nullable().optional() }),
    reply: EmptyReply,
  }),
  updateRealmUserDefaults: endpoint({
    service: 'accounts',
    subject: 'accounts.update_realm_user_defaults',
    http: { method: 'PATCH', path: '/realm/user_settings_defaults' },
    auth: true,
    params: UpdateRealmUserDefaultsParams,
    reply: EmptyReply,
  }),
  removeNavigationView: endpoint({
    service: 'accounts',
    subject: 'accounts.remove_navigation_view',
    http: { method: 'DELETE', path: '/navigation_views/{fragment}' },
    auth: true,
    params: z.object({ fragment: z.string() }),
    reply: EmptyReply,
  }),
};
