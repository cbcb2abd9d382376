/**
 * The requests of the topic and channel screens and of administration, and what the
 * registration says a person may do. The offers only decide what is shown: the server
 * still decides, and its refusal is shown in words beside the control that asked.
 */
import type { FeedMessage } from '@teamchat/client-model';
import { json, postForm } from './api';
import { inGroup } from './message-api';
import type { ClientStore } from './store';

/** Zulip's topic visibility policies. */
export const VISIBILITY = { inherit: 0, muted: 1, unmuted: 2, followed: 3 } as const;

export const ROLES: { value: number; label: string }[] = [
  { value: 100, label: 'Owner' },
  { value: 200, label: 'Administrator' },
  { value: 300, label: 'Moderator' },
  { value: 400, label: 'Member' },
  { value: 600, label: 'Guest' },
];
export const roleName = (role: number | undefined) => ROLES.find((r) => r.value === role)?.label ?? 'Member';

/** A subscription's settings a person changes for themselves (POST /users/me/subscriptions/properties). */
export type SubscriptionProperty = 'color' | 'is_muted' | 'pin_to_top' | 'desktop_notifications' | 'audible_notifications' | 'push_notifications' | 'email_notifications' | 'wildcard_mentions_notify';

export interface ChannelInfo {
  stream_id: number;
  name: string;
  description: string;
  invite_only: boolean;
  is_archived?: boolean;
  subscriber_count?: number;
}

export const channelApi = {
  setTopicVisibility: (streamId: number, topic: string, policy: number) => json<unknown>('POST', '/user_topics', { stream_id: streamId, topic, visibility_policy: policy }),
  setProperty: (streamId: number, property: SubscriptionProperty, value: unknown) =>
    json<unknown>('POST', '/users/me/subscriptions/properties', { subscription_data: [{ stream_id: streamId, property, value }] }),
  subscribe: (names: string[], extra: Record<string, unknown> = {}) => json<{ subscribed: Record<string, string[]>; already_subscribed: Record<string, string[]> }>('POST', '/users/me/subscriptions', { subscriptions: names.map((name) => ({ name })), ...extra }),
  create: (name: string, description: string, inviteOnly: boolean) => json<unknown>('POST', '/users/me/subscriptions', { subscriptions: [{ name, description }], invite_only: inviteOnly }),
  subscribeOthers: (name: string, userIds: number[]) => json<unknown>('POST', '/users/me/subscriptions', { subscriptions: [{ name }], principals: userIds }),
  leave: (name: string) => json<unknown>('DELETE', '/users/me/subscriptions', { subscriptions: [name] }),
  allChannels: () => json<{ streams: ChannelInfo[] }>('GET', '/streams', { include_public: true, include_subscribed: true }),
  update: (streamId: number, change: { new_name?: string; description?: string }) => json<unknown>('PATCH', `/streams/${streamId}`, change),
  archive: (streamId: number) => json<unknown>('DELETE', `/streams/${streamId}`),
};

export const adminApi = {
  invite: (emails: string, role: number, streamIds: number[], expiresMinutes: number | null) =>
    json<unknown>('POST', '/invites', { invitee_emails: emails, invite_as: role, stream_ids: streamIds, invite_expires_in_minutes: expiresMinutes }),
  inviteLink: (role: number, streamIds: number[], expiresMinutes: number | null) =>
    json<{ invite_link: string }>('POST', '/invites/multiuse', { invite_as: role, stream_ids: streamIds, invite_expires_in_minutes: expiresMinutes }),
  invites: () => json<{ invites: Invitation[] }>('GET', '/invites'),
  revoke: (invite: Invitation) => json<unknown>('DELETE', invite.is_multiuse ? `/invites/multiuse/${invite.id}` : `/invites/${invite.id}`),
  setRole: (userId: number, role: number) => json<unknown>('PATCH', `/users/${userId}`, { role }),
  deactivate: (userId: number) => json<unknown>('DELETE', `/users/${userId}`),
  reactivate: (userId: number) => json<unknown>('POST', `/users/${userId}/reactivate`),
  addDomain: (domain: string, allowSubdomains: boolean) => json<unknown>('POST', '/realm/domains', { domain, allow_subdomains: allowSubdomains }),
  setDomain: (domain: string, allowSubdomains: boolean) => json<unknown>('PATCH', `/realm/domains/${encodeURIComponent(domain)}`, { allow_subdomains: allowSubdomains }),
  removeDomain: (domain: string) => json<unknown>('DELETE', `/realm/domains/${encodeURIComponent(domain)}`),
  addEmoji: (name: string, file: File) => {
    const form = new FormData();
    form.set('file', file, file.name);
    return postForm<unknown>(`/json/realm/emoji/${encodeURIComponent(name)}`, form);
  },
  removeEmoji: (name: string) => json<unknown>('DELETE', `/realm/emoji/${encodeURIComponent(name)}`),
  addLinkifier: (pattern: string, urlTemplate: string) => json<{ id: number }>('POST', '/realm/filters', { pattern, url_template: urlTemplate }),
  removeLinkifier: (id: number) => json<unknown>('DELETE', `/realm/filters/${id}`),
  addPlayground: (name: string, language: string, urlTemplate: string) => json<{ id: number }>('POST', '/realm/playgrounds', { name, lexer_language: language, url_template: urlTemplate }),
  removePlayground: (id: number) => json<unknown>('DELETE', `/realm/playgrounds/${id}`),
  updateRealm: (change: Record<string, unknown>) => json<unknown>('PATCH', '/realm', change),
};

