/**
 * POST /messages: resolve `to` against the directory, render, allocate the
 * conversation's recipient id, decide, and append the message as its own stream. The
 * message id is the position the store gave that fact.
 */
import type { OrganizationPolicy } from '@teamchat/policies';
import { badRequest, streamDoesNotExist, streams, type Actor, type SendMessageParams } from '@teamchat/contracts';
import { channelGroupSettings, type Directory, type UserDoc, type UserGroups } from '@teamchat/directory';
import { isMeMessage } from '@teamchat/markdown';
import { newId, type AggregateRepository } from '@teamchat/platform';
import {
  automaticVisibilityPolicy,
  decideUserTopic,
  visibilityMayChangeAutomatically,
  type MessageState,
} from '../domain/message-changes';
import { visibilityPolicyOf, type UserTopicsState } from '../domain/personal-streams';
import { normalizeTopic } from '../domain/topics';
import {
  decideSendMessage,
  recipientKey,
  recipientUserIds,
  type ChannelTarget,
  type DirectTarget,
  type Participant,
  type SendMessage,
} from '../domain/send-message';
import { alertedUserIds } from '../domain/alert-words';
import type { AlertWordsBook } from '../projections/alert-words';
import type { MutedUsersBook } from '../projections/muted-users';
import { mutingRecipients } from '../domain/muted-users';
import type { LinkifiersBook } from '../projections/linkifiers';
import type { MessagesReadModel } from '../projections/messages';
import type { ConversationIds } from './conversation-ids';
import type { Renderer } from './rendering';

export interface SendDeps {
  directory: Directory;
  /** The custom user groups, which the channel's and organization's group-settings may name. */
  userGroups: Pick<UserGroups, 'snapshot'>;
  model: MessagesReadModel;
  recipients: Pick<ConversationIds, 'idFor'>;
  messages: AggregateRepository<MessageState>;
  userTopicStreams: AggregateRepository<UserTopicsState>;
  renderer: Renderer;
  alertWords: Pick<AlertWordsBook, 'matchersByUser'>;
  /** The organization's linkifiers, for the topic's links (absent: none). */
  linkifiers?: Pick<LinkifiersBook, 'topicLinks'>;
  /** The organization's current policy, from this service's projection of its settings. */
  policy?(): Promise<OrganizationPolicy>;
  /** Who muted whom (messaging's projection of its mute facts); absent: nobody. */
  mutedUsers?: Pick<MutedUsersBook, 'mutersOf'>;
}

const TOPIC_WILDCARD = /@_?\*\*topic\*\*/i;

/** Senders of the topic so far, who a topic wildcard mention reaches. */
async function topicParticipants(model: MessagesReadModel, channelId: number, topic: string): Promise<number[]> {
  const messages = await model.messages.find({ channel_id: channelId, topic_lc: topic.toLowerCase() });
  return [...new Set(messages.map((m) => m.sender_id))];
}

export const participant = (u: UserDoc): Participant => ({
  id: u._id,
  email: u.email,
  full_name: u.full_name,
  role: u.role,
  is_active: u.is_active,
  is_bot: u.is_bot,
  date_joined: u.date_joined,
});

async function resolveChannel(directory: Directory, to: SendMessageParams['to'], topic: string | undefined): Promise<ChannelTarget> {
  // A one-element list is how some clients name the channel.
  const value = Array.isArray(to) ? (to.length === 1 ? to[0]! : undefined) : to;
  if (value === undefined) throw badRequest('A channel message needs exactly one channel in `to`');
  const channel = typeof value === 'number' ? await directory.channelById(value) : await directory.channelByName(value.trim());
  if (!channel) throw streamDoesNotExist(value);
  return {
    kind: 'channel',
    channel_id: channel._id,
    name: channel.name,
    invite_only: channel.invite_only,
    is_archived: channel.is_archived,
    subscriber_ids: await directory.subscriberIds(channel._id),
    topic,
    topics_policy: channel.topics_policy,
    can_send_message_group: channel.can_send_message_group ?? channelGroupSettings(channel).can_send_message_group,
  };
}

async function resolveDirect(directory: Directory, to: SendMessageParams['to']): Promise<DirectTarget> {
  // Legacy clients send a comma-separated list of emails as plain text.
  const items = Array.isArray(to) ? to : typeof to === 'string' ? to.split(',').map((s) => s.trim()).filter(Boolean) : [to];
  const users: Participant[] = [];
  for (const item of items) {
    const user = typeof item === 'number' ? await directory.userById(item) : await directory.userByEmail(item);
    if (!user) throw badRequest(typeof item === 'number' ? `Invalid user ID ${item}` : `Invalid email '${item}'`);
    users.push(participant(user));
  }
  return { kind: 'direct', users };
}

