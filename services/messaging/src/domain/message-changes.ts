/**
 * Deciders for changes to messages that exist: reactions, edits and moves, deletion,
 * personal flags and topic visibility. Pure: the message as it stands, the actor, the
 * clock and the resolved targets come in with the command.
 */
import {
  badRequest,
  EDITABLE_FLAGS,
  LIMITS,
  VISIBILITY_POLICY,
  type ChannelGroupSettingName,
  type ChannelGroupSettings,
  type Fact,
  type FactOf,
  type GroupMember,
  WIDGET_MSG_TYPE,
} from '@teamchat/contracts';
import {
  codePointLength,
  exemptFromMoveLimits,
  hasChannelPermission,
  isAdministrator,
  orgAllows,
  ORGANIZATION_POLICY,
  type GroupDirectory,
  type OrganizationPolicy,
} from '@teamchat/policies';
import { normalizeTopic } from './topics';
import { checkWidgetSubmessage, evolveWidget, initialWidgetState, type WidgetState } from './widgets';

/** What a message's own stream says: enough to refuse duplicate reactions, late changes and submessages its widget does not take. */
export interface MessageState {
  deleted: boolean;
  /** `${user_id}:${reaction_type}:${emoji_code}` */
  reactions: Set<string>;
  /** The poll or to-do list it was sent with, as its submessages left it; null: none. */
  widget: WidgetState | null;
}

export const initialMessage = (): MessageState => ({ deleted: false, reactions: new Set(), widget: null });

const reactionKey = (r: { user_id: number; reaction_type: string; emoji_code: string }) =>
  `${r.user_id}:${r.reaction_type}:${r.emoji_code}`;

export function evolveMessage(state: MessageState, fact: Fact): MessageState {
  switch (fact.type) {
    case 'MessageSent':
      return { ...state, widget: initialWidgetState(fact) };
    case 'SubmessageAdded':
      return state.widget ? { ...state, widget: evolveWidget(state.widget, fact) } : state;
    case 'ReactionAdded':
      return { ...state, reactions: new Set(state.reactions).add(reactionKey(fact)) };
    case 'ReactionRemoved': {
      const reactions = new Set(state.reactions);
      reactions.delete(reactionKey(fact));
      return { ...state, reactions };
    }
    case 'MessageDeleted':
      return { ...state, deleted: true };
    default:
      return state;
  }
}

export interface ReactionCommand {
  op: 'add' | 'remove';
  message_id: number;
  user_id: number;
  emoji: { emoji_name: string; emoji_code: string; reaction_type: 'unicode_emoji' | 'realm_emoji' | 'service_extra_emoji' };
  audience_user_ids: number[];
}

export function decideReaction(state: MessageState, cmd: ReactionCommand): Fact[] {
  if (state.deleted) throw badRequest('Invalid message(s)');
  const exists = state.reactions.has(reactionKey({ user_id: cmd.user_id, ...cmd.emoji }));
  if (cmd.op === 'add' && exists) throw badRequest('Reaction already exists.');
  if (cmd.op === 'remove' && !exists) throw badRequest("Reaction doesn't exist.");
  return [
    {
      type: cmd.op === 'add' ? 'ReactionAdded' : 'ReactionRemoved',
      message_id: cmd.message_id,
      user_id: cmd.user_id,
      ...cmd.emoji,
      audience_user_ids: cmd.audience_user_ids,
    },
  ];
}

export interface SubmessageCommand {
  message_id: number;
  sender_id: number;
  msg_type: string;
  content: string;
  audience_user_ids: number[];
}

/**
 * A submessage on a message the sender may see (checked by the caller): only on a message
 * sent with a widget, of type "widget", with content that widget takes.
 */
export function decideSubmessage(state: MessageState, cmd: SubmessageCommand): Fact[] {
  if (state.deleted) throw badRequest('Invalid message(s)');
  if (cmd.msg_type !== WIDGET_MSG_TYPE) throw badRequest(`Invalid msg_type: only "${WIDGET_MSG_TYPE}" submessages exist`);
  // Zulip lets only the message's sender attach the first submessage; here a widget is
  // made only when sending, so a message without one takes no submessage from anyone.
  if (!state.widget) throw badRequest('You cannot attach a submessage to this message.');
  checkWidgetSubmessage(state.widget, cmd.sender_id, cmd.content);
  return [
    {
      type: 'SubmessageAdded',
      message_id: cmd.message_id,
      sender_id: cmd.sender_id,
      msg_type: cmd.msg_type,
      content: cmd.content,
      audience_user_ids: cmd.audience_user_ids,
    },
  ];
}

/** The message as the read model shows it now (location included, after earlier moves). */
export interface MessageSnapshot {
  id: number;
  sender_id: number;
  timestamp: number;
  channel_id: number | null;
  /** Channel name and recipient id where the message is now (channel messages). */
  channel_name: string | null;
  recipient_id: number;
  topic: string | null;
  content: string;
  rendered_content: string;
}

