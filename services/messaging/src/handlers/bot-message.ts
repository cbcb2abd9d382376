/** The internal `messaging.send_bot_message` command: render, decide, append as its own message stream. */
import { streams } from '@teamchat/contracts';
import type { Directory } from '@teamchat/directory';
import { newId, type AggregateRepository } from '@teamchat/platform';
import { botConversationKey, decideBotMessage, SYSTEM_BOTS } from '../domain/bot-message';
import type { MessageState } from '../domain/message-changes';
import type { Renderer } from './rendering';

export interface BotMessageDeps {
  directory: Directory;
  messages: AggregateRepository<MessageState>;
  renderer: Renderer;
  recipientIdFor: (key: string) => Promise<number>;
}

export async function sendBotMessage(deps: BotMessageDeps, params: { bot: 'notification' | 'welcome'; recipient_id: number; content: string }) {
  const user = await deps.directory.userById(params.recipient_id);
  const recipient = user && { id: user._id, email: user.email, full_name: user.full_name, is_active: user.is_active };
  const rendered = await deps.renderer.render(params.content, { sender_id: SYSTEM_BOTS[params.bot].user_id, recipient_user_ids: [params.recipient_id], topic_participant_ids: [] });
  const fact = decideBotMessage({
    bot: params.bot,
    recipient,
    content: params.content,
    rendered_content: rendered.html,
    recipient_id: await deps.recipientIdFor(botConversationKey(params.bot, params.recipient_id)),
    now: Date.now(),
  });
  const { positions } = await deps.messages.create(streams.message(newId()), [fact]);
  return { value: { message_id: positions[0]! }, position: positions[0]! };
}
