/**
 * The internal `messaging.send_system_bot_message` command: a direct message from the
 * notification bot or the welcome bot (see domain/system-bot-message.ts), appended as its
 * own message stream, as any message.
 */
import { endpoints, streams, SYSTEM_BOTS } from '@teamchat/contracts';
import type { z } from 'zod';
import type { Directory } from '@teamchat/directory';
import { newId, type AggregateRepository } from '@teamchat/platform';
import type { MessageState } from '../domain/message-changes';
import { decideSystemBotChannelMessage, decideSystemBotMessage, systemBotConversation } from '../domain/system-bot-message';
import type { Renderer } from './rendering';

export interface SystemBotMessageDeps {
  directory: Directory;
  messages: AggregateRepository<MessageState>;
  renderer: Renderer;
  recipientIdFor: (key: string) => Promise<number>;
}

export async function sendSystemBotMessage(
  deps: SystemBotMessageDeps,
  params: z.output<typeof endpoints.messaging.sendSystemBotMessage.params>,
): Promise<{ message_id: number; position: number }> {
  const bot = SYSTEM_BOTS[params.bot];
  const recipients = await Promise.all(
    params.to.map(async (user_id) => {
      const doc = await deps.directory.userById(user_id);
      return { user_id, user: doc && { id: doc._id, email: doc.email, full_name: doc.full_name, is_active: doc.is_active } };
    }),
  );
  const command = { bot, recipients, content: params.content, rendered_content: '', mentioned_user_ids: [], recipient_id: 0, now: Date.now() };
  // Refuse before rendering or allocating a recipient id, so that a refused send leaves no trace.
  const checked = decideSystemBotMessage(command);
  const rendered = await deps.renderer.render(params.content, { sender_id: bot.user_id, recipient_user_ids: checked.recipient_user_ids });
  const fact = decideSystemBotMessage({
    ...command,
    rendered_content: rendered.html,
    mentioned_user_ids: rendered.mentioned_user_ids,
    recipient_id: await deps.recipientIdFor(`direct:${systemBotConversation(bot, checked.recipient_user_ids).join(',')}`),
  });
  const { positions } = await deps.messages.create(streams.message(newId()), [fact]);
  return { message_id: positions[0]!, position: positions[0]! };
}

/** The internal `messaging.send_system_bot_channel_message` command: checked, then rendered for the channel's subscribers, appended. */
export async function sendSystemBotChannelMessage(
  deps: SystemBotMessageDeps,
  params: z.output<typeof endpoints.messaging.sendSystemBotChannelMessage.params>,
): Promise<{ message_id: number; position: number }> {
  const bot = SYSTEM_BOTS[params.bot];
  const doc = await deps.directory.channelById(params.channel_id);
  const channel = doc && { channel_id: doc._id, name: doc.name, is_archived: doc.is_archived, subscriber_ids: await deps.directory.subscriberIds(doc._id) };
  const command = { bot, channel, topic: params.topic, content: params.content, rendered_content: '', mentioned_user_ids: [], recipient_id: 0, now: Date.now() };
  const checked = decideSystemBotChannelMessage(command);
  const rendered = await deps.renderer.render(params.content, { sender_id: bot.user_id, recipient_user_ids: checked.recipient_user_ids, topic_participant_ids: [] });
  const fact = decideSystemBotChannelMessage({
    ...command,
    rendered_content: rendered.html,
    mentioned_user_ids: rendered.mentioned_user_ids,
    recipient_id: await deps.recipientIdFor(`channel:${params.channel_id}`),
  });
  const { positions } = await deps.messages.create(streams.message(newId()), [fact]);
  return { message_id: positions[0]!, position: positions[0]! };
}
