/**
 * Facts of the personal and organization tools (issue 15): drafts, saved snippets, alert
 * words, user settings, bot storage and code playgrounds. Accounts appends them; the
 * fan-out announces them and messaging keeps its own projection of alert words (to flag
 * messages), so each fact carries what those readers need.
 */
import { z } from 'zod';
import { OrganizationAudience } from './audiences';

const int = () => z.number().int();

/** The spec's Draft resource as stored: addressed and checked, with its id. */
export const StoredDraft = z.object({
  id: int(),
  type: z.enum(['', 'stream', 'private']),
  to: z.array(int()),
  topic: z.string(),
  content: z.string(),
  /** Seconds since the epoch of the last edit. */
  timestamp: int(),
});
export type StoredDraft = z.infer<typeof StoredDraft>;

export const StoredSavedSnippet = z.object({
  id: int(),
  title: z.string(),
  content: z.string(),
  /** Seconds since the epoch. */
  date_created: int(),
});
export type StoredSavedSnippet = z.infer<typeof StoredSavedSnippet>;

export const StoredPlayground = z.object({ id: int(), name: z.string(), lexer_language: z.string(), url_template: z.string() });
export type StoredPlayground = z.infer<typeof StoredPlayground>;

export const DraftsAdded = z.object({ type: z.literal('DraftsAdded'), user_id: int(), drafts: z.array(StoredDraft) });
export const DraftUpdated = z.object({ type: z.literal('DraftUpdated'), user_id: int(), draft: StoredDraft });
export const DraftRemoved = z.object({ type: z.literal('DraftRemoved'), user_id: int(), draft_id: int() });
/** Turning draft synchronization off empties the server's drafts; the spec sends no event for it. */
export const DraftsCleared = z.object({ type: z.literal('DraftsCleared'), user_id: int(), draft_ids: z.array(int()) });

/**
 * One user setting's new value (PATCH /settings). Only the properties the server
 * implements are ever recorded; see USER_SETTING_PROPERTIES.
 */
export const UserSettingChanged = z.object({
  type: z.literal('UserSettingChanged'),
  user_id: int(),
  property: z.string(),
  value: z.union([z.boolean(), int(), z.string()]),
  /** Who changed it when not the user (an administrator's target_users): absent means the user. */
  acting_user_id: int().optional(),
  /**
   * For `timezone`, which is also part of the user's profile: who hears the realm_user
   * update (named: every active user and the user; listed in facts stored before), and
   * the email shown in it (the dummy one when the user hides theirs).
   */
  ...OrganizationAudience,
  email: z.string().optional(),
  /**
   * For `email_address_visibility`: the viewers whose view of the user's address changed,
   * with what they see now (realm_user updates of new_email and delivery_email).
   */
  email_views: z.array(z.object({ user_ids: z.array(int()), email: z.string(), delivery_email: z.string().nullable() })).optional(),
});

export const SavedSnippetAdded = z.object({ type: z.literal('SavedSnippetAdded'), user_id: int(), saved_snippet: StoredSavedSnippet });
export const SavedSnippetUpdated = z.object({ type: z.literal('SavedSnippetUpdated'), user_id: int(), saved_snippet: StoredSavedSnippet });
export const SavedSnippetRemoved = z.object({ type: z.literal('SavedSnippetRemoved'), user_id: int(), saved_snippet_id: int() });

/** The user's whole list after the change, as the `alert_words` event carries it. */
export const AlertWordsChanged = z.object({ type: z.literal('AlertWordsChanged'), user_id: int(), alert_words: z.array(z.string()) });

/** Keys written (new or overwritten); other keys are kept. */
export const BotStorageUpdated = z.object({ type: z.literal('BotStorageUpdated'), user_id: int(), storage: z.record(z.string(), z.string()) });
/** Keys removed; null: every key. */
export const BotStorageRemoved = z.object({ type: z.literal('BotStorageRemoved'), user_id: int(), keys: z.array(z.string()).nullable() });

/**
 * A playground added or removed, with the organization's whole list after the change
 * (what the `realm_playgrounds` event carries) and the active users who hear of it.
 */
export const PlaygroundAdded = z.object({
  type: z.literal('PlaygroundAdded'),
  playground: StoredPlayground,
  playgrounds: z.array(StoredPlayground),
  ...OrganizationAudience,
});
export const PlaygroundRemoved = z.object({
  type: z.literal('PlaygroundRemoved'),
  playground_id: int(),
  playgrounds: z.array(StoredPlayground),
  ...OrganizationAudience,
});

export const TOOLS_FACTS = [
  DraftsAdded,
  DraftUpdated,
  DraftRemoved,
  DraftsCleared,
  UserSettingChanged,
  SavedSnippetAdded,
  SavedSnippetUpdated,
  SavedSnippetRemoved,
  AlertWordsChanged,
  BotStorageUpdated,
  BotStorageRemoved,
  PlaygroundAdded,
  PlaygroundRemoved,
] as const;
