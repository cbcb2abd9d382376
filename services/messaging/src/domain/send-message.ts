/**
 * Deciding a message send: who may send what where, and what the resulting fact holds.
 * Pure: the resolved recipients, the rendering, the clock and the recipient id come in
 * with the command; the handler looked them up.
 */
import {
  ApiError,
  badRequest,
  EMPTY_TOPIC_DISPLAY_NAME,
  LIMITS,
  type DisplayRecipientUser,
  type FactOf,
  type GroupMember,
  type GroupSettingValue,
  type Widget,
} from '@teamchat/contracts';
import { codePointLength, hasChannelPermission, isGuest, orgAllows, ORGANIZATION_POLICY, type GroupDirectory, type OrganizationPolicy } from '@teamchat/policies';
import { normalizeTopic } from './topics';
import { widgetOf } from './widgets';

export interface Participant {
  id: number;
  email: string;
  full_name: string;
  role: number;
  is_active: boolean;
  is_bot: boolean;
  /** Seconds since the epoch (full membership). */
  date_joined: number;
}

const asMember = (p: Participant): GroupMember => ({ user_id: p.id, role: p.role, date_joined: p.date_joined });

export interface ChannelTarget {
  kind: 'channel';
  channel_id: number;
  name: string;
  invite_only: boolean;
  is_archived: boolean;
  subscriber_ids: number[];
  topic: string | undefined;
  topics_policy: TopicsPolicy;
  /** Who may post (the channel's group-setting). */
  can_send_message_group: GroupSettingValue;
}

export type TopicsPolicy = 'inherit' | 'allow_empty_topic' | 'disable_empty_topic' | 'empty_topic_only';

export interface DirectTarget {
  kind: 'direct';
  /** The users named in `to`, resolved; the sender may be among them. */
  users: Participant[];
}

export interface SendMessage {
  sender: Participant;
  target: ChannelTarget | DirectTarget;
  content: string;
  rendered_content: string;
  /** What the content mentions, from rendering; ids are already limited to recipients. */
  mentions: {
    wildcard: 'channel' | 'topic' | null;
    mentioned_user_ids: number[];
    wildcard_mentioned_user_ids: number[];
  };
  /** How many users took part in the topic so far (for topic wildcard mentions). */
  topic_participant_count: number;
  is_me_message: boolean;
  client: string;
  read_by_sender: boolean | undefined;
  local_echo: { queue_id: string; local_id: string } | null;
  /** Recipients whose alert words the message contains (from messaging's projection of them). */
  alert_word_user_ids?: number[];
  /** Recipients who muted the sender (messaging's projection of mutes): it reaches them read. */
  muted_sender_user_ids?: number[];
  /** The topic's links (from messaging's projection of the linkifiers). */
  topic_links?: { text: string; url: string }[];
  recipient_id: number;
  /** The custom user groups as messaging projects them (the channel's and organization's settings may name them). */
  groups: GroupDirectory;
  now: number;
  /** The organization's settings; Zulip's defaults when absent. */
  policy?: OrganizationPolicy;
}

/** The conversation a message goes to, as the key its recipient id is allocated under. */
export function recipientKey(sender: Participant, target: ChannelTarget | DirectTarget): string {
  if (target.kind === 'channel') return `channel:${target.channel_id}`;
  return `direct:${directParticipants(sender, target.users).map((u) => u.id).join(',')}`;
}

