/**
 * Leaving channels (DELETE /users/me/subscriptions): which named channels the actor may
 * act on, decided against the registry, then each channel's own stream removes its
 * subscribers and says who must hear of it.
 */
import { badRequest, type ChannelView, type FactOf, type GroupMember } from '@teamchat/contracts';
import { canAdministerChannel, hasChannelPermission, hasMetadataAccess, metadataAudience, type GroupDirectory } from '@teamchat/policies';
import { insufficientPermission, seconds, type RegistryState } from './registry';
import type { ChannelState } from './subscriptions';

export interface UnsubscribeRequest {
  actor: GroupMember;
  /** The channel names the request gives. */
  names: string[];
  /** The users to remove (the actor when the request names nobody). */
  principal_ids: number[];
  /** The channels the actor is subscribed to. */
  actor_channel_ids: ReadonlySet<number>;
  /** The custom user groups as the channels service projects them (group-settings may name them). */
  groups: GroupDirectory;
  now: number;
}

/**
 * The channels to act on, each once. A channel the actor may not see reads as missing,
 * so that a private channel's name is not revealed; removing anyone else needs the
 * channel's can_remove_subscribers_group (organization administrators always may).
 */
export function decideUnsubscribeRequest(state: RegistryState, req: UnsubscribeRequest): ChannelView[] {
  const now = seconds(req.now);
  const channels = new Map<number, ChannelView>();
  const missing: string[] = [];
  for (const raw of req.names) {
    const id = state.byName.get(raw.trim().toLowerCase());
    const channel = id === undefined ? undefined : state.channels.get(id);
    if (!channel || !hasMetadataAccess(channel, req.actor, req.actor_channel_ids.has(channel.channel_id), now, req.groups)) {
      missing.push(raw);
      continue;
    }
    channels.set(channel.channel_id, channel);
  }
  if (missing.length) throw badRequest(`Channel(s) (${missing.join(', ')}) do not exist`);
  const removingOthers = req.principal_ids.some((id) => id !== req.actor.user_id);
  if (removingOthers) {
    for (const channel of channels.values()) {
      if (!canAdministerChannel(channel, req.actor, now, req.groups) && !hasChannelPermission(channel, 'can_remove_subscribers_group', req.actor, now, req.groups)) {
        throw insufficientPermission();
      }
    }
  }
  return [...channels.values()];
}

export interface Unsubscribe {
  channel: ChannelView;
  user_ids: number[];
  users: GroupMember[];
  /** The custom user groups as the channels service projects them (group-settings may name them). */
  groups: GroupDirectory;
  now: number;
}

/** Removes the users who are subscribed, telling them, the channel's other viewers, and whoever no longer sees it. */
export function decideUnsubscribe(state: ChannelState, cmd: Unsubscribe): FactOf<'SubscriptionsRemoved'>[] {
  const removed = [...new Set(cmd.user_ids)].filter((id) => state.subscribers.has(id)).sort((a, b) => a - b);
  if (removed.length === 0) return [];
  const now = seconds(cmd.now);
  const after = new Set(state.subscribers);
  for (const id of removed) after.delete(id);
  const seeing = new Set(metadataAudience(cmd.channel, cmd.users, after, now, cmd.groups));
  const removedSet = new Set(removed);
  const hidden = removed.filter((id) => !seeing.has(id));
  return [
    {
      type: 'SubscriptionsRemoved',
      channel_id: cmd.channel.channel_id,
      user_ids: removed,
      name: cmd.channel.name,
      peer_user_ids: [...seeing].filter((id) => !removedSet.has(id)).sort((a, b) => a - b),
      ...(hidden.length ? { hidden_user_ids: hidden } : {}),
    },
  ];
}
