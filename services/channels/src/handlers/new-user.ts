/**
 * Subscribing someone who just joined by invitation (the internal
 * `channels.subscribe_new_user`): the channels the invitation named, plus the default
 * channels when it asked for them. The inviter's right to add subscribers was checked when
 * inviting (as in Zulip, it is not checked again); a channel archived or gone since is
 * left out rather than failing the whole sign-up.
 */
import type { AppendResult } from '@teamchat/platform';
import { addSubscribers, organization, type CommandDeps } from './commands';

const lastPosition = (append: AppendResult | undefined) => append?.positions.at(-1);

export async function subscribeNewUser(deps: CommandDeps, params: { user_id: number; channel_ids: number[]; include_default_channels: boolean }) {
  const user = await deps.directory.userById(params.user_id);
  if (!user || !user.is_active) return { value: { channel_ids: [] } };
  const ids = new Set(params.channel_ids);
  if (params.include_default_channels) for (const channel of await deps.directory.allChannels()) if (channel.is_default) ids.add(channel.channel_id);
  const users = await organization(deps);
  const subscribed: number[] = [];
  let position: number | undefined;
  for (const id of [...ids].sort((a, b) => a - b)) {
    const channel = await deps.directory.channelViewById(id);
    if (!channel || channel.is_archived) continue;
    const { append } = await addSubscribers(deps, channel, [user._id], users);
    position = lastPosition(append) ?? position;
    subscribed.push(id);
  }
  return { value: { channel_ids: subscribed }, ...(position !== undefined ? { position } : {}) };
}
