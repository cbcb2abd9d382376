/**
 * Who may see a message, the one rule every message endpoint applies: a user sees what
 * they received (in their personal history: projections/personal-state.ts), and channel history they may read —
 * public channels whose history is shared (not for guests unless subscribed), or
 * channels they are subscribed to whose history is shared.
 */
import { badRequest, type Actor } from '@teamchat/contracts';
import type { ChannelDoc, Directory } from '@teamchat/directory';
import { channelAccess, type ChannelAccess } from '@teamchat/policies';
import type { MessageDoc } from '../projections/message-docs';
import type { MessagesReadModel } from '../projections/messages';

export interface AccessDeps {
  directory: Directory;
  model: MessagesReadModel;
}

export const invalidMessages = () => badRequest('Invalid message(s)');

/** The actor's access to a channel (see domain/channel-access.ts), with what it reads loaded. */
export async function channelAccessOf(
  directory: Pick<Directory, 'isSubscribed'>,
  actor: Actor,
  channel: ChannelDoc | undefined,
): Promise<ChannelAccess> {
  const subscribed = channel ? await directory.isSubscribed(channel._id, actor.user_id) : false;
  return channelAccess(channel, { role: actor.role, subscribed });
}

export async function canReadChannelHistory(deps: AccessDeps, actor: Actor, channelId: number): Promise<boolean> {
  return (await channelAccessOf(deps.directory, actor, await deps.directory.channelById(channelId))).readHistory;
}

export async function accessibleMessage(
  deps: AccessDeps,
  actor: Actor,
  messageId: number,
): Promise<{ message: MessageDoc; flags: readonly string[] | undefined }> {
  const message = await deps.model.messages.get(messageId);
  if (!message) throw invalidMessages();
  // The requester's flags when they hold the message (personal-state.ts).
  const flags = await deps.model.personal.flagsOf(actor.user_id, message);
  if (flags) return { message, flags };
  if (message.channel_id !== null && (await canReadChannelHistory(deps, actor, message.channel_id))) {
    return { message, flags: undefined };
  }
  throw invalidMessages();
}

/**
 * Everyone a change to these messages must reach: whoever holds them in their history,
 * and the subscribers of the channels they are in (who may read them from history).
 */
export async function audienceOf(deps: AccessDeps, messages: MessageDoc[], extraChannelIds: number[] = []): Promise<number[]> {
  const users = new Set<number>();
  for (const message of messages) {
    for (const userId of (await deps.model.personal.holders(message)).keys()) users.add(userId);
  }
  const channelIds = new Set([...messages.flatMap((m) => (m.channel_id === null ? [] : [m.channel_id])), ...extraChannelIds]);
  for (const channelId of channelIds) {
    const channel = await deps.directory.channelById(channelId);
    if (channel?.history_public_to_subscribers) for (const id of await deps.directory.subscriberIds(channelId)) users.add(id);
  }
  return [...users].sort((a, b) => a - b);
}
