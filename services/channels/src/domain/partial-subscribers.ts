/**
 * `include_subscribers: "partial"`: for a channel of at least the configured size, Zulip
 * sends `partial_subscribers` instead of `subscribers` — a subset that holds every bot
 * subscriber and every subscriber active in the last 14 days (spec, Channel table and
 * Limits). Smaller channels get their full list. Pure: who is a bot and when each user was
 * last active come from the caller.
 */
export const PARTIAL_SUBSCRIBERS_ACTIVE_DAYS = 14;

export interface PartialSubscribersRule {
  /** Channels with at least this many subscribers are listed partially. */
  minChannelSize: number;
  isBot: (userId: number) => boolean;
  /** Milliseconds since the epoch of the user's last recorded action, if any. */
  lastActive: (userId: number) => number | undefined;
  now: number;
}

/** The field a channel object takes for a client that asked for partial subscriber lists. */
export function subscribersField(subscriberIds: readonly number[], rule: PartialSubscribersRule): { subscribers: number[] } | { partial_subscribers: number[] } {
  if (subscriberIds.length < rule.minChannelSize) return { subscribers: [...subscriberIds] };
  const since = rule.now - PARTIAL_SUBSCRIBERS_ACTIVE_DAYS * 24 * 3600 * 1000;
  return { partial_subscribers: subscriberIds.filter((id) => rule.isBot(id) || (rule.lastActive(id) ?? -Infinity) >= since) };
}
