/**
 * The Message object of the API, built from a neutral view of a stored message. Both
 * GET /messages and the `message` event use it, so a message looks the same however a
 * client receives it.
 */
import { avatarUrlOf, gravatarUrl, type AvatarState, type AvatarUrls } from './avatars';
import type { ApiMessage } from './client-events';
import type { FactOf } from './facts';
import { EMPTY_TOPIC_DISPLAY_NAME } from './limits';
import type { MessageSubmessage } from './widgets';

export interface MessageView {
  id: number;
  sender_id: number;
  sender_email: string;
  sender_full_name: string;
  recipient:
    | { type: 'channel'; channel_id: number; channel_name: string; topic: string }
    | { type: 'direct'; users: { id: number; email: string; full_name: string; is_mirror_dummy: boolean }[] };
  recipient_id: number;
  content: string;
  rendered_content: string;
  client: string;
  timestamp: number;
  is_me_message: boolean;
  /** Oldest first. */
  reactions?: MessageReaction[];
  /** The widget's submessages, oldest first; absent: none. */
  submessages?: MessageSubmessage[];
  /** Newest first; empty or absent when never edited or moved. */
  edit_history?: EditHistoryEntry[];
  last_edit_timestamp?: number | null;
  last_moved_timestamp?: number | null;
  /** Links found in the topic; absent: none. */
  topic_links?: { text: string; url: string }[];
}

export interface MessageReaction {
  emoji_name: string;
  emoji_code: string;
  reaction_type: string;
  user_id: number;
}

/** One edit or move; only the aspects that changed are present. */
export interface EditHistoryEntry {
  user_id: number | null;
  timestamp: number;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_stream?: number;
  stream?: number;
  prev_topic?: string;
  topic?: string;
}

export interface MessageFormat {
  apply_markdown: boolean;
  client_gravatar: boolean;
  allow_empty_topic_name: boolean;
}

export function displayTopic(topic: string, allowEmptyTopicName: boolean): string {
  return topic === '' && !allowEmptyTopicName ? EMPTY_TOPIC_DISPLAY_NAME : topic;
}

function formatEditEntry(entry: EditHistoryEntry, allowEmptyTopicName: boolean): EditHistoryEntry {
  const formatted = { ...entry };
  if (entry.prev_topic !== undefined) formatted.prev_topic = displayTopic(entry.prev_topic, allowEmptyTopicName);
  if (entry.topic !== undefined) formatted.topic = displayTopic(entry.topic, allowEmptyTopicName);
  return formatted;
}

/**
 * `senderAvatar`: the sender's avatar where they changed it (absent: the provider's, from
 * `avatarUrl`, which renderers cache by address).
 */
export function formatMessage(view: MessageView, format: MessageFormat, avatarUrl: AvatarUrls = gravatarUrl, senderAvatar?: AvatarState): ApiMessage {
  const channel = view.recipient.type === 'channel' ? view.recipient : null;
  // One object literal with a fixed shape (no spreads): this runs for every message of
  // every GET /messages page and every event.
  const message: ApiMessage = {
    id: view.id,
    sender_id: view.sender_id,
    sender_email: view.sender_email,
    sender_full_name: view.sender_full_name,
    sender_realm_str: 'zulip',
    // A client that computes gravatars itself gets null unless the sender uploaded one, as the spec allows.
    avatar_url:
      format.client_gravatar && senderAvatar?.avatar_source !== 'U'
        ? null
        : senderAvatar
          ? avatarUrlOf(view.sender_email, senderAvatar)
          : avatarUrl(view.sender_email),
    client: view.client,
    content: format.apply_markdown ? view.rendered_content : view.content,
    content_type: format.apply_markdown ? 'text/html' : 'text/x-markdown',
    recipient_id: view.recipient_id,
    timestamp: view.timestamp,
    is_me_message: view.is_me_message,
    reactions: view.reactions ?? [],
    submessages: view.submessages ?? [],
    topic_links: view.topic_links ? view.topic_links.map((link) => ({ text: link.text, url: link.url })) : [],
    type: channel ? 'stream' : 'private',
    display_recipient: channel ? channel.channel_name : (view.recipient as Extract<MessageView['recipient'], { type: 'direct' }>).users,
    subject: channel ? displayTopic(channel.topic, format.allow_empty_topic_name) : '',
  };
  if (channel) message.stream_id = channel.channel_id;
  if (view.edit_history?.length) {
    message.edit_history = view.edit_history.map((entry) => formatEditEntry(entry, format.allow_empty_topic_name));
  }
  if (view.last_edit_timestamp) message.last_edit_timestamp = view.last_edit_timestamp;
  if (view.last_moved_timestamp) message.last_moved_timestamp = view.last_moved_timestamp;
  return message;
}

/** A recipient's flags on a message as it arrives: the same in history and in events. */
export function initialMessageFlags(fact: FactOf<'MessageSent'>, userId: number): string[] {
  const flags: string[] = [];
  if ((userId === fact.sender_id && fact.read_by_sender) || fact.muted_sender_user_ids?.includes(userId)) flags.push('read');
  if (fact.mentioned_user_ids.includes(userId)) flags.push('mentioned');
  if (fact.wildcard_mentioned_user_ids.includes(userId)) flags.push('wildcard_mentioned');
  if (fact.alert_word_user_ids?.includes(userId)) flags.push('has_alert_word');
  return flags;
}
