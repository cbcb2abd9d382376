/**
 * Facts of accounts' organization stream: the organization itself, its users and bots
 * (created, deactivated, their roles, names, passwords, owners, settings and keys), and
 * its new-channel announcements channel.
 */
import { z } from 'zod';
import { NamedAudience } from './audiences';

export const OrganizationCreated = z.object({
  type: z.literal('OrganizationCreated'),
  name: z.string(),
  host: z.string(),
  date_created: z.number(),
});

/**
 * Who a change to a user is announced to, decided by accounts from the organization as it
 * stood: `audience` (named, audiences.ts) or, in facts stored before it, `audience_user_ids`:
 * every active user who may access the user, and the user (`realm_user` and the system
 * groups' `user_group` events); `bot_audience_user_ids` for a bot its active
 * administrators and owner (`realm_bot`). Absent from facts stored before people events.
 */
const PersonAudience = {
  audience: NamedAudience.optional(),
  audience_user_ids: z.array(z.number().int()).optional(),
  bot_audience_user_ids: z.array(z.number().int()).optional(),
};

/** A bot's own settings: default channels (by id, with the name when decided) and its service. */
export const BotSettings = z.object({
  default_sending_stream_id: z.number().int().nullable(),
  default_sending_stream: z.string().nullable(),
  default_events_register_stream_id: z.number().int().nullable(),
  default_events_register_stream: z.string().nullable(),
  default_all_public_streams: z.boolean(),
  /** Outgoing webhook bots: where messages go; embedded bots: which bot runs and its configuration. */
  services: z.array(z.record(z.string(), z.unknown())),
});
export type BotSettings = z.infer<typeof BotSettings>;

export const UserCreated = z.object({
  type: z.literal('UserCreated'),
  user_id: z.number().int(),
  email: z.string(),
  full_name: z.string(),
  role: z.number().int(),
  is_bot: z.boolean(),
  bot_type: z.number().int().nullable(),
  bot_owner_id: z.number().int().nullable(),
  timezone: z.string(),
  /** Seconds since the epoch. */
  date_joined: z.number(),
  /**
   * The API key is derived from a server secret and this salt, and only its SHA-256 is
   * kept, so the store alone never reveals a usable key.
   */
  api_key_salt: z.string(),
  api_key_hash: z.string(),
  ...PersonAudience,
  /** Bots created through POST /bots. */
  bot_settings: BotSettings.optional(),
});

export const UserDeactivated = z.object({ type: z.literal('UserDeactivated'), user_id: z.number().int(), ...PersonAudience });
export const UserReactivated = z.object({
  type: z.literal('UserReactivated'),
  user_id: z.number().int(),
  ...PersonAudience,
  /** The groups the user is a direct member of again (the role's system group, custom groups). */
  group_ids: z.array(z.number().int()).optional(),
});

/**
 * A password, as a memory-hard hash (`scrypt$N$r$p$salt$hash`): never the password. No
 * client event: it changes nothing anyone sees.
 */
export const UserPasswordSet = z.object({
  type: z.literal('UserPasswordSet'),
  user_id: z.number().int(),
  password_hash: z.string(),
  /**
   * A new password ends every web session of the user (session-facts.ts) but this one:
   * the session the person changed it from, which stays logged in (as Zulip keeps it).
   * Absent (a reset link, a new account): every session ends.
   */
  kept_session_hash: z.string().optional(),
});

/** A bot as a `realm_bot` add shows it (the key is derived from the salt, never stored). */
const BotSnapshot = z.object({
  user_id: z.number().int(),
  email: z.string(),
  full_name: z.string(),
  bot_type: z.number().int().nullable(),
  is_active: z.boolean(),
  owner_id: z.number().int().nullable(),
  api_key_salt: z.string(),
  bot_settings: BotSettings,
});

export const UserRoleChanged = z.object({
  type: z.literal('UserRoleChanged'),
  user_id: z.number().int(),
  role: z.number().int(),
  old_role: z.number().int(),
  ...PersonAudience,
  /** Becoming an administrator shows the user every bot; ceasing to be one hides those of others. */
  bots_shown: z.array(BotSnapshot).optional(),
  bots_hidden: z.array(z.number().int()).optional(),
});

export const UserFullNameChanged = z.object({ type: z.literal('UserFullNameChanged'), user_id: z.number().int(), full_name: z.string(), ...PersonAudience });

/** A bot's owner changed: the old owner loses it from their bots, the new one gains it whole. */
export const BotOwnerChanged = z.object({
  type: z.literal('BotOwnerChanged'),
  user_id: z.number().int(),
  bot_owner_id: z.number().int(),
  old_owner_id: z.number().int().nullable(),
  ...PersonAudience,
  /** The bot as the new owner's `realm_bot` add shows it (the key is derived from the salt, never stored). */
  bot: z.object({ email: z.string(), full_name: z.string(), bot_type: z.number().int().nullable(), is_active: z.boolean(), api_key_salt: z.string() }),
  bot_settings: BotSettings,
});

export const BotSettingsChanged = z.object({
  type: z.literal('BotSettingsChanged'),
  user_id: z.number().int(),
  /** Only what changed. */
  changes: BotSettings.partial(),
  ...PersonAudience,
});

/** A bot's new key material: a fresh salt (the key is derived from it) and the key's hash. */
export const BotApiKeyRegenerated = z.object({
  type: z.literal('BotApiKeyRegenerated'),
  user_id: z.number().int(),
  api_key_salt: z.string(),
  api_key_hash: z.string(),
  ...PersonAudience,
});

/** The organization's new-channel announcements channel changed (null: none), on the organization stream. */
export const NewChannelAnnouncementsChannelChanged = z.object({
  type: z.literal('NewChannelAnnouncementsChannelChanged'),
  channel_id: z.number().int().nullable(),
});

export const PEOPLE_FACTS = [
  OrganizationCreated,
  UserCreated,
  UserDeactivated,
  UserReactivated,
  UserPasswordSet,
  UserRoleChanged,
  UserFullNameChanged,
  BotOwnerChanged,
  BotSettingsChanged,
  BotApiKeyRegenerated,
] as const;

export const ORGANIZATION_STREAM_FACTS = [NewChannelAnnouncementsChannelChanged] as const;
