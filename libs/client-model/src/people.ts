/**
 * The people rules a client decides from its state alone: a person's presence as Zulip's
 * clients read the modern presence format, what a page reports of itself, and whether a
 * new message calls for a desktop notification.
 */
import type { State } from './reducer';
import { isTopicMuted } from './unreads';

export type PresenceStatus = 'active' | 'idle' | 'offline';

export interface RawPresence {
  active_timestamp?: number;
  idle_timestamp?: number;
}

/** Zulip's idle timeout: no input for this long, and a focused page counts as idle. */
export const IDLE_AFTER_MS = 5 * 60 * 1000;

/**
 * A person's status at `nowSeconds` (the server's clock): active if last active within the
 * offline threshold (`server_presence_offline_threshold_seconds`), else idle if they
 * reported idle within it, else offline.
 */
export function presenceStatus(raw: RawPresence | undefined, nowSeconds: number, offlineSeconds: number): PresenceStatus {
  if (!raw) return 'offline';
  if (raw.active_timestamp !== undefined && nowSeconds - raw.active_timestamp < offlineSeconds) return 'active';
  if (raw.idle_timestamp !== undefined && nowSeconds - raw.idle_timestamp < offlineSeconds) return 'idle';
  return 'offline';
}

/** What a page reports of its person: active only when seen and used recently. */
export function ownPresence(page: { visible: boolean; focused: boolean; msSinceInput: number }): 'active' | 'idle' {
  return page.visible && page.focused && page.msSinceInput < IDLE_AFTER_MS ? 'active' : 'idle';
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

export type NotificationReason = 'direct message' | 'mention' | 'wildcard mention' | 'followed topic' | 'channel';

interface Subscription {
  stream_id: number;
  desktop_notifications?: boolean | null;
  wildcard_mentions_notify?: boolean | null;
}

const FOLLOWED = 3;

/**
 * Why a new message calls for a desktop notification, or undefined, as Zulip's web client
 * decides: never one's own nor a muted person's; a direct message, and a mention of
 * oneself (or a group one is in), with `enable_desktop_notifications`, such a mention even
 * in a muted topic or channel; otherwise nothing from a muted topic or channel; an
 * @all/@topic mention with `wildcard_mentions_notify` too (the channel's, else the
 * person's); a followed topic with `enable_followed_topic_desktop_notifications`; any
 * channel message with the channel's `desktop_notifications` (null: the person's
 * `enable_stream_desktop_notifications`).
 */
export function notificationReason(state: State, message: NotifiableMessage, flags: readonly string[], self: number): NotificationReason | undefined {
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