export type EditActor = GroupMember;

/** The group-settings of a channel that grant moving, deleting and posting there. */
export type ChannelGrants = Pick<
  ChannelGroupSettings,
  | 'can_administer_channel_group'
  | 'can_move_messages_within_channel_group'
  | 'can_move_messages_out_of_channel_group'
  | 'can_delete_own_message_group'
  | 'can_delete_any_message_group'
  | 'can_send_message_group'
>;

const granted = (grants: ChannelGrants, setting: ChannelGroupSettingName & keyof ChannelGrants, actor: EditActor, nowSeconds: number, groups: GroupDirectory) =>
  hasChannelPermission({ ...grants, creator_id: null }, setting, actor, nowSeconds, groups);

/** Organization administrators and the channel's own administrators (Zulip's channel administration). */
const administers = (grants: ChannelGrants, actor: EditActor, nowSeconds: number, groups: GroupDirectory) =>
  isAdministrator(actor.role) || granted(grants, 'can_administer_channel_group', actor, nowSeconds, groups);

/** Zulip's `can_move_messages_within_channel`: the channel's grant (the organization's is checked apart). */
const mayMoveWithin = (grants: ChannelGrants | null | undefined, actor: EditActor, nowSeconds: number, groups: GroupDirectory) =>
  !!grants && (administers(grants, actor, nowSeconds, groups) || granted(grants, 'can_move_messages_within_channel_group', actor, nowSeconds, groups));

/** Zulip's `can_move_messages_out_of_channel`: the organization's setting or the channel's grant. */
const mayMoveOut = (policy: OrganizationPolicy, grants: ChannelGrants | null, actor: EditActor, nowSeconds: number, groups: GroupDirectory) =>
  orgAllows(policy.canMoveMessagesBetweenChannelsGroup, actor, nowSeconds, groups) ||
  (!!grants && (administers(grants, actor, nowSeconds, groups) || granted(grants, 'can_move_messages_out_of_channel_group', actor, nowSeconds, groups)));

export interface EditCommand {
  actor: EditActor;
  message: MessageSnapshot;
  /** New content, rendered, with the mentions it makes; absent when unchanged. */
  content?: {
    content: string;
    rendered_content: string;
    is_me_message: boolean;
    mentioned_user_ids: number[];
    wildcard_mentioned_user_ids: number[];
    alert_word_user_ids: number[];
  };
  /** Requested topic (raw); absent when unchanged. */
  topic?: string;
  /** The grants of the channel the message is in; null for a direct message. */
  source_grants: ChannelGrants | null;
  /** Destination channel, resolved; absent when unchanged. */
  channel?: { id: number; name: string; recipient_id: number; grants: ChannelGrants };
  propagate_mode: 'change_one' | 'change_later' | 'change_all';
  /** For a move: the ids the propagate mode selects (the edited message included). */
  moved_message_ids: number[];
  /** For a channel move: holders who may not see the messages in the destination. */
  revoked_user_ids?: number[];
  /** The requested topic's links, when the topic changes. */
  topic_links?: { text: string; url: string }[];
  audience_user_ids: number[];
  /** The custom user groups as messaging projects them (the grants may name them). */
  groups: GroupDirectory;
  now: number;
  /** The organization's settings; Zulip's defaults when absent. */
  policy?: OrganizationPolicy;
}

const EDIT_LIMIT_GRACE_SECONDS = 20;

