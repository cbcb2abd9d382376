/**
 * Uploads and attachments: record a stored file, claim files a sent or edited message
 * links, delete a file, and decide who may download one (the uploader, and whoever may
 * see a message of theirs that links it; anyone else is told the file does not exist),
 * and hand out temporary URLs that download a file without credentials.
 */
import { ApiError, badRequest, streams, type Actor, type FileLocation, type StoredAttachment, type UploadedFile } from '@teamchat/contracts';
import type { AggregateRepository } from '@teamchat/platform';
import { checkFileAccessToken, temporaryFileUrl } from '@teamchat/policies';
import {
  decideClaimAttachments,
  decideDeleteAttachment,
  decideReleaseAttachments,
  decideUploadFile,
  linkedUploadPaths,
  type AttachmentsState,
} from '../domain/attachments';
import type { AttachmentsReadModel } from '../projections/attachments';
import { accessibleMessage, type AccessDeps } from '../queries/access';

export interface AttachmentDeps extends AccessDeps {
  attachments: AggregateRepository<AttachmentsState>;
  attachmentModel: AttachmentsReadModel;
  maxFileUploadSizeMib: number;
  /** Signs and checks temporary file URLs (never sent anywhere). */
  serverSecret: string;
}

const MIB = 1024 * 1024;

export async function uploadFile(deps: AttachmentDeps, actor: Actor, file: UploadedFile) {
  const { result, append } = await deps.attachments.execute(streams.attachments, (state) => {
    const { facts, attachment } = decideUploadFile(state, {
      actor,
      file,
      maxBytes: deps.maxFileUploadSizeMib * MIB,
      maxMib: deps.maxFileUploadSizeMib,
      now: Date.now(),
    });
    return { facts, result: attachment };
  });
  const url = `/user_uploads/${result.path_id.split('/').map(encodeURIComponent).join('/')}`;
  return { value: { uri: url, url, filename: result.name }, position: append?.positions.at(-1) };
}

/** After a message is stored: its sender's files that it links are claimed (no-op without links). */
export async function claimAttachments(deps: AttachmentDeps, message: { id: number; sender_id: number; content: string; date_sent: number }) {
  if (!message.content.includes('/user_uploads/')) return undefined;
  const path_ids = linkedUploadPaths(message.content);
  if (path_ids.length === 0) return undefined;
  const { append } = await deps.attachments.execute(streams.attachments, (state) => ({
    facts: decideClaimAttachments(state, { sender_id: message.sender_id, message_id: message.id, date_sent: message.date_sent, path_ids }),
    result: undefined,
  }));
  return append?.positions.at(-1);
}

/** Removes the record; the reply names its blob, whose bytes the gateway then deletes. */
/**
 * After a message's content changed or the message was deleted (`content` undefined): the
 * files it had claimed and no longer links are released, so that its readers lose them.
 */
export async function releaseAttachments(deps: AttachmentDeps, messageId: number, content: string | undefined) {
  const path_ids = content === undefined ? [] : linkedUploadPaths(content);
  const { append } = await deps.attachments.execute(streams.attachments, (state) => ({
    facts: decideReleaseAttachments(state, { message_id: messageId, path_ids }),
    result: undefined,
  }));
  return append?.positions.at(-1);
}

export async function deleteAttachment(deps: AttachmentDeps, actor: Actor, attachmentId: number) {
  const { result, append } = await deps.attachments.execute(streams.attachments, (state) => {
    const facts = decideDeleteAttachment(state, { actor, attachment_id: attachmentId });
    return { facts, result: facts.flatMap((f) => (f.type === 'AttachmentRemoved' ? [f.blob_key] : [])) };
  });
  return { removed_blobs: result, position: append?.positions.at(-1) };
}

const fileNotFound = () => new ApiError('NOT_FOUND', 'File not found', 404);

type FilePathParams = { realm_id: string; dir: string; key: string; filename: string };

/** The attachment at this path, if the actor may download it; to anyone else it does not exist. */
async function readableAttachment(deps: AttachmentDeps, actor: Actor, params: FilePathParams) {
  const pathId = [params.realm_id, params.dir, params.key, params.filename].join('/');
  const doc = await deps.attachmentModel.byPath(pathId);
  if (!doc) throw fileNotFound();
  let allowed = doc.owner_id === actor.user_id;
  for (const message of doc.messages) {
    if (allowed) break;
    allowed = await accessibleMessage(deps, actor, message.id).then(
      () => true,
      () => false,
    );
  }
  if (!allowed) throw fileNotFound();
  return doc;
}

const locationOf = (doc: StoredAttachment): FileLocation => ({ blob_key: doc.blob_key, content_type: doc.content_type, name: doc.name, size: doc.size });

export async function locateFile(deps: AttachmentDeps, actor: Actor, params: FilePathParams): Promise<FileLocation> {
  return locationOf(await readableAttachment(deps, actor, params));
}

/**
 * GET /api/v1/user_uploads/…: a URL that downloads the file without credentials for a
 * minute, issued only after the same decision as the download itself.
 */
export async function fileTemporaryUrl(deps: AttachmentDeps, actor: Actor, params: FilePathParams, now: number): Promise<{ url: string }> {
  const doc = await readableAttachment(deps, actor, params);
  return { url: temporaryFileUrl(deps.serverSecret, doc.path_id, Math.floor(now / 1000)) };
}

/**
 * GET /user_uploads/temporary/{token}/{filename}: the file a genuine, unexpired token names.
 * Every refusal (malformed, altered, for another file, expired, or for a file deleted since)
 * is Zulip's 400 "Invalid token", which tells a prober nothing about which it was.
 */
export async function locateFileWithToken(deps: AttachmentDeps, params: { token: string; filename: string }, now: number): Promise<FileLocation> {
  const check = checkFileAccessToken(deps.serverSecret, params.token, params.filename, Math.floor(now / 1000));
  const doc = check.ok ? await deps.attachmentModel.byPath(check.path_id) : undefined;
  if (!doc) throw badRequest('Invalid token');
  return locationOf(doc);
}

export async function listAttachments(deps: AttachmentDeps, actor: Actor) {
  const docs = await deps.attachmentModel.ownedBy(actor.user_id);
  const attachments = [];
  for (const doc of docs) {
    // A deleted message no longer uses the file.
    const existing = new Set((await deps.model.messages.getMany(doc.messages.map((m) => m.id))).map((m) => m._id));
    attachments.push({
      id: doc._id,
      name: doc.name,
      path_id: doc.path_id,
      size: doc.size,
      create_time: doc.create_time * 1000,
      messages: doc.messages.filter((m) => existing.has(m.id)).map((m) => ({ id: m.id, date_sent: m.date_sent })),
    });
  }
  return { attachments, upload_space_used: await deps.attachmentModel.spaceUsed() };
}