export function recipientIdFor(deps: Pick<SendDeps, 'recipients'>, key: string): Promise<number> {
  return deps.recipients.idFor(key);
}

/**
 * The command with its recipient id. Object.assign, not `{ ...command, recipient_id }`:
 * V8 gives an object spread from one this large a hidden class of its own, so each message
 * would allocate two that only a full collection frees.
 */
function withRecipient(command: Omit<SendMessage, 'recipient_id'>, recipient_id: number): SendMessage {
  return Object.assign({}, command, { recipient_id });
}

/**
 * Everything POST /messages checks, without storing: the message as it would be sent now
 * (its recipient id not yet allocated). Scheduling a message runs it too, as Zulip does.
 */
export async function checkMessage(deps: SendDeps, actor: Actor, params: SendMessageParams) {
  if ((params.queue_id === undefined) !== (params.local_id === undefined)) {
    const missing = params.queue_id === undefined ? 'queue_id' : 'local_id';
    throw badRequest(`Missing '${missing}' argument`, { var_name: missing });
  }
  const senderDoc = await deps.directory.userById(actor.user_id);
  if (!senderDoc || !senderDoc.is_active) throw badRequest('Sender is not an active user');
  const sender = participant(senderDoc);
  const target =
    params.type === 'channel' ? await resolveChannel(deps.directory, params.to, params.topic) : await resolveDirect(deps.directory, params.to);

  const recipients = recipientUserIds(sender, target);
  const topic = target.kind === 'channel' && target.topic !== undefined ? normalizeTopic(target.topic) : undefined;
  const participants =
    target.kind === 'channel' && topic !== undefined && TOPIC_WILDCARD.test(params.content)
      ? await topicParticipants(deps.model, target.channel_id, topic)
      : [];
  const rendered = await deps.renderer.render(params.content, {
    sender_id: sender.id,
    recipient_user_ids: recipients,
    topic_participant_ids: participants,
  });
  const command = {
    sender,
    target,
    content: params.content,
    rendered_content: rendered.html,
    mentions: rendered,
    topic_participant_count: participants.length,
    is_me_message: isMeMessage(params.content),
    client: actor.client,
    read_by_sender: params.read_by_sender,
    local_echo: params.queue_id !== undefined && params.local_id !== undefined ? { queue_id: params.queue_id, local_id: params.local_id } : null,
    ...(topic !== undefined && deps.linkifiers ? { topic_links: deps.linkifiers.topicLinks(topic) } : {}),
    alert_word_user_ids: alertedUserIds(deps.alertWords.matchersByUser, { sender_id: sender.id, recipient_user_ids: recipients, content: params.content, topic }),
    muted_sender_user_ids: deps.mutedUsers ? mutingRecipients(recipients, sender.id, deps.mutedUsers.mutersOf(sender.id)) : [],
    groups: await deps.userGroups.snapshot(),
    now: Date.now(),
    ...(deps.policy ? { policy: await deps.policy() } : {}),
  };
  // Validate before allocating a recipient id, so a refused message leaves no trace.
  const fact = decideSendMessage(withRecipient(command, 0));
  return { command, sender, target, topic, fact };
}

/**
 * `messageStream`: where to store the message (a scheduled delivery names it in its claim,
 * so that an attempt taken up again cannot store the message twice); a new stream otherwise.
 */
export async function sendMessage(deps: SendDeps, actor: Actor, params: SendMessageParams, messageStream?: string) {
  const { command, sender, target, topic } = await checkMessage(deps, actor, params);
  const startsTopic =
    target.kind === 'channel' && topic !== undefined ? !(await deps.model.topicHasMessages(target.channel_id, topic.toLowerCase())) : false;
  const fact = decideSendMessage(withRecipient(command, await recipientIdFor(deps, recipientKey(sender, target))));
  const { positions } = await deps.messages.create(messageStream ?? streams.message(newId()), [fact]);
  const id = positions[0]!;

  // The sender's topic visibility may change automatically (follow topics you start).
  if (fact.recipient.type !== 'channel') return { id, position: id };
  const trigger = { startsTopic, channelMuted: false };
  if (!visibilityMayChangeAutomatically(trigger)) return { id, position: id };
  const { channel_id, topic: factTopic } = fact.recipient;
  const now = Date.now();
  const { result: policy, append } = await deps.userTopicStreams.execute(streams.userTopics(sender.id), (state) => {
    const current = visibilityPolicyOf(state, channel_id, factTopic);
    const policy = automaticVisibilityPolicy({ current, ...trigger });
    const facts = policy === null ? [] : decideUserTopic(current, { user_id: sender.id, channel_id, topic: factTopic, visibility_policy: policy, now });
    return { facts, result: policy };
  });
  if (policy === null) return { id, position: id };
  return { id, position: append?.positions.at(-1) ?? id, automatic_new_visibility_policy: policy };
}
