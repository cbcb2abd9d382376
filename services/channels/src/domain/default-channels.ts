/**
 * Default channels (POST and DELETE /default_streams): organization administrators add
 * or remove a channel, told to every non-guest as the new list of default channels.
 */
import { badRequest, type FactOf, type GroupMember } from '@teamchat/contracts';
import { evolveChannelView, hasMetadataAccess, isAdministrator, metadataAudience, type GroupDirectory } from '@teamchat/policies';
import { defaultChannels, seconds, type RegistryState } from './registry';

export interface SetDefaultChannel {
  actor: GroupMember;
  channel_id: number;
  is_default: boolean;
  subscribed: boolean;
  subscriber_ids: number[];
  users: GroupMember[];
  /** The custom user groups as the channels service projects them (group-settings may name them). */
  groups: GroupDirectory;
  now: number;
}

export function decideDefaultChannel(state: RegistryState, cmd: SetDefaultChannel): FactOf<'ChannelUpdated'>[] {
  const now = seconds(cmd.now);
  if (!isAdministrator(cmd.actor.role)) throw badRequest('Must be an organization administrator');
  const channel = state.channels.get(cmd.channel_id);
  if (!channel || !hasMetadataAccess(channel, cmd.actor, cmd.subscribed, now, cmd.groups)) throw badRequest('Invalid channel ID');
  if (cmd.is_default) {
    if (channel.invite_only) throw badRequest('Private channels cannot be made default.');
    if (channel.is_archived) throw badRequest('Archived channels cannot be made default.');
  }
  if (channel.is_default === cmd.is_default) return [];
  const fact: FactOf<'ChannelUpdated'> = {
    type: 'ChannelUpdated',
    channel_id: channel.channel_id,
    name: channel.name,
    change: { property: 'is_default', value: cmd.is_default },
    audience_user_ids: metadataAudience(channel, cmd.users, new Set(cmd.subscriber_ids), now, cmd.groups),
  };
  fact.default_channels = defaultChannels(state, [evolveChannelView(channel, fact)], cmd.users);
  return [fact];
}
