/**
 * File uploads and attachments (served by messaging) and custom emoji (served by
 * accounts). The gateway reads an upload's bytes (`http.files: 'upload'`), sniffs their
 * type, writes them to the blob store and sends the service only what it decides on
 * (`file`); for a download (`http.files: 'download'`) the service decides who may read
 * the file and answers where its bytes are, which the gateway then streams. The apps ask
 * under /api/v1 for a temporary URL instead, which downloads without credentials.
 */
import { z } from 'zod';
import { ApiRealmEmoji } from '../feature-events';
import { AttachmentMessage } from '../upload-facts';
import { EmptyReply, endpoint, NoParams } from './contract';

const int = () => z.number().int();

/** Zulip's default `max_file_upload_size_mib`; a server setting (`TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB`). */
export const DEFAULT_MAX_FILE_UPLOAD_SIZE_MIB = 25;
/** Zulip's default `max_emoji_file_size_mib`; a server setting (`TEAMCHAT_MAX_EMOJI_FILE_SIZE_MIB`). */
export const DEFAULT_MAX_EMOJI_FILE_SIZE_MIB = 5;

/** What the gateway tells the service of an uploaded file, the bytes already stored. */
export const UploadedFile = z.object({
  /** Where the gateway stored the bytes: `uploads/…` or `emoji/…` (blob-key rules in libs/platform). */
  blob_key: z.string(),
  /** The client's file name (not trusted: the service sanitizes it for paths). */
  name: z.string(),
  size: int().nonnegative(),
  /** Sniffed from the bytes by the gateway. */
  content_type: z.string(),
  /**
   * For a picture whose header the gateway could read (http/image-header.ts): present when
   * the header is well formed, with the size where the first bytes give it. Absent: no
   * picture, or a broken one.
   */
  image: z.object({ width: int().positive().optional(), height: int().positive().optional() }).optional(),
});
export type UploadedFile = z.infer<typeof UploadedFile>;

/** The blobs a `files: 'delete'` endpoint's records named: the gateway deletes their bytes. */
export const RemovedBlobs = z.object({ removed_blobs: z.array(z.string()) });

/** Where a file's bytes are and how to serve them. */
export const FileLocation = z.object({ blob_key: z.string(), content_type: z.string(), name: z.string(), size: int() });
export type FileLocation = z.infer<typeof FileLocation>;

/** An uploaded file's path (`/user_uploads/{realm_id}/{dir}/{key}/{filename}`), as its parts. */
const FilePath = z.object({ realm_id: z.string(), dir: z.string(), key: z.string(), filename: z.string() });

export const ApiAttachment = z.object({
  id: int(),
  name: z.string(),
  path_id: z.string(),
  size: int(),
  /** Milliseconds since the epoch, as Zulip's GET /attachments gives it. */
  create_time: int(),
  messages: z.array(AttachmentMessage),
});

export const uploadsEndpoints = {
  uploadFile: endpoint({
    service: 'messaging',
    subject: 'messaging.upload_file',
    http: { method: 'POST', path: '/user_uploads', files: 'upload' },
    auth: true,
    params: z.object({ file: UploadedFile }),
    reply: z.object({ uri: z.string(), url: z.string(), filename: z.string() }),
  }),
  /** The file's bytes at the organization's root, where messages link it (as a browser fetches it). */
  downloadFile: endpoint({
    service: 'messaging',
    subject: 'messaging.download_file',
    // The three segments after the organization's id are Zulip's path shape; anything
    // else (more segments, `..`) matches no route or no stored path.
    http: { method: 'GET', path: '/user_uploads/{realm_id}/{dir}/{key}/{filename}', files: 'download' },
    auth: true,
    params: FilePath,
    reply: FileLocation,
  }),
  /**
   * The same path under /api/v1, as the apps ask for a file: a URL that downloads it
   * without credentials for a minute (`/user_uploads/temporary/{token}/{filename}`),
   * given only to a caller who may download the file.
   */
  getFileTemporaryUrl: endpoint({
    service: 'messaging',
    subject: 'messaging.get_file_temporary_url',
    http: { method: 'GET', path: '/user_uploads/{realm_id}/{dir}/{key}/{filename}' },
    auth: true,
    params: FilePath,
    reply: z.object({ url: z.string() }),
  }),
  /** A temporary URL's download: the token is the credential (signed, expiring). */
  downloadFileWithToken: endpoint({
    service: 'messaging',
    subject: 'messaging.download_file_with_token',
    http: { method: 'GET', path: '/user_uploads/temporary/{token}/{filename}', files: 'download' },
    auth: false,
    params: z.object({ token: z.string(), filename: z.string() }),
    reply: FileLocation,
  }),
  getAttachments: endpoint({
    service: 'messaging',
    subject: 'messaging.get_attachments',
    http: { method: 'GET', path: '/attachments' },
    auth: true,
    params: NoParams,
    reply: z.object({ attachments: z.array(ApiAttachment), upload_space_used: int() }),
  }),
  deleteAttachment: endpoint({
    service: 'messaging',
    subject: 'messaging.delete_attachment',
    // The record goes first (the file is then unreachable), its bytes right after.
    http: { method: 'DELETE', path: '/attachments/{attachment_id}', files: 'delete' },
    auth: true,
    params: z.object({ attachment_id: int() }),
    reply: RemovedBlobs,
  }),
};

export const emojiEndpoints = {
  addRealmEmoji: endpoint({
    service: 'accounts',
    subject: 'accounts.add_realm_emoji',
    http: { method: 'POST', path: '/realm/emoji/{emoji_name}', files: 'upload', upload: 'emoji' },
    auth: true,
    params: z.object({ emoji_name: z.string(), file: UploadedFile }),
    reply: EmptyReply,
  }),
  getRealmEmoji: endpoint({
    service: 'accounts',
    subject: 'accounts.get_realm_emoji',
    http: { method: 'GET', path: '/realm/emoji' },
    auth: true,
    params: NoParams,
    reply: z.object({ emoji: z.record(z.string(), ApiRealmEmoji) }),
  }),
  deleteRealmEmoji: endpoint({
    service: 'accounts',
    subject: 'accounts.delete_realm_emoji',
    http: { method: 'DELETE', path: '/realm/emoji/{emoji_name}' },
    auth: true,
    params: z.object({ emoji_name: z.string() }),
    reply: EmptyReply,
  }),
};

/** What an avatar change answers: the new URL (the old file's bytes are the gateway's to delete). */
const AvatarReply = z.object({ avatar_url: z.string(), removed_blobs: z.array(z.string()) });

export const avatarEndpoints = {
  /** Uploads the caller's own avatar (one image); Zulip's web client uses this path. */
  setAvatar: endpoint({
    service: 'accounts',
    subject: 'accounts.set_avatar',
    http: { method: 'POST', path: '/users/me/avatar', files: 'upload', upload: 'avatar' },
    auth: true,
    params: z.object({ file: UploadedFile }),
    reply: AvatarReply,
  }),
  /** Back to the external provider's avatar. */
  deleteAvatar: endpoint({
    service: 'accounts',
    subject: 'accounts.delete_avatar',
    http: { method: 'DELETE', path: '/users/me/avatar', files: 'delete' },
    auth: true,
    params: NoParams,
    reply: AvatarReply,
  }),
};
