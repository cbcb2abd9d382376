/**
 * A subscriber's own settings for a channel (POST /users/me/subscriptions/properties):
 * checked and brought to the form Zulip stores (`in_home_view` is the inverse of
 * `is_muted`), one fact per property that changes.
 */
import { badRequest, SUBSCRIPTION_PROPERTIES, type FactOf, type SubscriptionPropertyName } from '@teamchat/contracts';
import type { ChannelState } from './subscriptions';

export interface PropertyChange {
  channel_id: number;
  property: string;
  value: boolean | string | null;
}

const NULLABLE = new Set(['desktop_notifications', 'audible_notifications', 'push_notifications', 'email_notifications', 'wildcard_mentions_notify']);
const isProperty = (name: string): name is SubscriptionPropertyName => (SUBSCRIPTION_PROPERTIES as readonly string[]).includes(name);

/** The stored property and value a change names, or a clear refusal. */
export function storedProperty(change: PropertyChange): { property: FactOf<'SubscriptionPropertyUpdated'>['property']; value: boolean | string | null } {
  const { property, value } = change;
  if (!isProperty(property)) throw badRequest(`Unknown subscription property: ${property}`);
  if (property === 'color') {
    if (typeof value !== 'string' || !/^#([0-9a-f]{3}|[0-9a-f]{6})$/i.test(value)) throw badRequest('color is not a valid hex color code');
    return { property, value: value.toLowerCase() };
  }
  if (typeof value !== 'boolean' && !(value === null && NULLABLE.has(property))) throw badRequest(`${property} is not a boolean`);
  if (property === 'in_home_view') return { property: 'is_muted', value: !value };
  return { property, value };
}

/** The changes of one channel for one subscriber: refused unless subscribed; only real changes become facts. */
export function decideSubscriptionProperties(
  state: ChannelState,
  cmd: { user_id: number; channel_id: number; changes: PropertyChange[] },
): FactOf<'SubscriptionPropertyUpdated'>[] {
  if (!state.subscribers.has(cmd.user_id)) throw badRequest(`Not subscribed to channel ID ${cmd.channel_id}`);
  const current: Record<string, boolean | string | null> = { ...state.settings.get(cmd.user_id) };
  const facts: FactOf<'SubscriptionPropertyUpdated'>[] = [];
  for (const change of cmd.changes) {
    const { property, value } = storedProperty(change);
    if (Object.hasOwn(current, property) ? current[property] === value : isDefault(property, value)) continue;
    current[property] = value;
    facts.push({ type: 'SubscriptionPropertyUpdated', channel_id: cmd.channel_id, user_id: cmd.user_id, property, value });
  }
  return facts;
}

/** Setting a property to its default, never changed before, changes nothing (the color has no fixed default). */
function isDefault(property: string, value: boolean | string | null): boolean {
  if (property === 'is_muted' || property === 'pin_to_top') return value === false;
  return property !== 'color' && value === null;
}