/** Everyone in a direct message: the named users and the sender, once each, by id. */
export function directParticipants(sender: Participant, users: Participant[]): Participant[] {
  const byId = new Map<number, Participant>([[sender.id, sender]]);
  for (const u of users) byId.set(u.id, u);
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/**
 * Clients that are a person at a keyboard: what they send is read by its sender. Other
 * clients (integrations using a person's key) leave the message unread for the sender.
 */
const INTERACTIVE_CLIENTS = new Set([
  'website',
  'zulipandroid',
  'zulipios',
  'zulipdesktop',
  'zulipmobile',
  'zulipelectron',
  'zulipterminal',
  'zulipflutter',
  'ios',
  'android',
  'snipe',
]);

export function defaultReadBySender(client: string): boolean {
  const name = client.toLowerCase();
  return INTERACTIVE_CLIENTS.has(name) || name.includes('desktop app');
}

/** The organization's default for channels whose topics_policy is `inherit` (Zulip's default). */
export const ORGANIZATION_TOPICS_POLICY: Exclude<TopicsPolicy, 'inherit'> = 'allow_empty_topic';

function checkTopicsPolicy(topic: string, policy: TopicsPolicy): void {
  const effective = policy === 'inherit' ? ORGANIZATION_TOPICS_POLICY : policy;
  if (effective === 'disable_empty_topic' && topic === '') {
    throw badRequest(`Sending messages to the ${EMPTY_TOPIC_DISPLAY_NAME} topic is not allowed in this channel.`);
  }
  if (effective === 'empty_topic_only' && topic !== '') {
    throw badRequest(`Only the ${EMPTY_TOPIC_DISPLAY_NAME} topic is allowed in this channel.`);
  }
}

function checkTopic(raw: string | undefined): string {
  if (raw === undefined) throw badRequest("Missing 'topic' argument", { var_name: 'topic' });
  return normalizeTopic(raw);
}

/** Who receives a message to this target: a channel's subscribers or the DM participants, and the sender. */
export function recipientUserIds(sender: Participant, target: ChannelTarget | DirectTarget): number[] {
  if (target.kind === 'channel') return [...new Set([...target.subscriber_ids, sender.id])].sort((a, b) => a - b);
  return directParticipants(sender, target.users).map((u) => u.id);
}

function checkWildcardMention(cmd: SendMessage): void {
  const POLICY = cmd.policy ?? ORGANIZATION_POLICY;
  if (cmd.target.kind !== 'channel' || orgAllows(POLICY.canMentionManyUsersGroup, asMember(cmd.sender), Math.floor(cmd.now / 1000), cmd.groups)) return;
  const threshold = POLICY.wildcardMentionLargeThreshold;
  if (cmd.mentions.wildcard === 'channel' && cmd.target.subscriber_ids.length > threshold) {
    throw new ApiError('STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use channel wildcard mentions in this channel.', 400);
  }
  if (cmd.mentions.wildcard === 'topic' && cmd.topic_participant_count > threshold) {
    throw new ApiError('TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use topic wildcard mentions in this topic.', 400);
  }
}

export function decideSendMessage(cmd: SendMessage): FactOf<'MessageSent'> {
  const { sender, target } = cmd;
  if (cmd.content.trim().length === 0) throw badRequest('Message must not be empty');
  if (cmd.content.includes('\u0000')) throw badRequest('Message must not contain null bytes');
  if (codePointLength(cmd.content) > LIMITS.max_message_length) {
    throw badRequest(`Message too long (limit: ${LIMITS.max_message_length} characters)`);
  }

  let recipient: FactOf<'MessageSent'>['recipient'];
  if (target.kind === 'channel') {
    const topic = checkTopic(target.topic);
    checkTopicsPolicy(topic, target.topics_policy);
    const subscribed = target.subscriber_ids.includes(sender.id);
    // In Zulip's order: the posting permission, then archiving, then access.
    const posting = { can_send_message_group: target.can_send_message_group, creator_id: null };
    if (!hasChannelPermission(posting, 'can_send_message_group', asMember(sender), Math.floor(cmd.now / 1000), cmd.groups)) {
      throw badRequest('You do not have permission to post in this channel.');
    }
    if (target.is_archived) throw badRequest(`Not authorized to send to channel '${target.name}'`);
    if ((target.invite_only || isGuest(sender.role)) && !subscribed) {
      throw badRequest(`Not authorized to send to channel '${target.name}'`);
    }
    recipient = { type: 'channel', channel_id: target.channel_id, channel_name: target.name, topic };
    checkWildcardMention(cmd);
  } else {
    if (target.users.length === 0) throw badRequest('Message must have recipients');
    const inactive = target.users.find((u) => !u.is_active);
    if (inactive) throw badRequest(`'${inactive.email}' is no longer using this organization.`);
    const participants = directParticipants(sender, target.users);
    const users: DisplayRecipientUser[] = participants.map((u) => ({
      id: u.id,
      email: u.email,
      full_name: u.full_name,
      is_mirror_dummy: false,
    }));
    recipient = { type: 'direct', users };
  }

  return {
    type: 'MessageSent',
    sender_id: sender.id,
    sender_email: sender.email,
    sender_full_name: sender.full_name,
    recipient,
    content: cmd.content,
    rendered_content: cmd.rendered_content,
    is_me_message: cmd.is_me_message,
    client: cmd.client,
    recipient_id: cmd.recipient_id,
    timestamp: Math.floor(cmd.now / 1000),
    recipient_user_ids: recipientUserIds(sender, target),
    mentioned_user_ids: cmd.mentions.mentioned_user_ids,
    wildcard_mentioned_user_ids: cmd.mentions.wildcard_mentioned_user_ids,
    read_by_sender: cmd.read_by_sender ?? defaultReadBySender(cmd.client),
    local_echo: cmd.local_echo,
    ...(cmd.alert_word_user_ids?.length ? { alert_word_user_ids: cmd.alert_word_user_ids } : {}),
    ...(cmd.muted_sender_user_ids?.length ? { muted_sender_user_ids: cmd.muted_sender_user_ids } : {}),
    ...(cmd.topic_links?.length && cmd.target.kind === 'channel' ? { topic_links: cmd.topic_links } : {}),
    ...widgetField(cmd.content),
  };
}

/** A message starting with `/poll` or `/todo` is sent with its widget (domain/widgets.ts). */
function widgetField(content: string): { widget?: Widget } {
  const widget = widgetOf(content);
  return widget ? { widget } : {};
}
