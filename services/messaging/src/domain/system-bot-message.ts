/**
 * A direct message from a system bot (the notification bot, the welcome bot): what the
 * server itself says to users, such as "your invitee joined" or the organization's welcome
 * text. No permission applies, as for Zulip's internal sends: only trusted services reach
 * the command. The bot has no history of its own, so only the recipients receive the
 * message, and it is unread for each of them. Pure: the recipients (looked up), the
 * rendering, the recipient id and the clock come from the caller.
 */
import { badRequest, isSystemBotId, LIMITS, type FactOf, type SystemBot } from '@teamchat/contracts';
import { codePointLength } from '@teamchat/policies';

export interface SystemBotRecipient {
  id: number;
  email: string;
  full_name: string;
  is_active: boolean;
}

export interface SystemBotMessage {
  bot: SystemBot;
  /** The users named, resolved; undefined where an id names nobody. */
  recipients: { user_id: number; user: SystemBotRecipient | undefined }[];
  content: string;
  rendered_content: string;
  mentioned_user_ids: number[];
  recipient_id: number;
  now: number;
}

/** Everyone in the conversation, the bot included, once each, by id: the recipient key's and display's order. */
export function systemBotConversation(bot: SystemBot, recipientIds: readonly number[]): number[] {
  return [...new Set([bot.user_id, ...recipientIds])].sort((a, b) => a - b);
}

/**
 * The message fact of a system bot's words, wherever they go (the notification bot's
 * announcements and notices too): sent by the server, so unread for its recipients, and
 * the bot keeps no history of its own.
 */
export function systemBotMessageSent(
  bot: SystemBot,
  message: Pick<FactOf<'MessageSent'>, 'recipient' | 'content' | 'rendered_content' | 'recipient_id' | 'recipient_user_ids' | 'mentioned_user_ids'> & { now: number },
): FactOf<'MessageSent'> {
  return {
    type: 'MessageSent',
    sender_id: bot.user_id,
    sender_email: bot.email,
    sender_full_name: bot.full_name,
    recipient: message.recipient,
    content: message.content,
    rendered_content: message.rendered_content,
    is_me_message: false,
    client: bot.client,
    recipient_id: message.recipient_id,
    timestamp: Math.floor(message.now / 1000),
    recipient_user_ids: message.recipient_user_ids,
    mentioned_user_ids: message.mentioned_user_ids,
    wildcard_mentioned_user_ids: [],
    read_by_sender: false,
    local_echo: null,
  };
}

export function decideSystemBotMessage(cmd: SystemBotMessage): FactOf<'MessageSent'> {
  if (cmd.content.trim().length === 0) throw badRequest('Message must not be empty');
  if (codePointLength(cmd.content) > LIMITS.max_message_length) throw badRequest(`Message too long (limit: ${LIMITS.max_message_length} characters)`);
  const users = new Map<number, SystemBotRecipient>();
  for (const { user_id, user } of cmd.recipients) {
    // A system bot cannot be a recipient: it has no history nor queue to receive into.
    if (!user || isSystemBotId(user_id)) throw badRequest(`Invalid user ID ${user_id}`);
    if (!user.is_active) throw badRequest(`'${user.email}' is no longer using Zulip.`);
    users.set(user.id, user);
  }
  const recipientIds = [...users.keys()].sort((a, b) => a - b);
  const display = [
    { id: cmd.bot.user_id, email: cmd.bot.email, full_name: cmd.bot.full_name, is_mirror_dummy: false },
    ...recipientIds.map((id) => ({ id, email: users.get(id)!.email, full_name: users.get(id)!.full_name, is_mirror_dummy: false })),
  ].sort((a, b) => a.id - b.id);
  return systemBotMessageSent(cmd.bot, {
    recipient: { type: 'direct', users: display },
    content: cmd.content,
    rendered_content: cmd.rendered_content,
    recipient_id: cmd.recipient_id,
    recipient_user_ids: recipientIds,
    mentioned_user_ids: cmd.mentioned_user_ids.filter((id) => users.has(id)),
    now: cmd.now,
  });
}

/** A channel a system bot posts in, as messaging's directory knows it. */
export interface SystemBotChannel {
  channel_id: number;
  name: string;
  is_archived: boolean;
  subscriber_ids: number[];
}

/**
 * A system bot's message in a channel (a new organization's welcome): its subscribers
 * receive it, unread. The caller is trusted (no permission applies); an unknown or archived
 * channel, an empty or overlong message or topic is refused before anything is stored.
 */
export function decideSystemBotChannelMessage(cmd: {
  bot: SystemBot;
  channel: SystemBotChannel | undefined;
  topic: string;
  content: string;
  rendered_content: string;
  mentioned_user_ids: number[];
  recipient_id: number;
  now: number;
}): FactOf<'MessageSent'> {
  if (!cmd.channel || cmd.channel.is_archived) throw badRequest('Invalid channel ID');
  const topic = cmd.topic.trim();
  if (topic.length === 0) throw badRequest('Topic must not be empty');
  if (codePointLength(topic) > LIMITS.max_topic_length) throw badRequest(`Topic too long (limit: ${LIMITS.max_topic_length} characters)`);
  if (cmd.content.trim().length === 0) throw badRequest('Message must not be empty');
  if (codePointLength(cmd.content) > LIMITS.max_message_length) throw badRequest(`Message too long (limit: ${LIMITS.max_message_length} characters)`);
  const recipients = [...new Set(cmd.channel.subscriber_ids)].filter((id) => !isSystemBotId(id)).sort((a, b) => a - b);
  return systemBotMessageSent(cmd.bot, {
    recipient: { type: 'channel', channel_id: cmd.channel.channel_id, channel_name: cmd.channel.name, topic },
    content: cmd.content,
    rendered_content: cmd.rendered_content,
    recipient_id: cmd.recipient_id,
    recipient_user_ids: recipients,
    mentioned_user_ids: cmd.mentioned_user_ids.filter((id) => recipients.includes(id)),
    now: cmd.now,
  });
}
