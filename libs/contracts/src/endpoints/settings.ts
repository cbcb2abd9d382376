/**
 * PATCH /settings (spec endpoint 3) and its email-change confirmation. Every setting of
 * USER_SETTINGS plus the account changes (name, email, password) and, for
 * administrators, `target_users`.
 */
import { z } from 'zod';
import { UserSettingParams } from '../user-settings';
import { endpoint } from './contract';

const int = () => z.number().int();

/** Whose settings an administrator changes (feature level 444). */
export const TargetUsers = z.object({
  user_ids: z.array(int()).optional(),
  group_ids: z.array(int()).optional(),
  skip_if_already_edited: z.boolean().optional(),
});
export type TargetUsers = z.infer<typeof TargetUsers>;

export const UpdateSettingsParams = z.object({
  ...UserSettingParams,
  target_users: TargetUsers.optional(),
  full_name: z.string().optional(),
  email: z.string().optional(),
  old_password: z.string().optional(),
  new_password: z.string().optional(),
});
export type UpdateSettingsParams = z.infer<typeof UpdateSettingsParams>;

export const settingsEndpoints = {
  /**
   * The link of an email-change confirmation: opened from the mail, so without credentials;
   * the key is the secret. Zulip serves it as /accounts/confirm_new_email/<key>.
   */
  confirmEmailChange: endpoint({
    service: 'accounts',
    subject: 'accounts.confirm_email_change',
    http: { method: 'GET', path: '/settings/email/confirm/{confirmation_key}' },
    auth: false,
    params: z.object({ confirmation_key: z.string().max(200) }),
    reply: z.object({ email: z.string() }),
  }),
};
