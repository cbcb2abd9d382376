/**
 * Handlers for changes to existing messages: look up what the deciders need (access,
 * audience, rendering, targets), decide, append. Reactions, submessages, edits and deletions go to the
 * message's own stream, so concurrent changes to one message are ordered by its revision;
 * flags and topic visibility go to the user's own streams (domain/personal-streams.ts).
 */
import type { OrganizationPolicy } from '@teamchat/policies';
import {
  badRequest,
  streams,
  type Actor,
  type ReactionParams,
  type SubmessageParams,
  type UpdateFlagsParams,
  type UpdateMessageParams,
  type UserTopicParams,
} from '@teamchat/contracts';
import type { StoredRealmEmoji } from '@teamchat/contracts';
import { channelGroupSettings, type ChannelDoc, type Directory, type UserGroups } from '@teamchat/directory';
import { isMeMessage } from '@teamchat/markdown';
import type { AggregateRepository, AppendResult } from '@teamchat/platform';
import {
  decideDeleteMessage,
  decideEditMessage,
  decideFlags,
  decideReaction,
  decideSubmessage,
  decideUserTopic,
  type ChannelGrants,
  type EditActor,
  type MessageLocation,
  type MessageSnapshot,
  type MessageState,
} from '../domain/message-changes';
import { alertedUserIds } from '../domain/alert-words';
import { revokedByMove } from '../domain/moves';
import { reactionEmoji } from '../domain/emoji';
import { visibilityPolicyOf, type FlagsStreamState, type UserTopicsState } from '../domain/personal-streams';
import { normalizeTopic } from '../domain/topics';
import type { MessageDoc } from '../projections/message-docs';
import type { MessagesReadModel } from '../projections/messages';
import type { LinkifiersBook } from '../projections/linkifiers';
import { accessibleMessage, audienceOf, channelAccessOf, invalidMessages } from '../queries/access';
import { scanPersonalPlaces } from '../queries/personal-scan';
import type { Renderer } from './rendering';

