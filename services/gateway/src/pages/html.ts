/**
 * What the gateway's account pages share (the registration page, password reset, the
 * email-change confirmation): plain server-rendered HTML without script, the headers that
 * keep a page's secret link to this site, the double-submit CSRF token, and the section
 * every page ends with: where the person logs in.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Where a person logs in, relative to the organization's address: the web client's login
 * page (pages/web-client.ts serves it). null would make pages say, instead, to use a Zulip
 * app or the API with the organization's address.
 */
export const LOGIN_PATH: string | null = '/login';

export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The organization's name and address, as accounts gives them (accounts.account_pages_info). */
export interface Realm {
  realm_name: string;
  realm_uri: string;
}

/** The closing section: a link to where the person logs in, and in words how, while there is no login page. */
export function loginSection(realm: Realm): string {
  const base = realm.realm_uri.replace(/\/$/, '');
  if (LOGIN_PATH !== null) return `<p id="login-help"><a id="login-link" href="${escapeHtml(base + LOGIN_PATH)}">Log in to ${escapeHtml(realm.realm_name || 'the organization')}</a></p>`;
  return `<section id="login-help" aria-labelledby="login-heading"><h2 id="login-heading">Logging in</h2>
<p>Open a Zulip app (mobile, desktop or terminal), add the organization at <a id="login-link" href="${escapeHtml(base)}/">${escapeHtml(base)}</a>, and log in with your email address and password.</p>
<p>From a program, use the API: <code>POST ${escapeHtml(base)}/api/v1/fetch_api_key</code> with <code>username</code> (your email address) and <code>password</code> gives your API key.</p></section>`;
}

export function page(title: string, body: string, realm?: Realm): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}label{display:block;margin-top:1rem}input{width:100%;padding:.4rem;box-sizing:border-box}button{margin-top:1.5rem;padding:.5rem 1rem}.error{color:#b00020}h2{font-size:1.1rem;margin-top:2.5rem}</style>
</head><body><main><h1>${escapeHtml(title)}</h1>
${body}
${realm ? loginSection(realm) : ''}
</main></body></html>`;
}

export function send(reply: FastifyReply, status: number, html: string, formAction = "'self'") {
  return reply
    .status(status)
    .header('content-type', 'text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .header('x-frame-options', 'DENY')
    .header('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'`)
    // A link's secret is in the path: it never leaves for another site (and same-origin, unlike no-referrer, keeps the form's Origin header, which the CSRF check reads).
    .header('referrer-policy', 'same-origin')
    .send(html);
}

export function readCookie(request: FastifyRequest, name: string): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === name) return v.join('=');
  }
  return undefined;
}

export const sameToken = (a: string | undefined, b: string) => a !== undefined && a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** An Origin header, when the browser sends one, must be this server's. */
export function sameOrigin(request: FastifyRequest): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === request.headers.host;
  } catch {
    return false;
  }
}

/** The double-submit pattern: a random token in a hidden field and in a SameSite=Strict cookie scoped to the pages' path. */
export function csrf(cookie: string, path: string) {
  return {
    issue(reply: FastifyReply): string {
      const token = randomBytes(32).toString('hex');
      reply.header('set-cookie', `${cookie}=${token}; Path=${path}; HttpOnly; SameSite=Strict`);
      return token;
    },
    clear(reply: FastifyReply) {
      reply.header('set-cookie', `${cookie}=; Path=${path}; HttpOnly; SameSite=Strict; Max-Age=0`);
    },
    /** Whether a form's token is genuine: the same as the cookie's, from this site. */
    verify(request: FastifyRequest, token: string | undefined): boolean {
      return sameOrigin(request) && token !== undefined && sameToken(readCookie(request, cookie), token);
    },
  };
}
