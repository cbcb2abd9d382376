/**
 * The channel registry: one stream allocates channel ids, keeps names unique and holds
 * every channel's settings, so a rename or a settings change is decided against all
 * channels at once. What the deciders share about it lives here.
 */
import { badRequest, channelFromCreated, type ChannelView, type Fact, type GroupMember } from '@teamchat/contracts';
import { canAdministerChannel, evolveChannelView, hasContentAccess, isGuest, type GroupDirectory } from '@teamchat/policies';

export interface RegistryState {
  /** Channel id by lower-cased name. */
  byName: Map<string, number>;
  lastChannelId: number;
  channels: Map<number, ChannelView>;
}

export const initialRegistry = (): RegistryState => ({ byName: new Map(), lastChannelId: 0, channels: new Map() });

export function evolveRegistry(state: RegistryState, fact: Fact): RegistryState {
  switch (fact.type) {
    case 'ChannelCreated':
      return {
        byName: new Map(state.byName).set(fact.name.toLowerCase(), fact.channel_id),
        lastChannelId: Math.max(state.lastChannelId, fact.channel_id),
        channels: new Map(state.channels).set(fact.channel_id, channelFromCreated(fact)),
      };
    case 'ChannelUpdated':
    case 'ChannelArchived':
    case 'ChannelUnarchived': {
      const before = state.channels.get(fact.channel_id);
      if (!before) return state;
      const after = evolveChannelView(before, fact);
      const channels = new Map(state.channels).set(fact.channel_id, after);
      if (after.name === before.name) return { ...state, channels };
      const byName = new Map(state.byName);
      byName.delete(before.name.toLowerCase());
      byName.set(after.name.toLowerCase(), fact.channel_id);
      return { ...state, byName, channels };
    }
    default:
      return state;
  }
}

/** The default channels after `changed` takes its new form, and who is told of them. */
export function defaultChannels(state: RegistryState, changed: ChannelView[], users: GroupMember[]) {
  const channels = new Map(state.channels);
  for (const channel of changed) channels.set(channel.channel_id, channel);
  return {
    channel_ids: [...channels.values()].filter((c) => c.is_default && !c.is_archived).map((c) => c.channel_id).sort((a, b) => a - b),
    user_ids: users.filter((u) => !isGuest(u.role)).map((u) => u.user_id).sort((a, b) => a - b),
  };
}

/** The actor must administer the channel; others learn only whether it exists for them. */
export function checkAdministers(
  channel: ChannelView | undefined,
  actor: GroupMember,
  subscribed: boolean,
  nowSeconds: number,
  groups: GroupDirectory,
): ChannelView {
  if (channel && canAdministerChannel(channel, actor, nowSeconds, groups)) return channel;
  if (channel && hasContentAccess(channel, actor, subscribed, nowSeconds, groups)) {
    throw badRequest('You do not have permission to administer this channel.');
  }
  throw badRequest('Invalid channel ID');
}

export const seconds = (ms: number) => Math.floor(ms / 1000);
export const insufficientPermission = () => badRequest('Insufficient permission');