export interface ChangeDeps {
  directory: Directory;
  /** The custom user groups, which the channel's and organization's group-settings may name. */
  userGroups: Pick<UserGroups, 'snapshot'>;
  model: MessagesReadModel;
  messages: AggregateRepository<MessageState>;
  flagStreams: AggregateRepository<FlagsStreamState>;
  userTopicStreams: AggregateRepository<UserTopicsState>;
  /** Resolves once the read model has applied every fact up to this position. */
  caughtUp: (position: number) => Promise<void>;
  renderer: Renderer;
  recipientIdFor: (key: string) => Promise<number>;
  /** Each user's alert words (messaging's own projection), by user id. */
  alertWords: { readonly matchersByUser: ReadonlyMap<number, RegExp> };
  /** The organization's linkifiers, for a new topic's links (absent: none). */
  linkifiers?: Pick<LinkifiersBook, 'topicLinks'>;
  /** The organization's current policy, from this service's projection of its settings. */
  policy?(): Promise<OrganizationPolicy>;
  /** The organization's custom emoji, for reactions of type realm_emoji. */
  realmEmoji?(): Promise<readonly StoredRealmEmoji[]>;
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

export async function changeReaction(deps: ChangeDeps, actor: Actor, params: ReactionParams, op: 'add' | 'remove') {
  const { message } = await accessibleMessage(deps, actor, params.message_id);
  const emoji = reactionEmoji(op, params, actor.user_id, message.reactions, deps.realmEmoji ? await deps.realmEmoji() : []);
  const audience_user_ids = await audienceOf(deps, [message]);
  const { append } = await deps.messages.execute(message.stream, (state) => ({
    facts: decideReaction(state, { op, message_id: message._id, user_id: actor.user_id, emoji, audience_user_ids }),
    result: undefined,
  }));
  return lastPosition(append);
}

/**
 * A submessage (a vote, a new option, a task struck): anyone who may see the message may
 * add one (Zulip's access_message), and it reaches whoever may see the message now.
 */
export async function addSubmessage(deps: ChangeDeps, actor: Actor, params: SubmessageParams) {
  const { message } = await accessibleMessage(deps, actor, params.message_id);
  const audience_user_ids = await audienceOf(deps, [message]);
  const { append } = await deps.messages.execute(message.stream, (state) => ({
    facts: decideSubmessage(state, {
      message_id: message._id,
      sender_id: actor.user_id,
      msg_type: params.msg_type,
      content: params.content,
      audience_user_ids,
    }),
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
  // The source channel is read before the destination: the projector applies facts in
  // order, so a grant seen here comes with every earlier change to the destination.
  const source_grants = message.channel_id === null ? null : grantsOf(await deps.directory.channelById(message.channel_id));
  const topic = params.topic;
  let content: Parameters<typeof decideEditMessage>[1]['content'];
  if (params.content !== undefined) {
    if (params.content.includes('\u0000')) throw badRequest('Message must not contain null bytes');
    const recipients = [...(await deps.model.personal.holders(message)).keys()].sort((a, b) => a - b);
    const rendered = await deps.renderer.render(params.content, { sender_id: message.sender_id, recipient_user_ids: recipients });
    content = {
      content: params.content,
      rendered_content: rendered.html,
      is_me_message: isMeMessage(params.content),
      mentioned_user_ids: rendered.mentioned_user_ids,
      wildcard_mentioned_user_ids: rendered.wildcard_mentioned_user_ids,
      // As on sending: the new content, and the topic the message keeps (or gets).
      alert_word_user_ids: alertedUserIds(deps.alertWords.matchersByUser, {
        sender_id: message.sender_id,
        recipient_user_ids: recipients,
        content: params.content,
        topic: message.recipient.type === 'channel' ? (params.topic ?? message.recipient.topic) : undefined,
      }),
    };
  }
  let channel: { id: number; name: string; recipient_id: number; grants: ChannelGrants } | undefined;
  let revoked: number[] = [];
  if (params.channel_id !== undefined && params.channel_id !== message.channel_id) {
    const target = await deps.directory.channelById(params.channel_id);
    if (!target || !(await channelAccessOf(deps.directory, actor, target)).postOrMoveInto) throw badRequest('Invalid channel ID');
    if (target.is_archived) throw badRequest(`Channel '${target.name}' is archived`);
    channel = {
      id: target._id,
      name: target.name,
      recipient_id: await deps.recipientIdFor(`channel:${target._id}`),
      grants: channelGroupSettings(target),
    };
    // Only a private destination takes messages from anyone: who is loaded only then.
    if (target.invite_only) {
      const subscribers = await deps.directory.subscriberIds(target._id);
      const holders = [...(await deps.model.personal.holders(message)).keys()].sort((a, b) => a - b);
      revoked = revokedByMove(target, holders, subscribers);
    }
  }
  const moving = topic !== undefined || channel !== undefined;
  const propagate = params.propagate_mode ?? 'change_one';
  const moved = moving ? await messagesToMove(deps, message, propagate) : [message];
  const audience_user_ids = await audienceOf(deps, moved, channel ? [channel.id] : []);
  const [editor, groups, policy] = await Promise.all([editActor(deps, actor), deps.userGroups.snapshot(), deps.policy?.()]);
  const { append } = await deps.messages.execute(message.stream, (state) => ({
    facts: decideEditMessage(state, {
      ...(policy ? { policy } : {}),
      actor: editor,
      message: snapshot(message),
      source_grants,
      content,
      topic,
      channel,
      propagate_mode: propagate,
      moved_message_ids: moved.map((m) => m._id),
      revoked_user_ids: revoked,
      ...(topic !== undefined && deps.linkifiers ? { topic_links: deps.linkifiers.topicLinks(normalizeTopic(topic)) } : {}),
      audience_user_ids,
      groups,
      now: Date.now(),
    }),
    result: undefined,
  }));
  return lastPosition(append);
}

export async function deleteMessage(deps: ChangeDeps, actor: Actor, messageId: number) {
  const { message } = await accessibleMessage(deps, actor, messageId);
  const audience_user_ids = await audienceOf(deps, [message]);
  const [deleter, grants, groups] = await Promise.all([
    editActor(deps, actor),
    message.channel_id === null ? null : deps.directory.channelById(message.channel_id).then(grantsOf),
    deps.userGroups.snapshot(),
  ]);
  const policy = await deps.policy?.();
  const { append } = await deps.messages.execute(message.stream, (state) => ({
    facts: decideDeleteMessage(state, { actor: deleter, message: snapshot(message), grants, audience_user_ids, groups, now: Date.now(), ...(policy ? { policy } : {}) }),
    result: undefined,
  }));
  return lastPosition(append);
}

export async function updateFlags(deps: ChangeDeps, actor: Actor, params: Pick<UpdateFlagsParams, 'messages' | 'op' | 'flag'>, checkAccess = true) {
  const unreading = params.op === 'remove' && params.flag === 'read';
  const { result, append } = await deps.flagStreams.executeWith(
    streams.messageFlags(actor.user_id),
    // Current flags are the read model's (see FlagsStreamState); once it has applied this
    // stream's last fact, it holds every change the decision must see.
    async ({ position }) => {
      await deps.caughtUp(position);
      const current = await currentFlags(deps, actor, params.messages, checkAccess);
      return { current, locations: unreading ? await locationsOf(deps, [...current.keys()]) : undefined };
    },
    (_, { current, locations }) => {
      const facts = decideFlags({ user_id: actor.user_id, op: params.op, flag: params.flag, message_ids: params.messages, current, locations });
      return { facts, result: facts[0]?.message_ids ?? [] };
    },
  );
  return { changed: result, position: lastPosition(append) };
}

/** The user's flags on each message, refusing (with `checkAccess`) messages they may not access. */
async function currentFlags(deps: ChangeDeps, actor: Actor, ids: number[], checkAccess: boolean) {
  const current = new Map<number, readonly string[] | undefined>();
  for (const id of new Set(ids)) {
    if (checkAccess) {
      const { flags } = await accessibleMessage(deps, actor, id).catch(() => {
        throw invalidMessages();
      });
      current.set(id, flags);
    } else {
      const message = await deps.model.messages.get(id);
      current.set(id, message && (await deps.model.personal.flagsOf(actor.user_id, message)));
    }
  }
  return current;
}

async function locationsOf(deps: ChangeDeps, ids: number[]): Promise<Map<number, MessageLocation>> {
  const locations = new Map<number, MessageLocation>();
  for (const message of await deps.model.messages.getMany(ids)) {
    locations.set(
      message._id,
      message.recipient.type === 'channel'
        ? { type: 'channel', channel_id: message.recipient.channel_id, topic: message.recipient.topic }
        : { type: 'direct', user_ids: message.recipient.users.map((u) => u.id) },
    );
  }
  return locations;
}

export async function markTopicAsRead(deps: ChangeDeps, actor: Actor, channelId: number, topicName: string) {
  const channel = await deps.directory.channelById(channelId);
  if (!(await channelAccessOf(deps.directory, actor, channel)).seeMetadata) throw badRequest('Invalid channel ID');
  const topic = normalizeTopic(topicName);
  const rows = await scanPersonalPlaces(deps.model, actor.user_id, { unread: true, channel_id: channelId, topic_lc: topic.toLowerCase() }, {}, 1, Number.POSITIVE_INFINITY);
  const unread = rows.map((r) => r.message_id);
  return (await updateFlags(deps, actor, { messages: unread, op: 'add', flag: 'read' }, false)).position;
}

export async function updateUserTopic(deps: ChangeDeps, actor: Actor, params: UserTopicParams) {
  const channel = await deps.directory.channelById(params.channel_id);
  if (!channel || !(await channelAccessOf(deps.directory, actor, channel)).setTopicVisibility) throw badRequest('Invalid channel ID');
  const topic = normalizeTopic(params.topic);
  const command = { user_id: actor.user_id, channel_id: channel._id, topic, visibility_policy: params.visibility_policy, now: Date.now() };
  const { append } = await deps.userTopicStreams.execute(streams.userTopics(actor.user_id), (state) => ({
    facts: decideUserTopic(visibilityPolicyOf(state, command.channel_id, topic), command),
    result: undefined,
  }));
  return lastPosition(append);
}
