/**
 * User, wildcard and user-group mentions: `@**Full Name**`, `@**Name|12**`, `@**|12**`,
 * `@_**Name**` (silent), `@**all**`, `@**topic**`, `@*group*`, `@_*group*`.
 *
 * A mention that resolves to nothing is not consumed, so the rest of the syntax renders as
 * ordinary Markdown (`@**Nobody**` → `@<strong>Nobody</strong>`), exactly as Zulip does.
 */
import type MarkdownIt from 'markdown-it';
import type { MentionableUser, RenderContext } from '../types';
import { envOf, escapeHtml, startsAfterBoundary } from './env';

const CHANNEL_WILDCARDS = new Set(['all', 'everyone', 'channel', 'stream']);
const TOPIC_WILDCARDS = new Set(['topic']);

// Zulip's BEFORE_MENTION_ALLOWED_REGEX: so that e-mail addresses and words never mention.
const ALLOWED_BEFORE = /[\s'"({[/<]/;
const USER_MENTION = /@(_?)\*\*([^*\n]+)\*\*/y;
const GROUP_MENTION = /@(_?)\*([^*\n]+)\*/y;
const ID_SYNTAX = /^(.+)?\|(\d+)$/s;

export type UserMentionMeta =
  | { kind: 'user'; userId: number; name: string; silent: boolean }
  | { kind: 'channel_wildcard'; name: string; silent: boolean }
  | { kind: 'topic_wildcard'; name: string; silent: boolean };

export interface GroupMentionMeta {
  groupId: number;
  name: string;
  silent: boolean;
}

function resolveUser(ctx: RenderContext, text: string): MentionableUser | undefined {
  const idSyntax = ID_SYNTAX.exec(text);
  if (!idSyntax) return ctx.userByName(text);
  const user = ctx.userById(Number(idSyntax[2]));
  // `@**Alice|12**` where 12 is Bob must not mention Bob: the name has to agree.
  if (user && idSyntax[1] !== undefined && user.full_name !== idSyntax[1]) return undefined;
  return user;
}

function resolveUserMention(ctx: RenderContext, text: string, silent: boolean): UserMentionMeta | undefined {
  if (CHANNEL_WILDCARDS.has(text)) return { kind: 'channel_wildcard', name: text, silent };
  if (TOPIC_WILDCARDS.has(text)) return { kind: 'topic_wildcard', name: text, silent };
  const user = resolveUser(ctx, text);
  if (!user) return undefined;
  // Deactivated users still render as a mention but are never notified.
  return { kind: 'user', userId: user.id, name: user.full_name, silent: silent || !user.is_active };
}

function matchAt(re: RegExp, state: MarkdownIt.StateInline): RegExpExecArray | null {
  re.lastIndex = state.pos;
  const match = re.exec(state.src);
  return match && state.pos + match[0].length <= state.posMax ? match : null;
}

function mentionRule(state: MarkdownIt.StateInline, silent: boolean): boolean {
  const ctx = envOf(state).ctx;
  if (!ctx || state.src.charCodeAt(state.pos) !== 0x40 /* @ */) return false;
  if (!startsAfterBoundary(state.src, state.pos, ALLOWED_BEFORE)) return false;

  const user = matchAt(USER_MENTION, state);
  if (user) {
    const meta = resolveUserMention(ctx, user[2]!, user[1] === '_');
    if (!meta) return false;
    if (!silent) {
      const token = state.push('zulip_user_mention', 'span', 0);
      token.meta = meta;
      token.markup = user[0];
    }
    state.pos += user[0].length;
    return true;
  }

  const group = matchAt(GROUP_MENTION, state);
  if (group) {
    const found = ctx.groupByName(group[2]!);
    if (!found) return false;
    if (!silent) {
      const token = state.push('zulip_group_mention', 'span', 0);
      token.meta = { groupId: found.id, name: found.name, silent: group[1] === '_' } satisfies GroupMentionMeta;
      token.markup = group[0];
    }
    state.pos += group[0].length;
    return true;
  }
  return false;
}

function renderUserMention(meta: UserMentionMeta): string {
  const text = escapeHtml(meta.silent ? meta.name : `@${meta.name}`);
  const silentClass = meta.silent ? ' silent' : '';
  switch (meta.kind) {
    case 'user':
      return `<span class="user-mention${silentClass}" data-user-id="${meta.userId}">${text}</span>`;
    case 'channel_wildcard':
      return `<span class="user-mention channel-wildcard-mention${silentClass}" data-user-id="*">${text}</span>`;
    case 'topic_wildcard':
      return `<span class="topic-mention${silentClass}">${text}</span>`;
  }
}

function renderGroupMention(meta: GroupMentionMeta): string {
  const text = escapeHtml(meta.silent ? meta.name : `@${meta.name}`);
  const silentClass = meta.silent ? ' silent' : '';
  return `<span class="user-group-mention${silentClass}" data-user-group-id="${meta.groupId}">${text}</span>`;
}

export function mentionsPlugin(md: MarkdownIt): void {
  md.inline.ruler.before('emphasis', 'zulip_mention', mentionRule);
  md.renderer.rules['zulip_user_mention'] = (tokens, idx) => renderUserMention(tokens[idx]!.meta as UserMentionMeta);
  md.renderer.rules['zulip_group_mention'] = (tokens, idx) =>
    renderGroupMention(tokens[idx]!.meta as GroupMentionMeta);
}
