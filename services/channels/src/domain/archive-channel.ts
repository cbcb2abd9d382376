/** Archiving a channel: its administrators may, and everyone who saw it keeps seeing it. */
import { badRequest, type FactOf, type GroupMember } from '@teamchat/contracts';
import { evolveChannelView, metadataAudience, type GroupDirectory } from '@teamchat/policies';
import { checkAdministers, defaultChannels, seconds, type RegistryState } from './registry';

export interface ArchiveChannel {
  actor: GroupMember;
  channel_id: number;
  subscribed: boolean;
  subscriber_ids: number[];
  users: GroupMember[];
  /** The custom user groups as the channels service projects them (group-settings may name them). */
  groups: GroupDirectory;
  now: number;
}

export function decideArchiveChannel(state: RegistryState, cmd: ArchiveChannel): FactOf<'ChannelArchived'>[] {
  const now = seconds(cmd.now);
  const channel = checkAdministers(state.channels.get(cmd.channel_id), cmd.actor, cmd.subscribed, now, cmd.groups);
  if (channel.is_archived) throw badRequest('Channel is already deactivated');
  const fact: FactOf<'ChannelArchived'> = {
    type: 'ChannelArchived',
    channel_id: channel.channel_id,
    name: channel.name,
    // Everyone who saw it keeps seeing it, archived.
    audience_user_ids: metadataAudience(channel, cmd.users, new Set(cmd.subscriber_ids), now, cmd.groups),
  };
  if (channel.is_default) fact.default_channels = defaultChannels(state, [evolveChannelView(channel, fact)], cmd.users);
  return [fact];
}
