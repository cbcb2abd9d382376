/**
 * Getting into an account: a user's own key replaced (Zulip's POST
 * /users/me/api_key/regenerate), and the password-reset link's internal commands, which
 * the gateway's HTML pages call (no HTTP route of their own under /api/v1) and the
 * create-organization tool uses for the first owner's link.
 */
import { z } from 'zod';
import { EmptyReply, endpoint, NoParams } from './contract';

const int = () => z.number().int();

/** What a password link is now: usable, or why not (the pages say so). */
export const PasswordLinkStatus = z.enum(['valid', 'expired', 'invalid']);
export type PasswordLinkStatus = z.infer<typeof PasswordLinkStatus>;

export const passwordsEndpoints = {
  regenerateApiKey: endpoint({
    service: 'accounts',
    subject: 'accounts.regenerate_api_key',
    http: { method: 'POST', path: '/users/me/api_key/regenerate' },
    auth: true,
    params: NoParams,
    reply: z.object({ api_key: z.string() }),
  }),
  /**
   * Internal (the reset page's form): mails a reset link when the address names an active
   * human user and its budget allows; the reply is the same in every case, so that it
   * never tells whether the address has an account.
   */
  requestPasswordReset: endpoint({
    service: 'accounts',
    subject: 'accounts.request_password_reset',
    auth: false,
    params: z.object({ email: z.string().max(1000) }),
    reply: EmptyReply,
  }),
  /** Internal (the set-password page): what a link's token is. */
  passwordLinkStatus: endpoint({
    service: 'accounts',
    subject: 'accounts.password_link_status',
    auth: false,
    params: z.object({ token: z.string().max(200) }),
    reply: z.object({ status: PasswordLinkStatus, email: z.string().nullable(), realm_name: z.string() }),
  }),
  /** Internal (the set-password page's form): sets the password the token is for, and uses the token up. */
  setPasswordWithLink: endpoint({
    service: 'accounts',
    subject: 'accounts.set_password_with_link',
    auth: false,
    params: z.object({ token: z.string().max(200), new_password: z.string().max(1000) }),
    reply: z.object({ email: z.string(), user_id: int() }),
  }),
  /** Internal (every account page): the organization's name and address, for the page's title and its login section. */
  accountPagesInfo: endpoint({
    service: 'accounts',
    subject: 'accounts.account_pages_info',
    auth: false,
    params: NoParams,
    reply: z.object({ realm_name: z.string(), realm_uri: z.string() }),
  }),
  /** The operator's tool (create-organization): a first set-password link for a user, printed, not mailed. */
  issuePasswordLink: endpoint({
    service: 'accounts',
    subject: 'accounts.issue_password_link',
    auth: false,
    params: z.object({ email: z.string() }),
    reply: z.object({ link: z.string(), expires_at: int() }),
  }),
};
