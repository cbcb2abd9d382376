/**
 * Rendering message content with what it mentions. The markdown renderer is pure and
 * synchronous; the names it may meet (`@**Name**`, `#**channel**`) are looked up in the
 * directory first, and the renderer is given just those.
 */
import type { Directory } from '@teamchat/directory';
import { renderMessage, type LinkableChannel, type MentionableUser } from '@teamchat/markdown';

export interface Rendered {
  html: string;
  wildcard: 'channel' | 'topic' | null;
  /** Mentioned recipients (mentions of people who do not receive the message flag nobody). */
  mentioned_user_ids: number[];
  /** Recipients reached by a wildcard mention, the sender excepted. */
  wildcard_mentioned_user_ids: number[];
}

export interface RenderAudience {
  sender_id: number;
  recipient_user_ids: number[];
  /** For a topic wildcard: who took part in the topic. */
  topic_participant_ids?: number[];
}

export interface Renderer {
  render(content: string, audience: RenderAudience): Promise<Rendered>;
}

const USER_MENTION = /@_?\*\*([^*]+?)\*\*/g;
const CHANNEL_LINK = /#\*\*([^*>]+?)(?:>[^*]*)?\*\*/g;

export function createRenderer(directory: Directory, realmUrl: string): Renderer {
  return {
    async render(content, audience) {
      const users = new Map<string, MentionableUser[]>();
      const usersById = new Map<number, MentionableUser>();
      const channels = new Map<string, LinkableChannel>();
      for (const [, raw] of content.matchAll(USER_MENTION)) {
        const [name, idText] = raw!.split('|');
        const key = name!.trim().toLowerCase();
        if (!users.has(key)) {
          const found = (await directory.usersByFullName(key)).map((u) => ({ id: u._id, full_name: u.full_name, email: u.email, is_active: u.is_active }));
          users.set(key, found);
          for (const u of found) usersById.set(u.id, u);
        }
        if (idText && /^\d+$/.test(idText)) {
          const user = await directory.userById(Number(idText));
          if (user) usersById.set(user._id, { id: user._id, full_name: user.full_name, email: user.email, is_active: user.is_active });
        }
      }
      for (const [, name] of content.matchAll(CHANNEL_LINK)) {
        const channel = await directory.channelByName(name!.trim());
        // Only public channels become links: a link would show a private channel's id and
        // name to readers who may not know it.
        if (channel && !channel.invite_only) channels.set(channel.name.toLowerCase(), { id: channel._id, name: channel.name });
      }
      const result = renderMessage(content, {
        userByName: (name) => {
          const found = users.get(name.toLowerCase()) ?? [];
          return found.length === 1 ? found[0] : undefined;
        },
        userById: (id) => usersById.get(id),
        groupByName: () => undefined,
        channelByName: (name) => channels.get(name.toLowerCase()),
        realmUrl,
      });
      const recipients = new Set(audience.recipient_user_ids);
      const wildcardTargets =
        result.wildcard === 'channel'
          ? audience.recipient_user_ids
          : result.wildcard === 'topic'
            ? (audience.topic_participant_ids ?? []).filter((id) => recipients.has(id))
            : [];
      return {
        html: result.html,
        wildcard: result.wildcard,
        mentioned_user_ids: result.mentionedUserIds.filter((id) => recipients.has(id)),
        wildcard_mentioned_user_ids: wildcardTargets.filter((id) => id !== audience.sender_id),
      };
    },
  };
}
