/**
 * POST /typing and POST /messages/{id}/typing: resolve the conversation from the
 * directory, decide (domain/typing.ts), and publish the notice for the events service.
 * Nothing is appended, and the reply does not wait for delivery.
 */
import { badRequest, typingNotice, type Actor, type SetEditTypingParams, type SetTypingParams, type TypingNotice } from '@teamchat/contracts';
import { channelGroupSettings, type Directory, type UserGroups } from '@teamchat/directory';
import type { Bus } from '@teamchat/platform';
import { normalizeTopic } from '../domain/topics';
import { decideChannelTyping, decideDirectTyping, decideEditTyping } from '../domain/typing';
import type { MessagesReadModel } from '../projections/messages';
import type { UserPreferences } from '../projections/user-preferences';
import { accessibleMessage } from '../queries/access';
import { participant } from './send-message';

export interface TypingDeps {
  directory: Directory;
  /** The custom user groups, which the channel's and organization's group-settings may name. */
  userGroups: Pick<UserGroups, 'snapshot'>;
  model: MessagesReadModel;
  bus: Bus;
  /** Who turned typing notifications off (messaging's projection of their settings). */
  preferences: Pick<UserPreferences, 'turnedOff'>;
}

const optOuts = (deps: TypingDeps) => deps.preferences.turnedOff('receives_typing_notifications');

async function activeSender(directory: Directory, actor: Actor) {
  const sender = await directory.userById(actor.user_id);
  if (!sender || !sender.is_active) throw badRequest('Sender is not an active user');
  return participant(sender);
}

function publish(bus: Bus, notice: TypingNotice): void {
  if (notice.user_ids.length > 0) bus.publish(typingNotice.subject, notice);
}

export async function setTyping(deps: TypingDeps, actor: Actor, params: SetTypingParams): Promise<void> {
  const { directory } = deps;
  const sender = await activeSender(directory, actor);
  if (params.type === 'channel') {
    if (params.channel_id === undefined) throw badRequest('Missing stream_id', { var_name: 'stream_id' });
    if (params.topic === undefined) throw badRequest('Missing topic', { var_name: 'topic' });
    const topic = normalizeTopic(params.topic);
    const channel = await directory.channelById(params.channel_id);
    if (!channel) throw badRequest('Invalid channel ID');
    const subscriberIds = await directory.subscriberIds(channel._id);
    const target = {
      kind: 'channel' as const,
      channel_id: channel._id,
      name: channel.name,
      invite_only: channel.invite_only,
      is_archived: channel.is_archived,
      subscriber_ids: subscriberIds,
      topic,
      can_send_message_group: channel.can_send_message_group ?? channelGroupSettings(channel).can_send_message_group,
    };
    const subscribers = (await directory.usersByIds(subscriberIds)).map(participant);
    publish(deps.bus, decideChannelTyping(sender, params.op, target, subscribers, Math.floor(Date.now() / 1000), await deps.userGroups.snapshot(), optOuts(deps)));
    return;
  }
  if (params.to === undefined) throw badRequest("Missing 'to' argument", { var_name: 'to' });
  const wanted = [...new Set(params.to)];
  const found = await directory.usersByIds(wanted);
  if (found.length < wanted.length) {
    const known = new Set(found.map((u) => u._id));
    throw badRequest(`Invalid user ID ${wanted.find((id) => !known.has(id))}`);
  }
  const named = found.map(participant);
  publish(deps.bus, decideDirectTyping(sender, params.op, named, optOuts(deps)));
}

export async function setEditTyping(deps: TypingDeps, actor: Actor, params: SetEditTypingParams): Promise<void> {
  const sender = await activeSender(deps.directory, actor);
  const { message } = await accessibleMessage(deps, actor, params.message_id);
  let recipient;
  let audienceIds: number[];
  if (message.recipient.type === 'channel') {
    recipient = { type: 'channel' as const, channel_id: message.recipient.channel_id, topic: message.recipient.topic };
    audienceIds = await deps.directory.subscriberIds(message.recipient.channel_id);
  } else {
    const userIds = message.recipient.users.map((u) => u.id);
    recipient = { type: 'direct' as const, user_ids: userIds };
    audienceIds = userIds;
  }
  const audience = (await deps.directory.usersByIds(audienceIds)).map(participant);
  publish(deps.bus, decideEditTyping(sender, params.op, { id: message._id, sender_id: message.sender_id, recipient }, audience, optOuts(deps)));
}
