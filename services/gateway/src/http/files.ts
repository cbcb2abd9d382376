/**
 * The gateway's side of files: it streams an upload's one file into the blob store under
 * a random key (refused past the server's size limit), sniffs its type from its first
 * bytes and hands the owning service a description of them; it serves a download the owning
 * service allowed, with headers that keep a browser from running or re-typing it; and it
 * serves custom emoji images, which the organization shows to everyone.
 *
 * A blob store that fails (a full or broken disk, GridFS out of reach) is the server's
 * fault and may pass: the request answers 503 SERVICE_UNAVAILABLE, never 500 and never a
 * client's 400, and an upload whose bytes were not stored reaches no service, so no fact
 * names bytes that are not there. Bytes go in before the fact and are removed again when
 * the request fails after them.
 */
import { randomBytes } from 'node:crypto';
import { ApiError, badRequest, REALM_ID, type Endpoint, type FileLocation, type UploadedFile } from '@teamchat/contracts';
import { isBlobKey, type BlobStore, type UploadSettings } from '@teamchat/platform';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { imageHeaderOf } from './image-header';
import { INLINE_IMAGE_TYPES, SNIFF_HEAD_BYTES, sniffContentType } from './sniff';

const MIB = 1024 * 1024;

/** The answer for a blob store that failed: the server's fault, worth a retry. */
function storageUnavailable(): ApiError {
  return new ApiError('SERVICE_UNAVAILABLE', 'File storage is unavailable; try again shortly', 503);
}

interface ReceivedFile {
  filename: string;
  /** Where its bytes were streamed; undefined for a file past the first, drained unstored. */
  blob_key: string | undefined;
  size: number;
  /** Its first bytes, for sniffing. */
  head: Buffer;
}

/** What an upload route takes: a message's attachment unless its contract says otherwise. */
const uploadKindOf = (endpoint: Endpoint) => endpoint.http?.upload ?? 'attachment';

/** How large one endpoint's file may be, and what to say above it (Zulip's wording). */
export function uploadLimitOf(endpoint: Endpoint, settings: UploadSettings): { maxBytes: number; tooLarge: string } {
  const kind = uploadKindOf(endpoint);
  if (kind !== 'attachment') {
    const mib = kind === 'emoji' ? settings.maxEmojiFileSizeMib : settings.maxAvatarFileSizeMib;
    return { maxBytes: mib * MIB, tooLarge: `Uploaded file is larger than the allowed limit of ${mib} MiB` };
  }
  const mib = settings.maxFileUploadSizeMib;
  return { maxBytes: mib * MIB, tooLarge: `File is larger than this server's configured maximum upload size (${mib} MiB).` };
}

/** Route config of upload routes: busboy stops reading a file one byte past the limit. */
export const uploadRouteConfig = (endpoint: Endpoint, limit: { maxBytes: number }) => ({
  uploadEndpoint: endpoint,
  multipartOptions: { limits: { fileSize: limit.maxBytes, files: 10 }, throwFileSizeLimit: true },
});

export class FileIntake {
  private readonly received = new WeakMap<FastifyRequest, ReceivedFile[]>();

  constructor(
    private readonly blobs: BlobStore,
    private readonly settings: UploadSettings,
    private readonly log?: Pick<Logger, 'warn'>,
  ) {}

