/**
 * A system bot's direct message to one user (the internal `messaging.send_bot_message`):
 * the notification bot telling a referrer that their invitee joined, the welcome bot
 * greeting a newcomer. No permission applies: the server sends it itself, as Zulip's
 * internal sends do. The bots have no accounts, so the recipient is the only reader.
 */
import { badRequest, NOTIFICATION_BOT, WELCOME_BOT, type FactOf } from '@teamchat/contracts';

export const SYSTEM_BOTS = { notification: NOTIFICATION_BOT, welcome: WELCOME_BOT } as const;

export function decideBotMessage(cmd: {
  bot: keyof typeof SYSTEM_BOTS;
  recipient: { id: number; email: string; full_name: string; is_active: boolean } | undefined;
  content: string;
  rendered_content: string;
  recipient_id: number;
  now: number;
}): FactOf<'MessageSent'> {
  const bot = SYSTEM_BOTS[cmd.bot];
  if (!cmd.recipient || !cmd.recipient.is_active) throw badRequest('No such user');
  if (cmd.content.trim() === '') throw badRequest('Message must not be empty');
  const users = [
    { id: bot.user_id, email: bot.email, full_name: bot.full_name, is_mirror_dummy: false },
    { id: cmd.recipient.id, email: cmd.recipient.email, full_name: cmd.recipient.full_name, is_mirror_dummy: false },
  ].sort((a, b) => a.id - b.id);
  return {
    type: 'MessageSent',
    sender_id: bot.user_id,
    sender_email: bot.email,
    sender_full_name: bot.full_name,
    recipient: { type: 'direct', users },
    content: cmd.content,
    rendered_content: cmd.rendered_content,
    is_me_message: false,
    client: bot.client,
    recipient_id: cmd.recipient_id,
    timestamp: Math.floor(cmd.now / 1000),
    recipient_user_ids: [cmd.recipient.id],
    mentioned_user_ids: [],
    wildcard_mentioned_user_ids: [],
    read_by_sender: false,
    local_echo: null,
  };
}

/** The conversation's recipient key, as a person's direct message to the bot would allocate it. */
export const botConversationKey = (bot: keyof typeof SYSTEM_BOTS, recipientId: number) =>
  `direct:${[SYSTEM_BOTS[bot].user_id, recipientId].sort((a, b) => a - b).join(',')}`;
