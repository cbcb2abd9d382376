/**
 * Handlers for changes to existing messages: look up what the deciders need (access,
 * audience, rendering, targets), decide, append. Reactions, edits and deletions go to the
 * message's own stream, so concurrent changes to one message are ordered by its revision.
 */
import {
  badRequest,
  ROLE,
  streams,
  type Actor,
  type Fact,
  type FactOf,
  type ReactionParams,
  type UpdateFlagsParams,
  type UpdateMessageParams,
  type UserTopicParams,
} from '@teamchat/contracts';
import { channelGroupSettings, type ChannelDoc, type Directory } from '@teamchat/directory';
import { emojiByCode, emojiByName, isMeMessage, isValidUnicodeEmoji, SERVICE_EXTRA_EMOJI } from '@teamchat/markdown';
import { newId, type AggregateRepository, type AppendResult, type EventStore } from '@teamchat/platform';
import {
  decideDeleteMessage,
  decideEditMessage,
  decideFlags,
  decideReaction,
  decideUserTopic,
  type ChannelGrants,
  type EditActor,
  type MessageSnapshot,
  type MessageState,
  type ReactionCommand,
} from '../domain/message-changes';
import { normalizeTopic } from '../domain/topics';
import { userMessageId, userTopicId, type MessageDoc, type MessagesReadModel } from '../projections/messages';
import { accessibleMessage, audienceOf, canReadChannelHistory, invalidMessages } from '../queries/access';
import type { Renderer } from './rendering';

export interface ChangeDeps {
  store: EventStore;
  directory: Directory;
  model: MessagesReadModel;
  messages: AggregateRepository<MessageState>;
  renderer: Renderer;
  recipientIdFor: (key: string) => Promise<number>;
}

const lastPosition = (append: AppendResult | undefined) => append?.positions.at(-1);

function snapshot(message: MessageDoc): MessageSnapshot {
  return {
    id: message._id,
    sender_id: message.sender_id,
    timestamp: message.timestamp,
    channel_id: message.channel_id,
    channel_name: message.recipient.type === 'channel' ? message.recipient.channel_name : null,
    recipient_id: message.recipient_id,
    topic: message.recipient.type === 'channel' ? message.recipient.topic : null,
    content: message.content,
    rendered_content: message.rendered_content,
  };
}

/** The actor as permission rules see them (full membership needs their join date). */
async function editActor(deps: ChangeDeps, actor: Actor): Promise<EditActor> {
  const user = await deps.directory.userById(actor.user_id);
  return { user_id: actor.user_id, role: actor.role, date_joined: user?.date_joined ?? 0 };
}

const grantsOf = (channel: ChannelDoc | undefined): ChannelGrants | null => (channel ? channelGroupSettings(channel) : null);

/** Turns the emoji parameters into a validated (name, code, type) triple. */
export function resolveEmoji(params: Pick<ReactionParams, 'emoji_name' | 'emoji_code' | 'reaction_type'>): ReactionCommand['emoji'] {
  const type = params.reaction_type ?? 'unicode_emoji';
  if (type === 'realm_emoji') throw badRequest('Invalid custom emoji.');
  if (type === 'service_extra_emoji') {
    const extra = SERVICE_EXTRA_EMOJI.find((e) => e.name === params.emoji_name || e.code === params.emoji_code);
    if (!extra || (params.emoji_code !== undefined && params.emoji_code !== extra.code)) throw badRequest('Invalid emoji code.');
    return { emoji_name: extra.name, emoji_code: extra.code, reaction_type: type };
  }
  if (params.emoji_code !== undefined) {
    const byCode = emojiByCode(params.emoji_code);
    if (!byCode) throw badRequest('Invalid emoji code.');
    if (!isValidUnicodeEmoji(params.emoji_name, byCode.code)) throw badRequest('Invalid emoji name.');
    return { emoji_name: params.emoji_name, emoji_code: byCode.code, reaction_type: type };
  }
  const emoji = emojiByName(params.emoji_name);
  if (!emoji) throw badRequest(`Emoji '${params.emoji_name}' does not exist`);
  return { emoji_name: params.emoji_name, emoji_code: emoji.code, reaction_type: type };
}

