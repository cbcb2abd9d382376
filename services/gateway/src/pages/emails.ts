/**
 * GET /emails, development mode only (like Zulip's development page of the same name):
 * the messages the server "sent" into the outbox, newest first, with subject, recipient
 * and body, and every link in a body clickable, so that an invitation can be followed
 * in a browser without a mail server. Served outside /api/v1: it is a page for a person,
 * not an API endpoint.
 *
 * It reads the outbox directory itself, which only a gateway sharing the data directory
 * with the services can; the composition root passes the directory only in development
 * mode with the outbox transport, and otherwise the path does not exist (404).
 */
import { readOutbox, type OutboxEntry } from '@teamchat/platform';
import type { FastifyInstance, onRequestAsyncHookHandler } from 'fastify';

export const EMAILS_PAGE_PATH = '/emails';

/** How many of the newest messages the page shows. */
const LISTED = 100;

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

/**
 * The body as HTML: escaped, with each http(s) URL made a link. Trailing punctuation
 * stays outside the link, as a sentence ending in a URL means.
 */
export function linkify(text: string): string {
  const parts: string[] = [];
  let last = 0;
  for (const match of text.matchAll(/https?:\/\/[^\s<>"']+/g)) {
    const url = match[0].replace(/[.,;:!?)\]]+$/, '');
    parts.push(escapeHtml(text.slice(last, match.index)));
    parts.push(`<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`);
    last = match.index + url.length;
  }
  parts.push(escapeHtml(text.slice(last)));
  return parts.join('');
}

function renderEntry(entry: OutboxEntry): string {
  return [
    `<article class="email" id="email-${escapeHtml(entry.id)}">`,
    `<h2 class="subject">${escapeHtml(entry.subject)}</h2>`,
    '<dl>',
    `<dt>To</dt><dd class="to">${escapeHtml(entry.to)}</dd>`,
    `<dt>From</dt><dd class="from">${escapeHtml(entry.from)}</dd>`,
    `<dt>Date</dt><dd class="date"><time datetime="${escapeHtml(entry.date)}">${escapeHtml(entry.date)}</time></dd>`,
    '</dl>',
    `<pre class="body">${linkify(entry.text)}</pre>`,
    '</article>',
  ].join('\n');
}

export function renderEmailsPage(entries: readonly OutboxEntry[]): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<title>Sent emails (development)</title>',
    '<style>body{font-family:sans-serif;max-width:50em;margin:1em auto;padding:0 1em}',
    'article{border:1px solid #ccc;border-radius:4px;padding:0 1em;margin:1em 0}',
    'dl{display:grid;grid-template-columns:max-content auto;gap:0 1em}dt{font-weight:bold}dd{margin:0}',
    'pre{white-space:pre-wrap;word-break:break-word}</style>',
    '</head>',
    '<body>',
    '<h1>Sent emails</h1>',
    `<p>The development server writes every email to its outbox instead of sending it; the newest ${LISTED} are listed here, newest first.</p>`,
    entries.length === 0 ? '<p class="empty">No email has been sent yet.</p>' : entries.map(renderEntry).join('\n'),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

export function registerEmailsPage(app: FastifyInstance, outboxDir: string, onRequest: onRequestAsyncHookHandler): void {
  app.route({
    method: 'GET',
    url: EMAILS_PAGE_PATH,
    onRequest,
    handler: async (_request, reply) => {
      const entries = await readOutbox(outboxDir, LISTED);
      return reply
        .type('text/html; charset=utf-8')
        // The page shows what arrives by email: no script runs on it, nothing frames it.
        .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
        .header('Cache-Control', 'no-store')
        .send(renderEmailsPage(entries));
    },
  });
}