export function decideEditMessage(state: MessageState, cmd: EditCommand): FactOf<'MessageEdited'>[] {
  const { actor, message, groups } = cmd;
  const policy = cmd.policy ?? ORGANIZATION_POLICY;
  if (state.deleted) throw badRequest('Invalid message(s)');
  const nowSeconds = Math.floor(cmd.now / 1000);
  // Zulip allows 20 s beyond each limit, for the time a user spends typing the change.
  const age = nowSeconds - message.timestamp - EDIT_LIMIT_GRACE_SECONDS;

  let content: FactOf<'MessageEdited'>['content'] = null;
  if (cmd.content !== undefined) {
    // As Zulip: a widget is made once, when sending; its content never changes after.
    if (state.widget) throw badRequest('Widgets cannot be edited.');
    if (!policy.allowMessageEditing) throw badRequest('Your organization has turned off message editing.');
    if (actor.user_id !== message.sender_id) throw badRequest("You don't have permission to edit this message");
    if (age > policy.messageContentEditLimitSeconds) throw badRequest('The time limit for editing this message has passed');
    if (cmd.content.content.trim().length === 0) throw badRequest('Message must not be empty');
    if (codePointLength(cmd.content.content) > LIMITS.max_message_length) {
      throw badRequest(`Message too long (limit: ${LIMITS.max_message_length} characters)`);
    }
    if (cmd.content.content !== message.content) {
      content = { prev_content: message.content, prev_rendered_content: message.rendered_content, ...cmd.content };
    }
  }

  let move: FactOf<'MessageEdited'>['move'] = null;
  if (cmd.topic !== undefined || cmd.channel !== undefined) {
    if (message.channel_id === null || message.topic === null) {
      throw badRequest(cmd.channel !== undefined ? 'Direct messages cannot be moved to channels.' : 'Direct messages cannot have topics.');
    }
    const topic = cmd.topic !== undefined ? normalizeTopic(cmd.topic) : message.topic;
    const channelChanged = cmd.channel !== undefined && cmd.channel.id !== message.channel_id;
    const topicChanged = topic !== message.topic;
    if (channelChanged && content) throw badRequest('Cannot change message content while changing channel');
    if (channelChanged) {
      if (!mayMoveOut(policy, cmd.source_grants, actor, nowSeconds, groups)) throw badRequest("You don't have permission to move this message");
      if (!granted(cmd.channel!.grants, 'can_send_message_group', actor, nowSeconds, groups)) {
        throw badRequest('You do not have permission to post in this channel.');
      }
      if (!exemptFromMoveLimits(actor.role) && age > policy.moveMessagesBetweenChannelsLimitSeconds) {
        throw badRequest("The time limit for editing this message's channel has passed");
      }
    }
    if (topicChanged) {
      // The organization's setting, or either channel's grant (Zulip's `can_edit_topic`).
      const mayMove =
        orgAllows(policy.canMoveMessagesBetweenTopicsGroup, actor, nowSeconds, groups) ||
        mayMoveWithin(cmd.source_grants, actor, nowSeconds, groups) ||
        (channelChanged && mayMoveWithin(cmd.channel?.grants, actor, nowSeconds, groups));
      if (!mayMove) throw badRequest("You don't have permission to edit this message");
      if (!exemptFromMoveLimits(actor.role) && age > policy.moveMessagesWithinChannelLimitSeconds) {
        throw badRequest("The time limit for editing this message's topic has passed.");
      }
    }
    if (channelChanged || topicChanged) {
      move = {
        prev_channel_id: message.channel_id,
        channel_id: cmd.channel?.id ?? message.channel_id,
        channel_name: cmd.channel?.name ?? message.channel_name ?? '',
        prev_topic: message.topic,
        topic,
        propagate_mode: cmd.propagate_mode,
        message_ids: [...new Set([...cmd.moved_message_ids, message.id])].sort((a, b) => a - b),
        recipient_id: cmd.channel?.recipient_id ?? message.recipient_id,
        revoked_user_ids: channelChanged ? [...(cmd.revoked_user_ids ?? [])].sort((a, b) => a - b) : [],
        ...(topicChanged && cmd.topic_links?.length ? { topic_links: cmd.topic_links } : {}),
      };
    }
  }

  if (!content && !move) throw badRequest('Nothing to change');
  return [
    {
      type: 'MessageEdited',
      message_id: message.id,
      editor_id: actor.user_id,
      timestamp: nowSeconds,
      content,
      move,
      audience_user_ids: cmd.audience_user_ids,
    },
  ];
}

export function decideDeleteMessage(
  state: MessageState,
  cmd: {
    actor: EditActor;
    message: MessageSnapshot;
    /** The grants of the channel the message is in; null for a direct message. */
    grants: ChannelGrants | null;
    audience_user_ids: number[];
    /** The custom user groups as messaging projects them (the grants may name them). */
    groups: GroupDirectory;
    now: number;
    /** The organization's settings; Zulip's defaults when absent. */
    policy?: OrganizationPolicy;
  },
): Fact[] {
  if (state.deleted) throw badRequest('Invalid message(s)');
  const { actor, message, grants, groups } = cmd;
  const policy = cmd.policy ?? ORGANIZATION_POLICY;
  const nowSeconds = Math.floor(cmd.now / 1000);
  // The organization's or the channel's permission (Zulip's `validate_can_delete_message`);
  // deleting anyone's message knows no time limit.
  const mayDeleteAny =
    orgAllows(policy.canDeleteAnyMessageGroup, actor, nowSeconds, groups) || (!!grants && granted(grants, 'can_delete_any_message_group', actor, nowSeconds, groups));
  if (!mayDeleteAny) {
    const mayDeleteOwn =
      orgAllows(policy.canDeleteOwnMessageGroup, actor, nowSeconds, groups) || (!!grants && granted(grants, 'can_delete_own_message_group', actor, nowSeconds, groups));
    if (actor.user_id !== message.sender_id || !mayDeleteOwn) throw badRequest("You don't have permission to delete this message");
    const limit = policy.messageContentDeleteLimitSeconds;
    if (limit !== null && nowSeconds - message.timestamp > limit) {
      throw badRequest('The time limit for deleting this message has passed');
    }
  }
  return [
    {
      type: 'MessageDeleted',
      message_id: message.id,
      deleted_by: actor.user_id,
      channel_id: message.channel_id,
      topic: message.topic,
      audience_user_ids: cmd.audience_user_ids,
    },
  ];
}

