/**
 * Desktop notifications through the browser's Notification API, once the person allowed
 * them (settings asks). Which messages notify is decided as Zulip's web client decides:
 *
 * - never one's own, nor a muted person's;
 * - a direct message, and a mention of oneself (or of a group one is in), when
 *   `enable_desktop_notifications` is on; such a mention notifies even in a muted topic or
 *   channel (it is addressed to the person), but an @all/@topic mention does not, and it
 *   also needs `wildcard_mentions_notify` (the channel's own setting, else the person's);
 * - otherwise nothing from a muted topic or channel; a followed topic notifies with
 *   `enable_followed_topic_desktop_notifications`; any other channel message with the
 *   channel's `desktop_notifications` (null: the person's `enable_stream_desktop_notifications`).
 *
 * A message the person is already looking at (the page focused, the message in the feed
 * shown) does not notify. Clicking a notification opens its conversation at the message.
 */
import { isTopicMuted, narrowKey, type Narrow, type State } from '@teamchat/client-model';
import { hrefOf, parseLocation } from './links';
import type { ClientStore } from './store';

export type Permission = NotificationPermission | 'unsupported';

export function notificationPermission(): Permission {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

export async function requestNotificationPermission(): Promise<Permission> {
  if (typeof Notification === 'undefined') return 'unsupported';
  try {
    return await Notification.requestPermission();
  } catch {
    return Notification.permission;
  }
}

export interface NotifiableMessage {
  id: number;
  type: string;
  sender_id: number;
  sender_full_name: string;
  stream_id?: number;
  subject: string;
  content: string;
  display_recipient: unknown;
}

export type Reason = 'direct message' | 'mention' | 'wildcard mention' | 'followed topic' | 'channel';

interface Subscription {
  stream_id: number;
  name: string;
  desktop_notifications?: boolean | null;
  wildcard_mentions_notify?: boolean | null;
}

const FOLLOWED = 3;

/** Why a message notifies, or undefined when it does not (the rules above). Pure: the state and the message only. */
export function notificationReason(state: State, message: NotifiableMessage, flags: readonly string[], self: number): Reason | undefined {
  if (message.sender_id === self) return undefined;
  if (((state.muted_users ?? []) as { id: number }[]).some((m) => m.id === message.sender_id)) return undefined;
  const settings = (state.user_settings ?? {}) as Record<string, unknown>;
  const forPeople = settings.enable_desktop_notifications === true;
  if (message.type === 'private') return forPeople ? 'direct message' : undefined;
  const streamId = message.stream_id!;
  if (flags.includes('mentioned') && forPeople) return 'mention';
  if (isTopicMuted(state, streamId, message.subject)) return undefined;
  const sub = ((state.subscriptions ?? []) as Subscription[]).find((s) => s.stream_id === streamId);
  const wildcard = flags.includes('stream_wildcard_mentioned') || flags.includes('topic_wildcard_mentioned') || flags.includes('wildcard_mentioned');
  if (wildcard && forPeople && (sub?.wildcard_mentions_notify ?? settings.wildcard_mentions_notify) === true) return 'wildcard mention';
  const policy = ((state.user_topics ?? []) as { stream_id: number; topic_name: string; visibility_policy: number }[]).find(
    (t) => t.stream_id === streamId && t.topic_name.toLowerCase() === message.subject.toLowerCase(),
  )?.visibility_policy;
  if (policy === FOLLOWED && settings.enable_followed_topic_desktop_notifications === true) return 'followed topic';
  if ((sub?.desktop_notifications ?? settings.enable_stream_desktop_notifications) === true) return 'channel';
  return undefined;
}

function textOf(html: string): string {
  const text = new DOMParser().parseFromString(html, 'text/html').body.textContent ?? '';
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 300 ? `${flat.slice(0, 299)}…` : flat;
}

/** The conversation a message belongs to, as a narrow. */
function narrowOf(message: NotifiableMessage, self: number): Narrow {
  if (message.type === 'stream') return { kind: 'topic', streamId: message.stream_id!, topic: message.subject };
  const ids = (Array.isArray(message.display_recipient) ? (message.display_recipient as { id: number }[]) : []).map((u) => u.id).filter((id) => id !== self);
  return { kind: 'dm', userIds: ids.sort((a, b) => a - b) };
}

/** Follows the store's message events and shows the notifications the rules call for. */
export function startDesktopNotifications(store: ClientStore): () => void {
  return store.onEvent((event) => {
    if (event.type !== 'message' || notificationPermission() !== 'granted') return;
    const { message, flags } = event as unknown as { message: NotifiableMessage; flags?: string[] };
    const reason = notificationReason(store.state, message, flags ?? [], store.self);
    if (!reason) return;
    // Already in front of the person: the feed on screen holds it.
    const shown = parseLocation(location.hash).narrow;
    if (document.visibilityState === 'visible' && document.hasFocus() && store.lists.get(narrowKey(shown))?.messages.some((m) => m.id === message.id)) return;
    const settings = (store.state.user_settings ?? {}) as Record<string, unknown>;
    const channel = message.type === 'stream' ? (store.channel(message.stream_id!)?.name ?? 'a channel') : undefined;
    const title = channel ? `${message.sender_full_name} (#${channel} › ${message.subject})` : message.sender_full_name;
    const body = message.type === 'private' && settings.pm_content_in_desktop_notifications === false ? `New direct message from ${message.sender_full_name}` : textOf(message.content);
    const narrow = narrowOf(message, store.self);
    try {
      const notification = new Notification(title, { body, tag: narrowKey(narrow), data: { message_id: message.id, reason } });
      notification.onclick = () => {
        window.focus();
        location.hash = `${hrefOf(narrow)}/near/${message.id}`;
        notification.close();
      };
    } catch (e) {
      // Some browsers allow notifications from a service worker only: nothing to show then.
      console.warn('notification not shown', e);
    }
  });
}
