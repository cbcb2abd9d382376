/**
 * Facts of a user's account changes through PATCH /settings that live on the
 * organization's stream (email uniqueness needs its consistency boundary): an email change
 * asked for, and confirmed; the server-level permission to change other users' addresses.
 */
import { z } from 'zod';

const int = () => z.number().int();

/**
 * A user asked to change their email to `new_email`. The confirmation key travels only in
 * the mail; the fact holds its SHA-256, so the store never holds a usable link. A later
 * request replaces an earlier one.
 */
export const EmailChangeRequested = z.object({
  type: z.literal('EmailChangeRequested'),
  user_id: int(),
  new_email: z.string(),
  key_hash: z.string(),
  /** Milliseconds since the epoch; the link expires a day after it. */
  requested_at: int(),
});

/** A confirmed email change: the user's API and delivery email is now `new_email`. */
export const UserEmailChanged = z.object({
  type: z.literal('UserEmailChanged'),
  user_id: int(),
  old_email: z.string(),
  new_email: z.string(),
  /**
   * Who is told (realm_user update with new_email and delivery_email): those who may see
   * the user's real address. The others see the unchanged dummy address and hear nothing.
   */
  audience_user_ids: z.array(int()).optional(),
  /** A bot's administrators and owner (realm_bot update). */
  bot_audience_user_ids: z.array(int()).optional(),
});

/** The server-level permissions, as Zulip's UserProfile fields of the same names. */
export const SERVER_PERMISSIONS = ['can_change_user_emails', 'can_create_users'] as const;
export const ServerPermission = z.enum(SERVER_PERMISSIONS);
export type ServerPermission = z.infer<typeof ServerPermission>;

/**
 * The server operator gave or took a server-level permission (Zulip's management command
 * change_user_role): `can_change_user_emails`, which lets an owner change other users'
 * addresses with PATCH /users/{id} `new_email`, and `can_create_users`, which lets an
 * administrator create accounts with POST /users. No API request can grant either.
 */
export const ServerPermissionChanged = z.object({
  type: z.literal('ServerPermissionChanged'),
  user_id: int(),
  permission: ServerPermission,
  granted: z.boolean(),
});

export const SETTINGS_FACTS = [EmailChangeRequested, UserEmailChanged, ServerPermissionChanged] as const;
