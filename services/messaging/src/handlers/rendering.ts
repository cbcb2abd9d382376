/**
 * Rendering message content with what it mentions. The markdown renderer is pure and
 * synchronous; the names it may meet (`@**Name**`, `#**channel**`) are looked up in the
 * directory first, and the renderer is given just those.
 */
import { badRequest, type StoredRealmEmoji } from '@teamchat/contracts';
import type { Directory, UserGroupDoc, UserGroups } from '@teamchat/directory';
import { renderMessage, type CompiledLinkifiers, type LinkableChannel, type MentionableGroup, type MentionableUser } from '@teamchat/markdown';
import { isUserInGroupSetting } from '@teamchat/policies';

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
  /** A preview (POST /messages/render): nothing is sent, so no group's can_mention_group is checked. */
  preview?: boolean;
}

export interface Renderer {
  render(content: string, audience: RenderAudience): Promise<Rendered>;
}

const USER_MENTION = /@_?\*\*([^*]+?)\*\*/g;
const GROUP_MENTION = /@_?\*([^*\n]+)\*/g;
const CHANNEL_LINK = /#\*\*([^*>]+?)(?:>[^*]*)?\*\*/g;

/**
 * `groups` is messaging's own projection of the accounts' group facts. Only active custom
 * groups can be mentioned by name; system groups (`role:…`) cannot, whose names the
 * reserved prefix keeps apart from custom ones.
 */
export function createRenderer(
  directory: Directory,
  realmUrl: string,
  groups?: Pick<UserGroups, 'snapshot'>,
  linkifiers?: { readonly compiled: CompiledLinkifiers },
  /** The organization's custom emoji (messaging's own projection of accounts' facts). */
  realmEmoji?: () => Promise<readonly StoredRealmEmoji[]>,
): Renderer {
  return {
    async render(content, audience) {
      const customEmoji = realmEmoji && content.includes(':') ? await realmEmoji() : [];
      const snapshot = groups && GROUP_MENTION.test(content) ? await groups.snapshot() : undefined;
      GROUP_MENTION.lastIndex = 0;
      const groupsByName = new Map<string, UserGroupDoc>();
      for (const doc of snapshot?.all() ?? []) if (!doc.deactivated) groupsByName.set(doc.name.toLowerCase(), doc);
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
        groupByName: (name): MentionableGroup | undefined => {
          const doc = groupsByName.get(name.toLowerCase());
          return doc && { id: doc._id, name: doc.name };
        },
        channelByName: (name) => channels.get(name.toLowerCase()),
        realmUrl,
        ...(linkifiers ? { linkifiers: linkifiers.compiled } : {}),
        // The active emoji of a name wins over deactivated ones that had it before.
        realmEmojiByName: (name) => customEmoji.find((e) => e.name === name && !e.deactivated) ?? customEmoji.find((e) => e.name === name),
      });
      const recipients = new Set(audience.recipient_user_ids);
      const wildcardTargets =
        result.wildcard === 'channel'
          ? audience.recipient_user_ids
          : result.wildcard === 'topic'
            ? (audience.topic_participant_ids ?? []).filter((id) => recipients.has(id))
            : [];
      const groupMentioned = snapshot ? await groupMentionedUserIds(directory, snapshot, result.mentionedGroupIds, audience) : [];
      return {
        html: result.html,
        wildcard: result.wildcard,
        mentioned_user_ids: [...new Set([...result.mentionedUserIds, ...groupMentioned])].filter((id) => recipients.has(id)).sort((a, b) => a - b),
        wildcard_mentioned_user_ids: wildcardTargets.filter((id) => id !== audience.sender_id),
      };
    },
  };
}

/**
 * The recipients a non-silent group mention flags: the group's members, through its
 * subgroups. The sender must be in each mentioned group's can_mention_group, or the
 * message is refused, as Zulip refuses it.
 */
async function groupMentionedUserIds(
  directory: Directory,
  snapshot: Awaited<ReturnType<UserGroups['snapshot']>>,
  groupIds: number[],
  audience: RenderAudience,
): Promise<number[]> {
  if (groupIds.length === 0) return [];
  const now = Math.floor(Date.now() / 1000);
  const asMember = (u: { _id: number; role: number; date_joined: number }) => ({ user_id: u._id, role: u.role, date_joined: u.date_joined });
  if (!audience.preview) {
    const sender = await directory.userById(audience.sender_id);
    for (const id of groupIds) {
      const group = snapshot.doc(id)!;
      if (!sender || !isUserInGroupSetting(group.can_mention_group, asMember(sender), now, snapshot)) {
        throw badRequest(`You are not allowed to mention user group '${group.name}'.`);
      }
    }
  }
  const recipients = await directory.usersByIds(audience.recipient_user_ids);
  return recipients
    .filter((user) => user.is_active && groupIds.some((id) => isUserInGroupSetting(id, asMember(user), now, snapshot)))
    .map((user) => user._id);
}
