/**
 * The account pages a mailed (or printed) link opens, outside /api/v1, at Zulip's paths:
 *
 * - /accounts/password/reset/          a form for an address; the answer is the same page
 *                                      whether or not the address has an account
 * - /accounts/password/reset/{token}/  the set-password form a reset link (or the operator's
 *                                      first link for an owner) opens
 * - /accounts/confirm_new_email/{key}/ the email-change confirmation (PATCH /settings mails it)
 *
 * Each page names the organization and ends with where to log in (html.ts, LOGIN_PATH).
 * Accounts decides everything; the gateway holds no state. Forms carry the double-submit
 * CSRF token. Submissions spend the stricter login budget per client address (a reset
 * request sends mail; a new password costs a hash); accounts keeps each address's own
 * budget of reset mails.
 */
import { endpoints, isApiError, type PasswordLinkStatus } from '@teamchat/contracts';
import { callContract, type Bus } from '@teamchat/platform';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { z } from 'zod';
import { csrf, escapeHtml, page, send, type Realm } from './html';

const RESET_PATH = '/accounts/password/reset/';
const TOKEN = z.string().min(1).max(100);
const ResetForm = z.strictObject({ csrf_token: z.string().length(64), email: z.string().max(1000) });
const PasswordForm = z.strictObject({ csrf_token: z.string().length(64), new_password: z.string().max(1000), new_password_again: z.string().max(1000) });

type Limit = (request: FastifyRequest, reply: FastifyReply) => Promise<void>;

const UNUSABLE: Record<Exclude<PasswordLinkStatus, 'valid'>, { status: number; title: string; text: string }> = {
  expired: { status: 410, title: 'This link has expired', text: 'Links to set a password work for a limited time. Ask for a new one below.' },
  invalid: { status: 404, title: 'This link is not valid', text: 'It was already used, a newer password replaced it, or it was not copied whole. Ask for a new one below.' },
};

