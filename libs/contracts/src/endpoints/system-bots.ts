/**
 * The internal command (no HTTP route) by which services send as a system bot: a direct
 * message from the notification bot or the welcome bot to users of the organization
 * (the referrer told that their invitee joined, the newcomer welcomed). Only trusted
 * callers reach it, over the bus: no client can make a system bot say anything.
 */
import { z } from 'zod';
import { SYSTEM_BOT_NAMES } from '../system-bots';
import { endpoint } from './contract';

const int = () => z.number().int();

export const systemBotMessagingEndpoints = {
  sendSystemBotMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.send_system_bot_message',
    auth: false,
    params: z.object({
      bot: z.enum(SYSTEM_BOT_NAMES),
      /** The recipients of the direct message (active users of the organization); the bot is the sender. */
      to: z.array(int().positive()).min(1).max(100),
      /** Markdown, as a user's message. */
      content: z.string(),
    }),
    reply: z.object({ message_id: int() }),
  }),
  /**
   * A system bot's message in a channel (the notification bot's welcome in a new
   * organization's `general`): its subscribers receive it, as any channel message.
   */
  sendSystemBotChannelMessage: endpoint({
    service: 'messaging',
    subject: 'messaging.send_system_bot_channel_message',
    auth: false,
    params: z.object({
      bot: z.enum(SYSTEM_BOT_NAMES),
      channel_id: int().positive(),
      topic: z.string().min(1).max(60),
      content: z.string(),
    }),
    reply: z.object({ message_id: int() }),
  }),
};
