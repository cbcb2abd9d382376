/**
 * GET /users/me/{stream_id}/topics: a channel's topics, newest first, each with its
 * latest message the user may see. Where the user may read the channel's history that is
 * every message in it; otherwise only the messages they received (a private channel whose
 * history is not shared, as Zulip answers).
 */
import { badRequest, displayTopic, type Actor } from '@teamchat/contracts';
import type { MessageDoc } from '../projections/message-docs';
import { channelAccessOf, type AccessDeps } from './access';

export async function channelTopics(deps: AccessDeps, actor: Actor, channelId: number, allowEmptyTopicName: boolean) {
  const channel = await deps.directory.channelById(channelId);
  const access = await channelAccessOf(deps.directory, actor, channel);
  const subscribed = channel ? await deps.directory.isSubscribed(channelId, actor.user_id) : false;
  // Those who may neither read its history nor are subscribed may not list its topics.
  if (!channel || (!access.readHistory && !subscribed)) throw badRequest('Invalid channel ID');

  let messages: Pick<MessageDoc, '_id' | 'recipient'>[];
  if (access.readHistory) {
    messages = await deps.model.messages.find({ channel_id: channelId });
  } else {
    const rows = await deps.model.userMessages.find({ user_id: actor.user_id, channel_id: channelId });
    messages = await deps.model.messages.getMany(rows.map((r) => r.message_id));
  }
  // The latest message of each topic (case-insensitively one topic) gives its name and max_id.
  const latest = new Map<string, { name: string; max_id: number }>();
  for (const message of messages) {
    if (message.recipient.type !== 'channel') continue;
    const topic = message.recipient.topic;
    const key = topic.toLowerCase();
    const seen = latest.get(key);
    if (!seen || seen.max_id < message._id) latest.set(key, { name: topic, max_id: message._id });
  }
  const topics = [...latest.values()]
    .sort((a, b) => b.max_id - a.max_id)
    .map((t) => ({ name: displayTopic(t.name, allowEmptyTopicName), max_id: t.max_id }));
  return { topics };
}
