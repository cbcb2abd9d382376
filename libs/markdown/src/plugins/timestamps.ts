/**
 * Zulip's global times: `<time:2024-05-01T14:00:00+02:00>` or `<time:1714564800>` renders
 * a `<time>` element that clients show in each reader's own time zone.
 */
import type MarkdownIt from 'markdown-it';
import { escapeHtml } from './env';

const TIME_SYNTAX = /<time:([^>\n]*)>/y;
const UNIX_SECONDS = /^-?\d+(\.\d+)?$/;
const ISO_WITHOUT_ZONE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)?$/;
const ISO_WITH_ZONE = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * Milliseconds since the epoch, or null. Only unambiguous forms are accepted: Date.parse
 * alone would read zone-less times in the server's local zone, where Zulip reads UTC.
 */
export function parseGlobalTime(text: string): number | null {
  const value = text.trim();
  let ms: number;
  if (UNIX_SECONDS.test(value)) ms = Number(value) * 1000;
  else if (ISO_WITHOUT_ZONE.test(value)) ms = Date.parse(`${value.replace(' ', 'T')}${value.length === 10 ? 'T00:00' : ''}Z`);
  else if (ISO_WITH_ZONE.test(value)) ms = Date.parse(value.replace(' ', 'T').replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  else return null;
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? ms : null;
}

function timeRule(state: MarkdownIt.StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3c /* < */) return false;
  TIME_SYNTAX.lastIndex = state.pos;
  const match = TIME_SYNTAX.exec(state.src);
  if (!match || state.pos + match[0].length > state.posMax) return false;
  if (!silent) {
    const token = state.push('zulip_time', 'time', 0);
    token.content = match[1]!;
    token.meta = { ms: parseGlobalTime(match[1]!) };
  }
  state.pos += match[0].length;
  return true;
}

function renderTime(text: string, ms: number | null): string {
  if (ms === null) return `<span class="timestamp-error">Invalid time format: ${escapeHtml(text)}</span>`;
  const iso = new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
  return `<time datetime="${iso}">${escapeHtml(text)}</time>`;
}

export function timestampsPlugin(md: MarkdownIt): void {
  // Before autolink, which would otherwise try `<time:…>` as a URL with scheme "time".
  md.inline.ruler.before('autolink', 'zulip_time', timeRule);
  md.renderer.rules['zulip_time'] = (tokens, idx) => {
    const token = tokens[idx]!;
    return renderTime(token.content, (token.meta as { ms: number | null }).ms);
  };
}