export async function changeReaction(deps: ChangeDeps, actor: Actor, params: ReactionParams, op: 'add' | 'remove') {
  const { message } = await accessibleMessage(deps, actor, params.message_id);
  let emoji: ReactionCommand['emoji'];
  if (op === 'remove' && params.reaction_type !== 'service_extra_emoji') {
    // Removing needs no valid catalogue entry: the reaction as stored is what matters.
    const stored = message.reactions.find(
      (r) =>
        r.user_id === actor.user_id &&
        (params.emoji_code !== undefined ? r.emoji_code === params.emoji_code : r.emoji_name === params.emoji_name) &&
        r.reaction_type === (params.reaction_type ?? 'unicode_emoji'),
    );
    emoji = stored
      ? { emoji_name: stored.emoji_name, emoji_code: stored.emoji_code, reaction_type: stored.reaction_type as ReactionCommand['emoji']['reaction_type'] }
      : resolveEmoji(params);
  } else {
    emoji = resolveEmoji(params);
  }
  const audience_user_ids = await audienceOf(deps, [message]);
  const { append } = await deps.messages.execute(message.stream, (state) => ({
    facts: decideReaction(state, { op, message_id: message._id, user_id: actor.user_id, emoji, audience_user_ids }),
    result: undefined,
  }));
  return lastPosition(append);
}

/** The ids a move takes along, by propagate mode, among the messages of the same topic. */
async function messagesToMove(deps: ChangeDeps, message: MessageDoc, mode: 'change_one' | 'change_later' | 'change_all'): Promise<MessageDoc[]> {
  if (mode === 'change_one' || message.channel_id === null) return [message];
  const inTopic = await deps.model.messages.find(
    { channel_id: message.channel_id, topic_lc: message.topic_lc, ...(mode === 'change_later' ? { _id: { $gte: message._id } } : {}) },
    { sort: ['_id', 1] },
  );
  return inTopic;
}

export async function editMessage(deps: ChangeDeps, actor: Actor, params: UpdateMessageParams) {
  const { message } = await accessibleMessage(deps, actor, params.message_id);
  const topic = params.topic ?? params.subject;
  let content: Parameters<typeof decideEditMessage>[1]['content'];
  if (params.content !== undefined) {
    if (params.content.includes('\u0000')) throw badRequest('Message must not contain null bytes');
    const recipients = (await deps.model.rowsOf(message._id)).map((r) => r.user_id);
    const rendered = await deps.renderer.render(params.content, { sender_id: message.sender_id, recipient_user_ids: recipients });
    content = {
      content: params.content,
      rendered_content: rendered.html,
      is_me_message: isMeMessage(params.content),
      mentioned_user_ids: rendered.mentioned_user_ids,
      wildcard_mentioned_user_ids: rendered.wildcard_mentioned_user_ids,
    };
  }
  let channel: { id: number; name: string; recipient_id: number; grants: ChannelGrants } | undefined;
  let revoked: number[] = [];
  if (params.stream_id !== undefined && params.stream_id !== message.channel_id) {
    const target = await deps.directory.channelById(params.stream_id);
    const allowed = target && ((await deps.directory.isSubscribed(target._id, actor.user_id)) || (!target.invite_only && actor.role !== ROLE.guest));
    if (!target || !allowed) throw badRequest('Invalid channel ID');
    if (target.is_archived) throw badRequest(`Channel '${target.name}' is archived`);
    channel = {
      id: target._id,
      name: target.name,
      recipient_id: await deps.recipientIdFor(`channel:${target._id}`),
      grants: channelGroupSettings(target),
    };
    if (target.invite_only) {
      // Whoever had these messages but cannot see the private destination loses them.
      const subscribers = new Set(await deps.directory.subscriberIds(target._id));
      revoked = [...new Set((await deps.model.rowsOf(message._id)).map((r) => r.user_id))].filter(
        (id) => !subscribers.has(id),
      );
    }
  }
  const moving = topic !== undefined || channel !== undefined;
  const propagate = params.propagate_mode ?? 'change_one';
  const moved = moving ? await messagesToMove(deps, message, propagate) : [message];
  const audience_user_ids = await audienceOf(deps, moved, channel ? [channel.id] : []);
  const editor = await editActor(deps, actor);
  const source_grants = message.channel_id === null ? null : grantsOf(await deps.directory.channelById(message.channel_id));
  const { append } = await deps.messages.execute(message.stream, (state) => ({
    facts: decideEditMessage(state, {
      actor: editor,
      message: snapshot(message),
      source_grants,
      content,
      topic,
      channel,
      propagate_mode: propagate,
      moved_message_ids: moved.map((m) => m._id),
      revoked_user_ids: revoked,
      audience_user_ids,
      now: Date.now(),
    }),
    result: undefined,
  }));
  return lastPosition(append);
}

