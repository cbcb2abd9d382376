/**
 * Desktop notifications through the browser's Notification API, once the person allowed
 * them (settings asks). Which messages notify is the client model's notificationReason
 * (Zulip's web client's rules: DMs and mentions, per-channel settings, muted topics and
 * channels). A message the person is already looking at (the page focused, the message in
 * the feed shown) does not notify. Clicking a notification opens its conversation there.
 */
import { narrowKey, notificationReason, type Narrow, type NotifiableMessage } from '@teamchat/client-model';
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