const READ_ONLY_FLAGS = new Set(['mentioned', 'wildcard_mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'has_alert_word', 'historical']);

export function checkEditableFlag(flag: string): (typeof EDITABLE_FLAGS)[number] {
  if ((EDITABLE_FLAGS as readonly string[]).includes(flag)) return flag as (typeof EDITABLE_FLAGS)[number];
  if (READ_ONLY_FLAGS.has(flag)) throw badRequest(`Flag not editable: '${flag}'`);
  throw badRequest(`Invalid flag: '${flag}'`);
}

/** Where a message is, as clients that put it back among their unreads need it. */
export type MessageLocation = { type: 'channel'; channel_id: number; topic: string } | { type: 'direct'; user_ids: number[] };

/**
 * Changes one flag on messages the user may access. `current` holds each message's flags
 * for the user (absent: a message from channel history the user never received, which
 * counts as read). Returns no fact when nothing would change. With `locations`, messages
 * marked unread carry where they are (and whether they mention the user), for clients
 * that put them back in their unread counts.
 */
export function decideFlags(cmd: {
  user_id: number;
  op: 'add' | 'remove';
  flag: string;
  message_ids: number[];
  current: Map<number, readonly string[] | undefined>;
  locations?: Map<number, MessageLocation>;
}): FactOf<'MessageFlagsUpdated'>[] {
  const flag = checkEditableFlag(cmd.flag);
  const changed = [...new Set(cmd.message_ids)]
    .filter((id) => {
      const flags = cmd.current.get(id) ?? ['read', 'historical'];
      // Unread is personal: a message the user never received cannot be marked unread.
      if (flag === 'read' && cmd.op === 'remove' && cmd.current.get(id) === undefined) return false;
      return flags.includes(flag) !== (cmd.op === 'add');
    })
    .sort((a, b) => a - b);
  if (changed.length === 0) return [];
  const fact: FactOf<'MessageFlagsUpdated'> = { type: 'MessageFlagsUpdated', user_id: cmd.user_id, op: cmd.op, flag, message_ids: changed };
  if (flag !== 'read' || cmd.op !== 'remove' || !cmd.locations) return [fact];
  const details: NonNullable<FactOf<'MessageFlagsUpdated'>['message_details']> = {};
  for (const id of changed) {
    const location = cmd.locations.get(id);
    if (!location) continue;
    const own = cmd.current.get(id) ?? [];
    const mentioned = own.includes('mentioned') || own.includes('wildcard_mentioned');
    details[String(id)] = mentioned ? { ...location, mentioned } : location;
  }
  return [{ ...fact, message_details: details }];
}

export function decideUserTopic(
  current: number,
  cmd: { user_id: number; channel_id: number; topic: string; visibility_policy: number; now: number },
): FactOf<'UserTopicUpdated'>[] {
  if (!Object.values(VISIBILITY_POLICY).includes(cmd.visibility_policy as 0)) {
    throw badRequest(`Invalid visibility_policy ${cmd.visibility_policy}`);
  }
  if (current === cmd.visibility_policy) return [];
  return [
    {
      type: 'UserTopicUpdated',
      user_id: cmd.user_id,
      channel_id: cmd.channel_id,
      topic: cmd.topic,
      visibility_policy: cmd.visibility_policy,
      last_updated: Math.floor(cmd.now / 1000),
    },
  ];
}

/**
 * The sender's automatic topic visibility change (Zulip's defaults: follow topics you
 * start; unmute topics you send to in muted channels). Returns the new policy, or null
 * when nothing changes.
 */
/**
 * Whether the sender's topic visibility may change automatically at all: when not, no
 * current policy needs loading (most messages neither start a topic nor go to a muted
 * channel).
 */
export const visibilityMayChangeAutomatically = (cmd: { startsTopic: boolean; channelMuted: boolean }): boolean =>
  cmd.startsTopic || cmd.channelMuted;

export function automaticVisibilityPolicy(cmd: { current: number; startsTopic: boolean; channelMuted: boolean }): number | null {
  if (cmd.startsTopic && cmd.current !== VISIBILITY_POLICY.followed) return VISIBILITY_POLICY.followed;
  if (cmd.channelMuted && cmd.current === VISIBILITY_POLICY.inherit) return VISIBILITY_POLICY.unmuted;
  return null;
}