export async function deleteMessage(deps: ChangeDeps, actor: Actor, messageId: number) {
  const { message } = await accessibleMessage(deps, actor, messageId);
  const audience_user_ids = await audienceOf(deps, [message]);
  const [deleter, grants] = await Promise.all([
    editActor(deps, actor),
    message.channel_id === null ? null : deps.directory.channelById(message.channel_id).then(grantsOf),
  ]);
  const { append } = await deps.messages.execute(message.stream, (state) => ({
    facts: decideDeleteMessage(state, { actor: deleter, message: snapshot(message), grants, audience_user_ids, now: Date.now() }),
    result: undefined,
  }));
  return lastPosition(append);
}

/** Appends a personal fact (flags, topic visibility) to the user's own stream. */
export async function appendPersonal(store: EventStore, stream: string, facts: Fact[]) {
  if (facts.length === 0) return undefined;
  const append = await store.append(stream, facts.map((data) => ({ id: newId(), type: data.type, data })), 'any');
  return lastPosition(append);
}

export async function updateFlags(deps: ChangeDeps, actor: Actor, params: Pick<UpdateFlagsParams, 'messages' | 'op' | 'flag'>, checkAccess = true) {
  const current = new Map<number, string[] | undefined>();
  for (const id of new Set(params.messages)) {
    if (checkAccess) {
      const { userMessage } = await accessibleMessage(deps, actor, id).catch(() => {
        throw invalidMessages();
      });
      current.set(id, userMessage?.flags);
    } else {
      current.set(id, (await deps.model.userMessages.get(userMessageId(actor.user_id, id)))?.flags);
    }
  }
  const decided = decideFlags({ user_id: actor.user_id, op: params.op, flag: params.flag, message_ids: params.messages, current });
  const facts: FactOf<'MessageFlagsUpdated'>[] = [];
  for (const fact of decided) {
    const unreading = fact.op === 'remove' && fact.flag === 'read';
    facts.push(unreading ? { ...fact, message_details: Object.fromEntries(await detailsOf(deps, fact.message_ids, current)) } : fact);
  }
  const changed = decided[0]?.message_ids ?? [];
  return { changed, position: await appendPersonal(deps.store, streams.messageFlags(actor.user_id), facts) };
}

/** Where each message is, for clients that put it back among their unreads. */
async function detailsOf(deps: ChangeDeps, ids: number[], flags: Map<number, string[] | undefined>) {
  const details: [string, NonNullable<FactOf<'MessageFlagsUpdated'>['message_details']>[string]][] = [];
  for (const message of await deps.model.messages.getMany(ids)) {
    const own = flags.get(message._id) ?? [];
    const mentioned = own.includes('mentioned') || own.includes('wildcard_mentioned');
    const detail =
      message.recipient.type === 'channel'
        ? { type: 'channel' as const, channel_id: message.recipient.channel_id, topic: message.recipient.topic }
        : { type: 'direct' as const, user_ids: message.recipient.users.map((u) => u.id) };
    details.push([String(message._id), mentioned ? { ...detail, mentioned } : detail]);
  }
  return details;
}

export async function markTopicAsRead(deps: ChangeDeps, actor: Actor, channelId: number, topicName: string) {
  const channel = await deps.directory.channelById(channelId);
  if (!channel || (channel.invite_only && !(await deps.directory.isSubscribed(channelId, actor.user_id)))) {
    throw badRequest('Invalid channel ID');
  }
  const topic = normalizeTopic(topicName);
  // The requester's unread rows (a partial index), narrowed to the topic.
  const rows = await deps.model.userMessages.find({ user_id: actor.user_id, unread: true, channel_id: channelId, topic_lc: topic.toLowerCase() });
  const unread = rows.map((r) => r.message_id);
  return (await updateFlags(deps, actor, { messages: unread, op: 'add', flag: 'read' }, false)).position;
}

export async function updateUserTopic(deps: ChangeDeps, actor: Actor, params: UserTopicParams) {
  const channel = await deps.directory.channelById(params.stream_id);
  if (!channel || !(await canSeeChannel(deps, actor, params.stream_id))) throw badRequest('Invalid channel ID');
  const topic = normalizeTopic(params.topic);
  const current = (await deps.model.userTopics.get(userTopicId(actor.user_id, channel._id, topic)))?.visibility_policy ?? 0;
  const facts = decideUserTopic(current, {
    user_id: actor.user_id,
    channel_id: channel._id,
    topic,
    visibility_policy: params.visibility_policy,
    now: Date.now(),
  });
  return appendPersonal(deps.store, streams.userTopics(actor.user_id), facts);
}

async function canSeeChannel(deps: ChangeDeps, actor: Actor, channelId: number): Promise<boolean> {
  if (await deps.directory.isSubscribed(channelId, actor.user_id)) return true;
  return canReadChannelHistory(deps, actor, channelId);
}

