/**
 * The registration page an invitation's link opens (outside /api/v1): plain server-rendered
 * HTML with a form, no script. GET shows what the link is (a form for a pending invitation,
 * a clear page for an expired, revoked, used or unknown one); POST creates the account
 * through accounts' internal contract. The gateway holds no state: accounts decides.
 *
 * Cross-site request forgery: the form carries a random token that is also set as a
 * SameSite=Strict, HttpOnly cookie scoped to /join (the double-submit pattern); a POST
 * whose field and cookie differ, or whose Origin is another site's, is refused before
 * anything is sent to accounts. Form fields are checked with a schema, as API parameters.
 */
import { randomBytes } from 'node:crypto';
import { endpoints, isApiError, type InvitationStatus } from '@teamchat/contracts';
import { callContract, type Bus } from '@teamchat/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { escapeHtml, page, readCookie, sameOrigin, sameToken, send, type Realm } from '../pages/html';

const CSRF_COOKIE = 'teamchat_join_csrf';
const KEY = z.string().min(1).max(100);
/** The form as submitted: each field once, text, bounded (the service checks the rules). */
const SignupForm = z.strictObject({
  csrf_token: z.string().length(64),
  full_name: z.string().max(1000),
  password: z.string().max(1000),
  email: z.string().max(1000).optional(),
});

const UNUSABLE: Record<Exclude<InvitationStatus, 'pending'>, { status: number; title: string; text: string }> = {
  expired: { status: 410, title: 'This invitation has expired', text: 'The link you followed is no longer valid. Ask the person who invited you for a new invitation.' },
  revoked: { status: 410, title: 'This invitation was revoked', text: 'The link you followed has been withdrawn by the organization. Ask an administrator for a new invitation.' },
  accepted: { status: 410, title: 'This invitation was already used', text: 'An account has already been created with this link. Log in with that account instead.' },
  invalid: { status: 404, title: 'Invalid invitation link', text: 'The link you followed is not a valid invitation. Check that you copied the whole link.' },
};

function form(info: { email: string | null; realm_name: string }, csrf: string, values: { full_name?: string; email?: string }, error?: string): string {
  const realm = info.realm_name || 'the organization';
  const emailField =
    info.email === null
      ? `<label for="email">Email</label><input id="email" name="email" type="email" required value="${escapeHtml(values.email ?? '')}">`
      : `<p>You are signing up as <strong id="invited-email">${escapeHtml(info.email)}</strong>.</p>`;
  return `<p>Create your account to join ${escapeHtml(realm)}.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" autocomplete="off">
<input type="hidden" name="csrf_token" value="${csrf}">
${emailField}
<label for="full_name">Full name</label><input id="full_name" name="full_name" required value="${escapeHtml(values.full_name ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" required>
<button type="submit">Sign up</button>
</form>`;
}

/**
 * `limit` spends the caller's budget (the gateway's anonymous rate limits; a submission the
 * stricter login budget, since it hashes a password), and throws when it is spent.
 */
export function registerSignupPage(app: FastifyInstance, bus: Bus, log: Logger, limit?: (request: FastifyRequest, reply: FastifyReply) => Promise<void>): void {
  const status = async (key: string) => (await callContract(bus, endpoints.accounts.invitationStatus, { params: { key } })).value;
  // Every page that ends the visit says where to log in: it needs the organization's address.
  const realm = async (): Promise<Realm | undefined> => (await callContract(bus, endpoints.accounts.accountPagesInfo, { params: {} }).catch(() => undefined))?.value;
  const newToken = (reply: FastifyReply) => {
    const token = randomBytes(32).toString('hex');
    reply.header('set-cookie', `${CSRF_COOKIE}=${token}; Path=/join; HttpOnly; SameSite=Strict`);
    return token;
  };
  const unusable = async (reply: FastifyReply, which: Exclude<InvitationStatus, 'pending'>) => {
    const { status: code, title, text } = UNUSABLE[which];
    return send(reply, code, page(title, `<p id="invitation-state" data-state="${which}">${escapeHtml(text)}</p>`, await realm()));
  };
  const failure = (reply: FastifyReply, err: unknown) => {
    log.warn({ err: isApiError(err) ? err.msg : (err as Error).message }, 'registration page failed');
    return send(reply, 503, page('Something went wrong', '<p>The server could not handle this right now. Try again in a moment.</p>'));
  };

  const show = async (request: FastifyRequest<{ Params: { key: string } }>, reply: FastifyReply) => {
    const key = KEY.safeParse(request.params.key);
    if (!key.success) return unusable(reply, 'invalid');
    try {
      const info = await status(key.data);
      if (info.status !== 'pending') return unusable(reply, info.status);
      return send(reply, 200, page(`Join ${info.realm_name || 'the organization'}`, form(info, newToken(reply), {})));
    } catch (err) {
      return failure(reply, err);
    }
  };

  const submit = async (request: FastifyRequest<{ Params: { key: string } }>, reply: FastifyReply) => {
    const key = KEY.safeParse(request.params.key);
    if (!key.success) return unusable(reply, 'invalid');
    const parsed = SignupForm.safeParse(request.body ?? {});
    const token = parsed.success ? parsed.data.csrf_token : undefined;
    if (!sameOrigin(request) || token === undefined || !sameToken(readCookie(request, CSRF_COOKIE), token)) {
      return send(reply, 403, page('Request refused', '<p id="csrf-refused">This form could not be verified (cross-site request forgery protection). Open the invitation link again and resubmit.</p>'));
    }
    if (!parsed.success) return send(reply, 400, page('Invalid form', '<p class="error">The form was not filled in as expected.</p>'));
    const values = parsed.data;
    let info;
    try {
      info = await status(key.data);
    } catch (err) {
      return failure(reply, err);
    }
    if (info.status !== 'pending') return unusable(reply, info.status);
    try {
      const { value } = await callContract(bus, endpoints.accounts.acceptInvitation, {
        params: { key: key.data, full_name: values.full_name, password: values.password, ...(values.email !== undefined ? { email: values.email } : {}) },
      });
      reply.header('set-cookie', `${CSRF_COOKIE}=; Path=/join; HttpOnly; SameSite=Strict; Max-Age=0`);
      return send(
        reply,
        200,
        page('Welcome!', `<p id="signup-done">Your account <strong id="account-email">${escapeHtml(value.email)}</strong> has been created.</p>`, await realm()),
      );
    } catch (err) {
      if (!isApiError(err) || err.status >= 500) return failure(reply, err);
      const again = await status(key.data).catch(() => info);
      if (again.status !== 'pending') return unusable(reply, again.status);
      return send(reply, 400, page(`Join ${info.realm_name || 'the organization'}`, form(info, newToken(reply), values, err.msg)));
    }
  };

  for (const url of ['/join/:key', '/join/:key/']) {
    app.get<{ Params: { key: string } }>(url, { ...(limit ? { onRequest: limit } : {}) }, show);
    app.post<{ Params: { key: string } }>(url, { bodyLimit: 64 * 1024, ...(limit ? { onRequest: limit } : {}) }, submit);
  }
}