  /**
   * The multipart parser's file hook. Routes without files keep the parser's default (the
   * bytes as the field's value). An upload route streams its first file straight into the
   * blob store (never the whole file in memory), keeping its first bytes for sniffing and
   * refusing it as soon as it passes the route's limit (the adapter then removes what it
   * had written); any further file is drained unstored, and `store` refuses the request.
   */
  onFile = async (request: FastifyRequest, part: MultipartFile): Promise<void> => {
    const endpoint = (request.routeOptions.config as { uploadEndpoint?: Endpoint }).uploadEndpoint;
    if (endpoint?.http?.files !== 'upload') {
      await part.toBuffer();
      return;
    }
    const { tooLarge } = uploadLimitOf(endpoint, this.settings);
    const list = this.received.get(request) ?? [];
    this.received.set(request, list);
    const file = part.file;
    const head: Buffer[] = [];
    let headLength = 0;
    // Set when the request's own stream failed (too large, broken): then a failed store is the client's doing.
    let sourceFailed = false;
    const checked = async function* () {
      try {
        // Not destroyed when the store stops reading early: the rest is drained below, so that the parser finishes the body.
        for await (const chunk of file.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
          // busboy stops one byte past the limit and marks the stream truncated.
          if (file.truncated) throw badRequest(tooLarge);
          if (headLength < SNIFF_HEAD_BYTES) {
            const piece = chunk.subarray(0, SNIFF_HEAD_BYTES - headLength);
            head.push(piece);
            headLength += piece.length;
          }
          yield chunk;
        }
        if (file.truncated) throw badRequest(tooLarge);
      } catch (err) {
        sourceFailed = true;
        throw err;
      }
    };
    if (list.length > 0) {
      let size = 0;
      for await (const chunk of checked()) size += chunk.length;
      list.push({ filename: part.filename, blob_key: undefined, size, head: Buffer.concat(head) });
      return;
    }
    const random = randomBytes(18).toString('base64url');
    const kind = uploadKindOf(endpoint);
    const blob_key = kind === 'emoji' ? `emoji/${random}` : kind === 'avatar' ? `avatars/${random}` : `uploads/${randomBytes(1).toString('hex')}/${random}`;
    // The type is sniffed once the head is in; downloads take it from the owning service's record.
    const size = await this.blobs.putStream(blob_key, checked(), 'application/octet-stream').catch(async (err: unknown) => {
      if (sourceFailed) throw err;
      this.log?.warn({ err, blob_key }, 'upload not stored: the blob store failed');
      // The rest of the file is read and dropped (at most the limit: the parser truncates),
      // or the request would never end and the client would wait for an answer.
      if (!file.readableEnded && !file.destroyed) {
        await new Promise<void>((resolve) => {
          file.once('end', resolve).once('close', resolve).once('error', () => resolve());
          file.resume();
        });
      }
      // The adapter leaves no partial data; this covers one that did.
      await this.blobs.delete(blob_key).catch(() => undefined);
      throw storageUnavailable();
    });
    list.push({ filename: part.filename, blob_key, size, head: Buffer.concat(head) });
  };

  /** The clear refusal for a file past an upload route's limit, whichever part of the parser noticed it. */
  tooLargeError(request: FastifyRequest, err: unknown): ApiError | undefined {
    const endpoint = (request.routeOptions.config as { uploadEndpoint?: Endpoint } | undefined)?.uploadEndpoint;
    if (!endpoint || (err as { code?: string }).code !== 'FST_REQ_FILE_TOO_LARGE') return undefined;
    return badRequest(uploadLimitOf(endpoint, this.settings).tooLarge);
  }

  /** Deletes the stored bytes of a request's files that no service took (a refusal, a broken body). */
  async discardUnclaimed(request: FastifyRequest): Promise<void> {
    const list = this.received.get(request);
    if (!list) return;
    this.received.delete(request);
    for (const f of list) if (f.blob_key) await this.blobs.delete(f.blob_key).catch(() => undefined);
  }

  /** Describes the request's one stored file; `discard` removes it again if the service refuses it. */
  async store(request: FastifyRequest, endpoint: Endpoint): Promise<{ file: UploadedFile; discard: () => Promise<void> }> {
    const files = this.received.get(request) ?? [];
    const kind = uploadKindOf(endpoint);
    const refuse = async (msg: string) => {
      await this.discardUnclaimed(request);
      return badRequest(msg);
    };
    const notOne = kind === 'emoji' ? 'You must upload exactly one file.' : kind === 'avatar' ? 'You must upload exactly one avatar.' : undefined;
    if (files.length === 0) throw await refuse(notOne ?? 'You must specify a file to upload');
    if (files.length > 1) throw await refuse(notOne ?? 'You may only upload one file at a time');
    const { filename, blob_key, size, head } = files[0]!;
    const { maxBytes, tooLarge } = uploadLimitOf(endpoint, this.settings);
    if (size > maxBytes) throw await refuse(tooLarge);
    if (size === 0 || !blob_key) throw await refuse('Uploaded file is empty');
    // Handed over: from here the handler's `discard` decides.
    this.received.delete(request);
    const content_type = sniffContentType(head);
    const image = imageHeaderOf(head, content_type, size <= head.length);
    return {
      file: { blob_key, name: filename || 'uploaded-file', size, content_type, ...(image ? { image } : {}) },
      discard: () => this.blobs.delete(blob_key).catch(() => undefined),
    };
  }

