/**
 * The groups channels' group-settings name, from accounts' own projection of channel
 * facts (the directory): a group in use may not be deactivated. The projection may lag a
 * channel change by a moment; a group named by a setting changed in that moment escapes
 * the check, which only a transaction across the two services' streams could close.
 */
import { CHANNEL_GROUP_SETTINGS, type ChannelView } from '@teamchat/contracts';

export function channelSettingGroupIds(channels: readonly ChannelView[]): Set<number> {
  const ids = new Set<number>();
  for (const channel of channels) {
    for (const name of CHANNEL_GROUP_SETTINGS) {
      const value = channel[name];
      if (typeof value === 'number') ids.add(value);
      else for (const id of value.direct_subgroups) ids.add(id);
    }
  }
  return ids;
}
