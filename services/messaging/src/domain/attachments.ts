/**
 * Uploaded files (attachments): the organization's list in one stream (`attachments`), so
 * ids are allocated in order and the space used is one sum. Uploading records a file
 * whose bytes the gateway already stored; a message of the uploader that links the file
 * claims it (its readers may then download it); the uploader may delete it.
 *
 * Only the uploader's messages claim a file (Zulip also lets a user who can already see
 * the file claim it; here forwarding the link shows it only to those who see an
 * uploader's message with it), which keeps a claim decidable from the stream alone.
 */
import { badRequest, REALM_ID, type Actor, type Fact, type StoredAttachment } from '@teamchat/contracts';

export interface AttachmentEntry extends StoredAttachment {
  messages: readonly { id: number; date_sent: number }[];
}

export interface AttachmentsState {
  byId: ReadonlyMap<number, AttachmentEntry>;
  lastId: number;
  spaceUsed: number;
}

export const initialAttachments = (): AttachmentsState => ({ byId: new Map(), lastId: 0, spaceUsed: 0 });

export function evolveAttachments(state: AttachmentsState, fact: Fact): AttachmentsState {
  switch (fact.type) {
    case 'AttachmentUploaded': {
      const byId = new Map(state.byId);
      byId.set(fact.attachment.id, { ...fact.attachment, messages: [] });
      return { byId, lastId: Math.max(state.lastId, fact.attachment.id), spaceUsed: fact.upload_space_used };
    }
    case 'AttachmentClaimed':
    case 'AttachmentReleased': {
      const entry = state.byId.get(fact.attachment.id);
      if (!entry) return state;
      const byId = new Map(state.byId);
      byId.set(entry.id, { ...entry, messages: fact.messages });
      return { ...state, byId, spaceUsed: fact.upload_space_used };
    }
    case 'AttachmentRemoved': {
      const byId = new Map(state.byId);
      byId.delete(fact.attachment_id);
      return { ...state, byId, spaceUsed: fact.upload_space_used };
    }
    default:
      return state;
  }
}

/** Zulip's sanitize_name: word characters, dots and dashes; runs of spaces and dashes become one dash. */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[/\\]/).at(-1) ?? '';
  const cleaned = base
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}_\s.-]/gu, '')
    .trim()
    .replace(/[-\s]+/g, '-')
    .replace(/^\.+/, '');
  return cleaned === '' ? 'uploaded-file' : cleaned.slice(0, 200);
}

/** Blob keys the gateway makes for files: `uploads/{2 hex}/{24 url-safe}`. */
export const UPLOAD_BLOB_KEY = /^uploads\/([0-9a-f]{2})\/([A-Za-z0-9_-]{24})$/;

export interface UploadFile {
  actor: Actor;
  file: { blob_key: string; name: string; size: number; content_type: string };
  maxBytes: number;
  maxMib: number;
  now: number;
}

export function decideUploadFile(state: AttachmentsState, cmd: UploadFile): { facts: Fact[]; attachment: StoredAttachment } {
  const { file } = cmd;
  if (file.size === 0) throw badRequest('Uploaded file is empty');
  if (file.size > cmd.maxBytes) throw badRequest(`File is larger than this server's configured maximum upload size (${cmd.maxMib} MiB).`);
  const key = UPLOAD_BLOB_KEY.exec(file.blob_key);
  if (!key) throw badRequest('Invalid upload');
  const name = file.name.replace(/\0/g, '').slice(0, 255) || 'uploaded-file';
  const attachment: StoredAttachment = {
    id: state.lastId + 1,
    path_id: `${REALM_ID}/${key[1]}/${key[2]}/${sanitizeFileName(name)}`,
    name,
    size: file.size,
    content_type: file.content_type,
    create_time: Math.floor(cmd.now / 1000),
    owner_id: cmd.actor.user_id,
    blob_key: file.blob_key,
  };
  return { facts: [{ type: 'AttachmentUploaded', attachment, upload_space_used: state.spaceUsed + file.size }], attachment };
}

/** The paths of this server's uploads a message's content links, relative or absolute. */
export function linkedUploadPaths(content: string): string[] {
  const found = new Set<string>();
  for (const match of content.matchAll(/\/user_uploads\/(\d+\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/[^\s)\]"'<>?#]+)/g)) {
    let path = match[1]!;
    try {
      path = decodeURIComponent(path);
    } catch {
      // A broken percent-encoding is no stored path; keep it as written.
    }
    found.add(path);
  }
  return [...found];
}

export interface ClaimAttachments {
  sender_id: number;
  message_id: number;
  /** Seconds since the epoch. */
  date_sent: number;
  path_ids: readonly string[];
}

/** One AttachmentClaimed per file of the sender's that the message links and had not claimed yet. */
export function decideClaimAttachments(state: AttachmentsState, cmd: ClaimAttachments): Fact[] {
  const paths = new Set(cmd.path_ids);
  const facts: Fact[] = [];
  for (const entry of state.byId.values()) {
    if (entry.owner_id !== cmd.sender_id || !paths.has(entry.path_id)) continue;
    if (entry.messages.some((m) => m.id === cmd.message_id)) continue;
    const { messages: _messages, ...attachment } = entry;
    facts.push({
      type: 'AttachmentClaimed',
      attachment,
      messages: [...entry.messages, { id: cmd.message_id, date_sent: cmd.date_sent }],
      upload_space_used: state.spaceUsed,
    });
  }
  return facts;
}

/**
 * One AttachmentReleased per file that had been claimed by the message and that its
 * content (after an edit; nothing for a deleted message) no longer links.
 */
export function decideReleaseAttachments(state: AttachmentsState, cmd: { message_id: number; path_ids: readonly string[] }): Fact[] {
  const paths = new Set(cmd.path_ids);
  const facts: Fact[] = [];
  for (const entry of state.byId.values()) {
    if (paths.has(entry.path_id) || !entry.messages.some((m) => m.id === cmd.message_id)) continue;
    const { messages, ...attachment } = entry;
    facts.push({
      type: 'AttachmentReleased',
      attachment,
      message_id: cmd.message_id,
      messages: messages.filter((m) => m.id !== cmd.message_id),
      upload_space_used: state.spaceUsed,
    });
  }
  return facts;
}

export function decideDeleteAttachment(state: AttachmentsState, cmd: { actor: Actor; attachment_id: number }): Fact[] {
  const entry = state.byId.get(cmd.attachment_id);
  // Another user's file answers as a missing one: its existence is not theirs to learn.
  if (!entry || entry.owner_id !== cmd.actor.user_id) throw badRequest('Invalid attachment');
  return [
    {
      type: 'AttachmentRemoved',
      attachment_id: entry.id,
      owner_id: entry.owner_id,
      blob_key: entry.blob_key,
      upload_space_used: state.spaceUsed - entry.size,
    },
  ];
}