  /**
   * Deletes the bytes of files whose records the owning service removed, and gives the
   * reply without their keys. The record is already gone, so the deletion has happened
   * for the client: a failure here leaves bytes no record names (no link reaches them)
   * and is logged for the operator, not answered as an error.
   */
  async removeBlobs(value: { removed_blobs?: string[] }): Promise<Record<string, unknown>> {
    const { removed_blobs = [], ...rest } = value;
    for (const key of removed_blobs) {
      if (!isBlobKey(key)) continue;
      await this.blobs.delete(key).catch((err: unknown) => this.log?.warn({ err, blob_key: key }, 'bytes of a deleted file not removed'));
    }
    return rest;
  }

  /** Answers with the bytes of a file the owning service allowed. */
  async send(reply: FastifyReply, location: FileLocation): Promise<FastifyReply> {
    const bytes = await this.read(location.blob_key);
    if (!bytes) throw new ApiError('NOT_FOUND', 'File not found', 404);
    const inline = INLINE_IMAGE_TYPES.has(location.content_type);
    safeFileHeaders(reply, location.content_type);
    if (!inline) reply.header('Content-Disposition', contentDisposition(location.name));
    return reply.code(200).send(bytes);
  }

  /** GET /user_avatars/{realm_id}/emoji/images/{file}: a custom emoji's image (deactivated ones too, for old messages). */
  async sendEmojiImage(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { realm_id, file } = request.params as { realm_id: string; file: string };
    const name = /^([A-Za-z0-9_-]{24})\.(png|jpg|gif|webp)$/.exec(file);
    if (realm_id !== String(REALM_ID) || !name) throw new ApiError('NOT_FOUND', 'File not found', 404);
    const bytes = await this.read(`emoji/${name[1]}`);
    if (!bytes) throw new ApiError('NOT_FOUND', 'File not found', 404);
    const type = sniffContentType(bytes);
    if (!INLINE_IMAGE_TYPES.has(type)) throw new ApiError('NOT_FOUND', 'File not found', 404);
    safeFileHeaders(reply, type);
    return reply.code(200).send(bytes);
  }

  /**
   * GET /user_avatars/{realm_id}/{file}: an uploaded avatar, public as Zulip's are (its
   * name is random); `-medium` names the same picture. The URL's `version` changes with
   * every avatar change, so a long cache never shows an old one.
   */
  async sendAvatarImage(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const { realm_id, file } = request.params as { realm_id: string; file: string };
    const name = /^([A-Za-z0-9_-]{24})(?:-medium)?\.(png|jpg|gif|webp)$/.exec(file);
    if (realm_id !== String(REALM_ID) || !name) throw new ApiError('NOT_FOUND', 'File not found', 404);
    const bytes = await this.read(`avatars/${name[1]}`);
    if (!bytes) throw new ApiError('NOT_FOUND', 'File not found', 404);
    const type = sniffContentType(bytes);
    if (!INLINE_IMAGE_TYPES.has(type)) throw new ApiError('NOT_FOUND', 'File not found', 404);
    safeFileHeaders(reply, type);
    return reply.code(200).send(bytes);
  }

  private async read(key: string): Promise<Buffer | undefined> {
    try {
      return await this.blobs.get(key);
    } catch (err) {
      this.log?.warn({ err, blob_key: key }, 'file not read: the blob store failed');
      throw storageUnavailable();
    }
  }
}

/**
 * Headers of every file served: its sniffed type, taken as final (nosniff), a policy
 * under which nothing in it may load or run (an SVG or HTML opened directly stays
 * inert), and private caching, since who may read it is per user.
 */
function safeFileHeaders(reply: FastifyReply, contentType: string): void {
  reply.header('Content-Type', contentType);
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'; sandbox");
  reply.header('Cache-Control', 'private, max-age=3600');
  reply.header('Cross-Origin-Resource-Policy', 'same-origin');
}

/** RFC 6266: an ASCII fallback name and the real one encoded (RFC 8187). */
export function contentDisposition(name: string): string {
  const fallback = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}
