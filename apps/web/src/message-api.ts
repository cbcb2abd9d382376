/**
 * What a person may do to a message, and the requests that do it. The offers follow the
 * organization's rules in the registration (editing allowed, the edit window, the groups
 * that may move messages and their windows) so that the menu shows only what should
 * succeed; the server still decides, and its refusal is shown in words where it happened.
 */
import type { FeedMessage } from '@teamchat/client-model';
import type { MessageHistoryEntry } from '@teamchat/contracts';
import { json } from './api';
import type { ClientStore } from './store';

export interface Emoji {
  emoji_name: string;
  emoji_code: string;
  reaction_type: 'unicode_emoji' | 'realm_emoji' | 'zulip_extra_emoji';
}

export const messageApi = {
  addReaction: (id: number, emoji: Emoji) => json<unknown>('POST', `/messages/${id}/reactions`, { ...emoji }),
  removeReaction: (id: number, emoji: Emoji) => json<unknown>('DELETE', `/messages/${id}/reactions`, { ...emoji }),
  /** Content, topic or channel: what is absent is not changed. */
  update: (id: number, change: { content?: string; topic?: string; stream_id?: number; propagate_mode?: 'change_one' | 'change_later' | 'change_all' }) =>
    json<unknown>('PATCH', `/messages/${id}`, change),
  remove: (id: number) => json<unknown>('DELETE', `/messages/${id}`),
  star: (id: number, starred: boolean) => json<unknown>('POST', '/messages/flags', { messages: [id], op: starred ? 'add' : 'remove', flag: 'starred' }),
  /** The message as its sender typed it (Markdown), for editing and quoting. */
  raw: async (id: number) => {
    const reply = await json<{ message: { content: string }; raw_content?: string }>('GET', `/messages/${id}`, { apply_markdown: false });
    return reply.raw_content ?? reply.message.content;
  },
  history: (id: number) => json<{ message_history: MessageHistoryEntry[] }>('GET', `/messages/${id}/history`),
};

type GroupValue = number | { direct_members?: number[]; direct_subgroups?: number[] };
interface UserGroup {
  id: number;
  members: number[];
  direct_subgroup_ids?: number[];
}

/** Whether `self` is in a group-setting's value (a group's id, or an anonymous group); unknown answers yes (the server decides). */
export function inGroup(store: ClientStore, value: unknown, self = store.self): boolean {
  if (value === undefined || value === null) return true;
  const groups = store.state.realm_user_groups as UserGroup[] | undefined;
  if (!groups) return true;
  const byId = new Map(groups.map((g) => [g.id, g]));
  const seen = new Set<number>();
  const has = (id: number): boolean => {
    if (seen.has(id)) return false;
    seen.add(id);
    const group = byId.get(id);
    return !!group && (group.members.includes(self) || (group.direct_subgroup_ids ?? []).some(has));
  };
  const v = value as GroupValue;
  if (typeof v === 'number') return byId.has(v) ? has(v) : true;
  return (v.direct_members ?? []).includes(self) || (v.direct_subgroups ?? []).some(has);
}

const within = (message: FeedMessage, limit: unknown) =>
  typeof limit !== 'number' || limit <= 0 || Date.now() / 1000 - message.timestamp < limit;

function isModerator(store: ClientStore): boolean {
  return store.state.is_admin === true || store.state.is_owner === true || store.state.is_moderator === true;
}

export interface Allowed {
  editContent: boolean;
  editTopic: boolean;
  moveChannel: boolean;
  remove: boolean;
}

/** What the menu offers for a message. */
export function allowed(store: ClientStore, message: FeedMessage): Allowed {
  const s = store.state;
  const own = message.sender_id === store.self;
  const editing = s.realm_allow_message_editing !== false;
  const moderator = isModerator(store);
  const channel = message.type === 'stream';
  return {
    editContent: own && editing && within(message, s.realm_message_content_edit_limit_seconds),
    editTopic:
      channel &&
      editing &&
      ((own && within(message, s.realm_message_content_edit_limit_seconds)) ||
        (inGroup(store, s.realm_can_move_messages_between_topics_group) && (moderator || within(message, s.realm_move_messages_within_stream_limit_seconds)))),
    moveChannel: channel && inGroup(store, s.realm_can_move_messages_between_channels_group) && (moderator || within(message, s.realm_move_messages_between_streams_limit_seconds)),
    remove: moderator || (own && inGroup(store, s.realm_can_delete_own_message_group) && within(message, s.realm_message_content_delete_limit_seconds)),
  };
}

/** The link that opens the client on a message: its conversation's narrow, near it. */
export function messageLink(store: ClientStore, message: FeedMessage): string {
  // The client is served at `/` (and at /login, where a person may have landed): the link names `/`.
  const base = `${location.origin}/`;
  if (message.type === 'stream') return `${base}#narrow/channel/${message.stream_id}/topic/${encodeURIComponent(message.subject)}/near/${message.id}`;
  const others = (Array.isArray(message.display_recipient) ? message.display_recipient : []).map((u) => u.id).filter((id) => id !== store.self).sort((a, b) => a - b);
  return `${base}#narrow/dm/${others.join(',')}/near/${message.id}`;
}

/** A quote block of a message, in the Markdown the server renders, mentioning its sender. */
export function quoteOf(message: FeedMessage, raw: string, link: string): string {
  const fence = '```';
  let longest = 2;
  for (const m of raw.matchAll(/`{3,}/g)) longest = Math.max(longest, m[0].length);
  const open = fence.length > longest ? fence : '`'.repeat(longest + 1);
  return `@_**${message.sender_full_name}|${message.sender_id}** [said](${link}):\n${open}quote\n${raw}\n${open}\n`;
}
