/**
 * Who may tell whom that they are typing, and who hears it. Pure: the handler resolves
 * users and channels from the directory. Typing is never stored: the decision is a
 * notice (a client event and its audience) that goes to the events service over the bus.
 */
import { badRequest, type GroupMember, type TypingEditMessageEvent, type TypingEvent, type TypingNotice, type TypingOp } from '@teamchat/contracts';
import { hasChannelPermission, isGuest, type GroupDirectory } from '@teamchat/policies';
import { directParticipants, type ChannelTarget, type Participant } from './send-message';

/**
 * The users who turned their `receives_typing_notifications` setting off (Zulip's default
 * is on): every decision below leaves them out of the audience.
 */
export type TypingOptOuts = ReadonlySet<number>;
const NO_OPT_OUTS: TypingOptOuts = new Set();

/** Zulip's max_stream_size_for_typing_notifications: busier channels get no channel typing. */
export const MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS = 100;

const asMember = (p: Participant): GroupMember => ({ user_id: p.id, role: p.role, date_joined: p.date_joined });
const who = (p: Participant) => ({ user_id: p.id, email: p.email });

/**
 * Direct typing reaches the conversation's participants, the sender included (Zulip
 * lists them all as recipients, so clients know which conversation it is). Only active
 * users may be named, as for a direct message.
 */
export function decideDirectTyping(sender: Participant, op: TypingOp, named: Participant[], optOuts: TypingOptOuts = NO_OPT_OUTS): TypingNotice {
  if (named.length === 0) throw badRequest("Empty 'to' list");
  const inactive = named.find((u) => !u.is_active);
  if (inactive) throw badRequest(`'${inactive.email}' is no longer using this organization.`);
  const participants = directParticipants(sender, named);
  const event: TypingEvent = { type: 'typing', op, message_type: 'direct', sender: who(sender), recipients: participants.map(who) };
  return { event, user_ids: participants.filter((u) => !optOuts.has(u.id)).map((u) => u.id) };
}

/**
 * Channel typing: only where the sender may post (the same checks as sending, in the
 * same order), to the channel's active subscribers. A private channel the sender cannot
 * see is refused as if it did not exist.
 */
export function decideChannelTyping(
  sender: Participant,
  op: TypingOp,
  target: Omit<ChannelTarget, 'topic' | 'topics_policy'> & { topic: string },
  subscribers: Participant[],
  nowSeconds: number,
  groups: GroupDirectory,
  optOuts: TypingOptOuts = NO_OPT_OUTS,
): TypingNotice {
  const subscribed = target.subscriber_ids.includes(sender.id);
  if (target.invite_only && !subscribed) throw badRequest('Invalid channel ID');
  const posting = { can_send_message_group: target.can_send_message_group, creator_id: null };
  if (!hasChannelPermission(posting, 'can_send_message_group', asMember(sender), nowSeconds, groups)) {
    throw badRequest('You do not have permission to post in this channel.');
  }
  if (target.is_archived) throw badRequest(`Not authorized to send to channel '${target.name}'`);
  if (isGuest(sender.role) && !subscribed) throw badRequest(`Not authorized to send to channel '${target.name}'`);
  const event: TypingEvent = { type: 'typing', op, message_type: 'stream', sender: who(sender), stream_id: target.channel_id, topic: target.topic };
  const audience = subscribers.filter((u) => u.is_active && !optOuts.has(u.id));
  return { event, user_ids: audience.length > MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS ? [] : audience.map((u) => u.id) };
}

/**
 * Typing while editing a message: only its sender edits its content, so only the sender
 * may announce it, to those who have the message (or, in a channel, its subscribers).
 */
export function decideEditTyping(
  sender: Participant,
  op: TypingOp,
  message: { id: number; sender_id: number; recipient: TypingEditMessageEvent['recipient'] },
  audience: Participant[],
  optOuts: TypingOptOuts = NO_OPT_OUTS,
): TypingNotice {
  if (message.sender_id !== sender.id) throw badRequest("You don't have permission to edit this message");
  const event: TypingEditMessageEvent = { type: 'typing_edit_message', op, sender_id: sender.id, message_id: message.id, recipient: message.recipient };
  const users = audience.filter((u) => u.is_active && !optOuts.has(u.id));
  if (message.recipient.type === 'channel' && users.length > MAX_CHANNEL_SIZE_FOR_TYPING_NOTIFICATIONS) return { event, user_ids: [] };
  return { event, user_ids: users.map((u) => u.id) };
}
