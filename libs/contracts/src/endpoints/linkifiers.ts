/**
 * Linkifiers (issue 17), served by accounts: the organization's patterns that the
 * markdown renderer turns into links. Zulip's paths: the list is /realm/linkifiers, a
 * single linkifier is still addressed under its old name /realm/filters.
 */
import { z } from 'zod';
import { StoredLinkifier } from '../linkifier-facts';
import { EmptyReply, endpoint, NoParams } from './contract';

const int = () => z.number().int();

export const linkifiersEndpoints = {
  getLinkifiers: endpoint({
    service: 'accounts',
    subject: 'accounts.get_linkifiers',
    http: { method: 'GET', path: '/realm/linkifiers' },
    auth: true,
    params: NoParams,
    reply: z.object({ linkifiers: z.array(StoredLinkifier) }),
  }),
  addLinkifier: endpoint({
    service: 'accounts',
    subject: 'accounts.add_linkifier',
    http: { method: 'POST', path: '/realm/filters' },
    auth: true,
    params: z.object({ pattern: z.string(), url_template: z.string() }),
    reply: z.object({ id: int() }),
  }),
  updateLinkifier: endpoint({
    service: 'accounts',
    subject: 'accounts.update_linkifier',
    http: { method: 'PATCH', path: '/realm/filters/{filter_id}' },
    auth: true,
    params: z.object({ filter_id: int(), pattern: z.string(), url_template: z.string() }),
    reply: EmptyReply,
  }),
  removeLinkifier: endpoint({
    service: 'accounts',
    subject: 'accounts.remove_linkifier',
    http: { method: 'DELETE', path: '/realm/filters/{filter_id}' },
    auth: true,
    params: z.object({ filter_id: int() }),
    reply: EmptyReply,
  }),
  reorderLinkifiers: endpoint({
    service: 'accounts',
    subject: 'accounts.reorder_linkifiers',
    http: { method: 'PATCH', path: '/realm/linkifiers' },
    auth: true,
    params: z.object({ ordered_linkifier_ids: z.array(int()) }),
    reply: EmptyReply,
  }),
};
