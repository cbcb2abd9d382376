/**
 * Facts of uploaded files (attachments, owned by messaging: who may download a file
 * follows who may see the messages linking it) and of custom emoji (owned by accounts:
 * who may add one is an organization setting). The bytes live in the blob store (a
 * port of libs/platform); a fact names them by `blob_key`, never holds them.
 */
import { z } from 'zod';
import { OrganizationAudience } from './audiences';

const int = () => z.number().int();

/**
 * The organization's id in upload paths (`/user_uploads/{realm_id}/…`): this server
 * serves one organization, and Zulip's first organization is 2, so links made by other
 * Zulip tools keep their shape.
 */
export const REALM_ID = 2;

export const StoredAttachment = z.object({
  id: int(),
  /** `{realm_id}/{2 hex}/{24 random}/{sanitized file name}`: the link's path after `/user_uploads/`. */
  path_id: z.string(),
  /** The file name as the client sent it (shown in the attachments list). */
  name: z.string(),
  size: int(),
  /** Sniffed from the bytes, never taken from the client. */
  content_type: z.string(),
  /** Seconds since the epoch. */
  create_time: int(),
  owner_id: int(),
  /** Where the bytes are in the blob store. */
  blob_key: z.string(),
});
export type StoredAttachment = z.infer<typeof StoredAttachment>;

/** A message that links an attachment, as the `attachment` event and GET /attachments list it. */
export const AttachmentMessage = z.object({ id: int(), date_sent: int() });

export const AttachmentUploaded = z.object({
  type: z.literal('AttachmentUploaded'),
  attachment: StoredAttachment,
  /** Bytes of every attachment of the organization after this one. */
  upload_space_used: int(),
});
/**
 * Messages of the uploader that link the attachment: their readers may now download it.
 * `messages` is the attachment's whole list after the change (what the event carries).
 */
export const AttachmentClaimed = z.object({
  type: z.literal('AttachmentClaimed'),
  /** The attachment as uploaded (what the `update` event describes beside its messages). */
  attachment: StoredAttachment,
  messages: z.array(AttachmentMessage),
  upload_space_used: int(),
});
/**
 * A message of the uploader no longer links the attachment (its content was edited, or it
 * was deleted): its readers no longer get the file through it. `messages` is the whole
 * list after the change, as with a claim.
 */
export const AttachmentReleased = z.object({
  type: z.literal('AttachmentReleased'),
  attachment: StoredAttachment,
  message_id: int(),
  messages: z.array(AttachmentMessage),
  upload_space_used: int(),
});
export const AttachmentRemoved = z.object({
  type: z.literal('AttachmentRemoved'),
  attachment_id: int(),
  owner_id: int(),
  blob_key: z.string(),
  upload_space_used: int(),
});

export const StoredRealmEmoji = z.object({
  /** Zulip's ids are strings of digits. */
  id: z.string(),
  name: z.string(),
  /** `/user_avatars/{realm_id}/emoji/images/{file}` */
  source_url: z.string(),
  deactivated: z.boolean(),
  author_id: int().nullable(),
  blob_key: z.string(),
  content_type: z.string(),
});
export type StoredRealmEmoji = z.infer<typeof StoredRealmEmoji>;

/** A custom emoji added, with the organization's whole set after it and the active users who hear of it. */
export const RealmEmojiAdded = z.object({
  type: z.literal('RealmEmojiAdded'),
  emoji: StoredRealmEmoji,
  realm_emoji: z.array(StoredRealmEmoji),
  ...OrganizationAudience,
});
/** Deactivated, not deleted: old messages and reactions keep showing it. */
export const RealmEmojiDeactivated = z.object({
  type: z.literal('RealmEmojiDeactivated'),
  emoji_id: z.string(),
  realm_emoji: z.array(StoredRealmEmoji),
  ...OrganizationAudience,
});

export const UPLOAD_FACTS = [AttachmentUploaded, AttachmentClaimed, AttachmentReleased, AttachmentRemoved, RealmEmojiAdded, RealmEmojiDeactivated] as const;