export interface Invitation {
  id: number;
  invited_by_user_id: number;
  invited: number;
  expiry_date: number | null;
  email?: string;
  invited_as: number;
  is_multiuse: boolean;
  stream_ids: number[];
  link_url?: string;
}

/** The topic's own policy (not the channel's): 0 when none is set. */
export function topicPolicy(store: ClientStore, streamId: number, topic: string): number {
  const lower = topic.toLowerCase();
  return ((store.state.user_topics ?? []) as { stream_id: number; topic_name: string; visibility_policy: number }[]).find((t) => t.stream_id === streamId && t.topic_name.toLowerCase() === lower)?.visibility_policy ?? 0;
}

export const topicMuted = (store: ClientStore, streamId: number, topic: string) => store.topicMuted(streamId, topic);

/**
 * The combined feed without muted topics and muted channels' messages, as Zulip's. The
 * same array when nothing is muted (no copy on every render of a busy feed).
 */
export function withoutMuted(store: ClientStore, messages: FeedMessage[]): FeedMessage[] {
  const anyMuted = ((store.state.user_topics ?? []) as { visibility_policy: number }[]).some((t) => t.visibility_policy === VISIBILITY.muted) || store.channels.some((c) => c.is_muted);
  if (!anyMuted) return messages;
  return messages.filter((m) => m.type !== 'stream' || !store.topicMuted(m.stream_id!, m.subject));
}

/** The person's role, kept current by the reducer (realm_user events). */
export function roleOf(store: ClientStore): number {
  const own = store.state.role as number | undefined;
  return own ?? (store.users.get(store.self) as { role?: number } | undefined)?.role ?? 400;
}

export interface AdminRights {
  invite: boolean;
  inviteLink: boolean;
  createChannel: boolean;
  manageChannels: boolean;
  subscribeOthers: boolean;
  users: boolean;
  domains: boolean;
  emoji: boolean;
  linkifiers: boolean;
  playgrounds: boolean;
  organization: boolean;
  owner: boolean;
}

/**
 * What the administration screen offers: the organization's group settings where it has
 * one (invitations, channel creation, subscribing others, custom emoji), administrators
 * otherwise, as Zulip's server checks them.
 */
export function adminRights(store: ClientStore): AdminRights {
  const s = store.state;
  const role = roleOf(store);
  const admin = role <= 200;
  const guest = role === 600;
  const group = (value: unknown) => !guest && inGroup(store, value);
  return {
    invite: admin || group(s.realm_can_invite_users_group),
    inviteLink: admin || group(s.realm_create_multiuse_invite_group),
    createChannel: admin || group(s.realm_can_create_public_channel_group) || group(s.realm_can_create_private_channel_group),
    manageChannels: admin,
    subscribeOthers: admin || group(s.realm_can_add_subscribers_group),
    users: admin,
    // Owners only, as the server checks (the allowed domains decide who may join).
    domains: role === 100,
    emoji: admin || group(s.realm_can_add_custom_emoji_group),
    linkifiers: admin,
    playgrounds: admin,
    organization: admin,
    owner: role === 100,
  };
}

export const anyAdminRight = (rights: AdminRights) => Object.entries(rights).some(([key, value]) => key !== 'owner' && value);
