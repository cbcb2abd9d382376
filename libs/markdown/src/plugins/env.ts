import type { RenderContext } from '../types';

/**
 * Per-render state handed to markdown-it as `env`: the lookups the inline rules resolve
 * names against, and what the final pass learns about the message.
 */
export interface RenderEnv {
  /** Absent for plain Markdown (channel descriptions): names are then never resolved. */
  ctx: RenderContext | undefined;
  /** The realm's base URL without a trailing slash; '' when unknown. */
  realmUrl: string;
  mentionedUserIds: Set<number>;
  mentionedGroupIds: Set<number>;
  wildcard: 'channel' | 'topic' | null;
  hasLink: boolean;
  hasImage: boolean;
  hasAttachment: boolean;
}

export function createEnv(ctx: RenderContext | undefined): RenderEnv {
  return {
    ctx,
    realmUrl: (ctx?.realmUrl ?? '').replace(/\/+$/, ''),
    mentionedUserIds: new Set(),
    mentionedGroupIds: new Set(),
    wildcard: null,
    hasLink: false,
    hasImage: false,
    hasAttachment: false,
  };
}

/** markdown-it types `env` as any; every render here passes a RenderEnv. */
export function envOf(state: { env: unknown }): RenderEnv {
  return state.env as RenderEnv;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Zulip's inline syntaxes only start after whitespace, an opening bracket or a quote. */
export function startsAfterBoundary(src: string, pos: number, allowed: RegExp): boolean {
  return pos === 0 || allowed.test(src.charAt(pos - 1));
}
