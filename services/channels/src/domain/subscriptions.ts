/**
 * Subscribing: who may subscribe whom where (decided against the registry, creating the
 * channels a request names that do not exist yet), then each channel's own stream adds
 * its new subscribers, so subscribing to one channel never contends with another.
 */
import {
  badRequest,
  channelFromCreated,
  type ChannelView,
  type Fact,
  type FactOf,
  type GroupMember,
} from '@teamchat/contracts';
import { canAddSubscribers, hasContentAccess, isGuest, metadataAudience, type GroupDirectory, type OrganizationPolicy } from '@teamchat/policies';
import { validateChannelName } from './channel-values';
import type { FolderView } from './folders';
import { decideCreateChannels, type ChannelCreation, type NewChannel } from './create-channels';
import { seconds, type RegistryState } from './registry';

export interface SubscribeRequest {
  actor: GroupMember;
  /** Every channel the request names; descriptions matter only for those created. */
  channels: NewChannel[];
  /** The users to subscribe (the actor when the request names nobody). */
  principal_ids: number[];
  /** The channels the actor is subscribed to. */
  actor_channel_ids: ReadonlySet<number>;
  authorization_errors_fatal: boolean;
  settings: ChannelCreation;
  users: GroupMember[];
  /** The custom user groups as the channels service projects them (group-settings may name them). */
  groups: GroupDirectory;
  folders?: ReadonlyMap<number, FolderView>;
  /** The organization's settings; Zulip's defaults when absent. */
  policy?: OrganizationPolicy;
  now: number;
}

export interface SubscribePlan {
  /** The channels to subscribe to, in the order named: existing ones allowed, and those created. */
  channels: ChannelView[];
  /** Channels the actor may not access, when that is not fatal. */
  unauthorized: string[];
}

export function decideSubscribeRequest(state: RegistryState, req: SubscribeRequest): { facts: FactOf<'ChannelCreated'>[]; plan: SubscribePlan } {
  const { actor } = req;
  const now = seconds(req.now);
  if (isGuest(actor.role)) throw badRequest('Not allowed for guest users');
  const subscribingOthers = req.principal_ids.some((id) => id !== actor.user_id);

  // Each channel once, by name as the registry knows names (case-insensitively).
  const named = new Map<string, NewChannel>();
  for (const spec of req.channels) {
    const name = validateChannelName(spec.name);
    if (!named.has(name.toLowerCase())) named.set(name.toLowerCase(), { ...spec, name });
  }
  const missing = [...named.entries()].filter(([lc]) => !state.byName.has(lc)).map(([, spec]) => spec);
  const facts = missing.length
    ? decideCreateChannels(state, { actor, channels: missing, settings: req.settings, users: req.users, groups: req.groups, folders: req.folders, now: req.now, ...(req.policy ? { policy: req.policy } : {}) })
    : [];
  const created = new Map(facts.map((fact) => [fact.name.toLowerCase(), channelFromCreated(fact)]));

  const channels: ChannelView[] = [];
  const unauthorized: string[] = [];
  for (const lc of named.keys()) {
    const fresh = created.get(lc);
    if (fresh) {
      // A channel's creator may subscribe anyone to it.
      channels.push(fresh);
      continue;
    }
    const channel = state.channels.get(state.byName.get(lc)!)!;
    if (!hasContentAccess(channel, actor, req.actor_channel_ids.has(channel.channel_id), now, req.groups)) {
      unauthorized.push(channel.name);
      continue;
    }
    if (subscribingOthers && !canAddSubscribers(channel, actor, now, req.groups, req.policy)) throw badRequest('Insufficient permission');
    channels.push(channel);
  }
  if (unauthorized.length && req.authorization_errors_fatal) throw badRequest(`Unable to access channel (${unauthorized[0]}).`);
  return { facts, plan: { channels, unauthorized } };
}

/** A channel's own stream: who is subscribed, and each user's own settings for it. */
export interface ChannelState {
  subscribers: Set<number>;
  /** The settings each user changed (kept when they leave, as Zulip keeps them), by user id. */
  settings: Map<number, Readonly<Record<string, boolean | string | null>>>;
}

export const initialChannel = (): ChannelState => ({ subscribers: new Set(), settings: new Map() });

export function evolveChannel(state: ChannelState, fact: Fact): ChannelState {
  switch (fact.type) {
    case 'SubscriptionsAdded':
      return { ...state, subscribers: new Set([...state.subscribers, ...fact.user_ids]) };
    case 'SubscriptionsRemoved': {
      const subscribers = new Set(state.subscribers);
      for (const id of fact.user_ids) subscribers.delete(id);
      return { ...state, subscribers };
    }
    case 'SubscriptionPropertyUpdated': {
      const settings = new Map(state.settings);
      settings.set(fact.user_id, { ...settings.get(fact.user_id), [fact.property]: fact.value });
      return { ...state, settings };
    }
    default:
      return state;
  }
}

export interface Subscribe {
  /** The channel as the registry holds it now; whoever may subscribe was decided against it. */
  channel: ChannelView;
  user_ids: number[];
  users: GroupMember[];
  /** The custom user groups as the channels service projects them (group-settings may name them). */
  groups: GroupDirectory;
  first_message_id: number | null;
  now: number;
}

/** Of the users a request names, those the channel already has. */
export const alreadySubscribed = (state: ChannelState, userIds: number[]): number[] => userIds.filter((id) => state.subscribers.has(id));

/** Adds the users not yet subscribed, and says who must hear of it. */
export function decideSubscribe(state: ChannelState, cmd: Subscribe): FactOf<'SubscriptionsAdded'>[] {
  const added = [...new Set(cmd.user_ids)].filter((id) => !state.subscribers.has(id)).sort((a, b) => a - b);
  if (added.length === 0) return [];
  const now = seconds(cmd.now);
  const after = new Set([...state.subscribers, ...added]);
  const sawBefore = new Set(metadataAudience(cmd.channel, cmd.users, state.subscribers, now, cmd.groups));
  const addedSet = new Set(added);
  return [
    {
      type: 'SubscriptionsAdded',
      channel_id: cmd.channel.channel_id,
      user_ids: added,
      channel: cmd.channel,
      first_message_id: cmd.first_message_id,
      subscriber_ids: [...after].sort((a, b) => a - b),
      // New subscribers of a private channel, or guests joining a public one, need the
      // channel itself before their subscription.
      shown_user_ids: added.filter((id) => !sawBefore.has(id)),
      peer_user_ids: metadataAudience(cmd.channel, cmd.users, after, now, cmd.groups).filter((id) => !addedSet.has(id)),
      ...keptSettings(state, added),
    },
  ];
}

/** The settings of re-subscribed users, who get them back. */
function keptSettings(state: ChannelState, added: number[]): { properties?: Record<string, Record<string, boolean | string | null>> } {
  const kept = added.filter((id) => state.settings.has(id));
  if (kept.length === 0) return {};
  return { properties: Object.fromEntries(kept.map((id) => [String(id), { ...state.settings.get(id) }])) };
}