export function registerAccountPages(app: FastifyInstance, bus: Bus, log: Logger, limit?: Limit): void {
  const tokens = csrf('teamchat_accounts_csrf', '/accounts');
  const realm = async (): Promise<Realm> => (await callContract(bus, endpoints.accounts.accountPagesInfo, { params: {} })).value;
  const orgName = (r: Realm) => r.realm_name || 'the organization';
  const failure = (reply: FastifyReply, err: unknown) => {
    // The reason only: never the request (its path or form may hold a link's token or a password).
    log.warn({ reason: isApiError(err) ? err.msg : (err as Error).message }, 'account page failed');
    return send(reply, 503, page('Something went wrong', '<p>The server could not handle this right now. Try again in a moment.</p>'));
  };
  const refused = (reply: FastifyReply, again: string) =>
    send(reply, 403, page('Request refused', `<p id="csrf-refused">This form could not be verified (cross-site request forgery protection). <a href="${again}">Open the page again</a> and resubmit.</p>`));
  const onRequest = limit ? { onRequest: limit } : {};

  // --- Asking for a reset link ---------------------------------------------------------

  const resetForm = (r: Realm, token: string, error?: string) =>
    page(
      `Reset your password for ${orgName(r)}`,
      `<p>Enter the email address of your account. If it has one, a link to choose a new password is mailed to it.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post" action="${RESET_PATH}">
<input type="hidden" name="csrf_token" value="${token}">
<label for="email">Email address</label><input id="email" name="email" type="email" autocomplete="email" required>
<button type="submit">Send the reset link</button>
</form>`,
      r,
    );

  app.get(RESET_PATH, { ...onRequest }, async (_request, reply) => {
    try {
      return send(reply, 200, resetForm(await realm(), tokens.issue(reply)));
    } catch (err) {
      return failure(reply, err);
    }
  });

  app.post(RESET_PATH, { bodyLimit: 16 * 1024, ...onRequest }, async (request, reply) => {
    const parsed = ResetForm.safeParse(request.body ?? {});
    if (!tokens.verify(request, parsed.success ? parsed.data.csrf_token : undefined)) return refused(reply, RESET_PATH);
    try {
      const r = await realm();
      const email = parsed.data!.email.trim();
      if (email === '' || !email.includes('@')) return send(reply, 400, resetForm(r, tokens.issue(reply), 'Enter an email address.'));
      await callContract(bus, endpoints.accounts.requestPasswordReset, { params: { email } });
      // The same words whether or not the address has an account, or got a mail just now.
      return send(
        reply,
        200,
        page(
          'Check your email',
          `<p id="reset-requested">If <strong>${escapeHtml(email)}</strong> is the address of an account in ${escapeHtml(orgName(r))}, a link to choose a new password is on its way there. It works once, for a limited time.</p>`,
          r,
        ),
      );
    } catch (err) {
      return failure(reply, err);
    }
  });

  // --- Setting the password from a link --------------------------------------------------

  const passwordForm = (r: Realm, email: string, token: string, error?: string) =>
    page(
      `Choose a password for ${orgName(r)}`,
      `<p>Choose the password of <strong id="link-email">${escapeHtml(email)}</strong>. It must have at least 6 characters.</p>
${error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : ''}
<form method="post">
<input type="hidden" name="csrf_token" value="${token}">
<label for="new_password">New password</label><input id="new_password" name="new_password" type="password" autocomplete="new-password" required minlength="6">
<label for="new_password_again">New password again</label><input id="new_password_again" name="new_password_again" type="password" autocomplete="new-password" required minlength="6">
<button type="submit">Set the password</button>
</form>`,
      r,
    );
  const unusable = (reply: FastifyReply, r: Realm, which: Exclude<PasswordLinkStatus, 'valid'>) => {
    const { status, title, text } = UNUSABLE[which];
    return send(reply, status, page(title, `<p id="link-state" data-state="${which}">${escapeHtml(text)}</p><p><a id="reset-again" href="${RESET_PATH}">Ask for a new link</a></p>`, r));
  };
  const linkStatus = async (token: string) => (await callContract(bus, endpoints.accounts.passwordLinkStatus, { params: { token } })).value;

  const showLink = async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
    try {
      const token = TOKEN.safeParse(request.params.token);
      const info = token.success ? await linkStatus(token.data) : { ...(await realm()), status: 'invalid' as const, email: null };
      const r = { realm_name: info.realm_name, realm_uri: (await realm()).realm_uri };
      if (info.status !== 'valid' || info.email === null) return unusable(reply, r, info.status === 'valid' ? 'invalid' : info.status);
      return send(reply, 200, passwordForm(r, info.email, tokens.issue(reply)));
    } catch (err) {
      return failure(reply, err);
    }
  };

  const setPassword = async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
    const parsed = PasswordForm.safeParse(request.body ?? {});
    if (!tokens.verify(request, parsed.success ? parsed.data.csrf_token : undefined)) return refused(reply, request.url);
    try {
      const r = await realm();
      const token = TOKEN.safeParse(request.params.token);
      if (!token.success) return unusable(reply, r, 'invalid');
      const info = await linkStatus(token.data);
      if (info.status !== 'valid' || info.email === null) return unusable(reply, r, info.status === 'valid' ? 'invalid' : info.status);
      const form = parsed.data!;
      if (form.new_password !== form.new_password_again) return send(reply, 400, passwordForm(r, info.email, tokens.issue(reply), 'The two passwords differ.'));
      try {
        const { value } = await callContract(bus, endpoints.accounts.setPasswordWithLink, { params: { token: token.data, new_password: form.new_password } });
        tokens.clear(reply);
        return send(reply, 200, page('Your password is set', `<p id="password-set">The password of <strong id="account-email">${escapeHtml(value.email)}</strong> is set. Your API key is unchanged.</p>`, r));
      } catch (err) {
        if (!isApiError(err) || err.status >= 500) throw err;
        // The link may have been used or expired meanwhile: say that, not the form again.
        const again = await linkStatus(token.data);
        if (again.status !== 'valid') return unusable(reply, r, again.status);
        return send(reply, 400, passwordForm(r, info.email, tokens.issue(reply), err.msg));
      }
    } catch (err) {
      return failure(reply, err);
    }
  };

  for (const url of [`${RESET_PATH}:token`, `${RESET_PATH}:token/`]) {
    app.get<{ Params: { token: string } }>(url, { ...onRequest }, showLink);
    app.post<{ Params: { token: string } }>(url, { bodyLimit: 16 * 1024, ...onRequest }, setPassword);
  }

  // --- The email-change confirmation ---------------------------------------------------------

  const confirmEmail = async (request: FastifyRequest<{ Params: { key: string } }>, reply: FastifyReply) => {
    try {
      const r = await realm();
      const key = TOKEN.safeParse(request.params.key);
      const notConfirmed = (why: string) =>
        send(reply, 400, page('This link did not work', `<p id="email-not-confirmed" class="error">${escapeHtml(why)}</p><p>Change your email address again from your settings to get a new link.</p>`, r));
      if (!key.success) return notConfirmed('Invalid or expired confirmation link.');
      try {
        const { value } = await callContract(bus, endpoints.accounts.confirmEmailChange, { params: { confirmation_key: key.data } });
        return send(
          reply,
          200,
          page(`Email address changed`, `<p id="email-confirmed">The email address of your account in ${escapeHtml(orgName(r))} is now <strong id="account-email">${escapeHtml(value.email)}</strong>. Log in with it from now on.</p>`, r),
        );
      } catch (err) {
        if (!isApiError(err) || err.status >= 500) throw err;
        return notConfirmed(err.msg);
      }
    } catch (err) {
      return failure(reply, err);
    }
  };
  for (const url of ['/accounts/confirm_new_email/:key', '/accounts/confirm_new_email/:key/']) app.get<{ Params: { key: string } }>(url, { ...onRequest }, confirmEmail);
}
