/**
 * The gateway's side of files: it reads an upload's one file (at most the server's size
 * limit), sniffs its type, stores the bytes in the blob store under a random key and
 * hands the owning service a description of them; it serves a download the owning
 * service allowed, with headers that keep a browser from running or re-typing it; and it
 * serves custom emoji images, which the organization shows to everyone.
 */
import { randomBytes } from 'node:crypto';
import { ApiError, badRequest, REALM_ID, type Endpoint, type FileLocation, type UploadedFile } from '@teamchat/contracts';
import { isBlobKey, type BlobStore, type UploadSettings } from '@teamchat/platform';
import type { MultipartFile } from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { INLINE_IMAGE_TYPES, sniffContentType } from './sniff';

const MIB = 1024 * 1024;

interface ReceivedFile {
  filename: string;
  bytes: Buffer;
}

/** How large one endpoint's file may be, and what to say above it (Zulip's wording). */
export function uploadLimitOf(endpoint: Endpoint, settings: UploadSettings): { maxBytes: number; tooLarge: string } {
  if (endpoint.service === 'accounts') {
    const mib = settings.maxEmojiFileSizeMib;
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
  ) {}

  /**
   * The multipart parser's file hook. Routes without files keep the parser's default (the
   * bytes as the field's value); an upload route keeps each file apart from the fields.
   */
  onFile = async (request: FastifyRequest, part: MultipartFile): Promise<void> => {
    const endpoint = (request.routeOptions.config as { uploadEndpoint?: Endpoint }).uploadEndpoint;
    if (endpoint?.http?.files !== 'upload') {
      await part.toBuffer();
      return;
    }
    let bytes: Buffer;
    try {
      bytes = await part.toBuffer();
    } catch (err) {
      if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw badRequest(uploadLimitOf(endpoint, this.settings).tooLarge);
      throw err;
    }
    // The bytes are the file's, not a form field: they must not reach the parameters.
    delete (part as { _buf?: Buffer })._buf;
    const list = this.received.get(request) ?? [];
    list.push({ filename: part.filename, bytes });
    this.received.set(request, list);
  };

  /** The clear refusal for a file past an upload route's limit, whichever part of the parser noticed it. */
  tooLargeError(request: FastifyRequest, err: unknown): ApiError | undefined {
    const endpoint = (request.routeOptions.config as { uploadEndpoint?: Endpoint } | undefined)?.uploadEndpoint;
    if (!endpoint || (err as { code?: string }).code !== 'FST_REQ_FILE_TOO_LARGE') return undefined;
    return badRequest(uploadLimitOf(endpoint, this.settings).tooLarge);
  }

  /** Stores the request's one file and describes it; `discard` removes it again if the service refuses it. */
  async store(request: FastifyRequest, endpoint: Endpoint): Promise<{ file: UploadedFile; discard: () => Promise<void> }> {
    const files = this.received.get(request) ?? [];
    const emoji = endpoint.service === 'accounts';
    if (files.length === 0) throw badRequest(emoji ? 'You must upload exactly one file.' : 'You must specify a file to upload');
    if (files.length > 1) throw badRequest(emoji ? 'You must upload exactly one file.' : 'You may only upload one file at a time');
    const { filename, bytes } = files[0]!;
    const { maxBytes, tooLarge } = uploadLimitOf(endpoint, this.settings);
    if (bytes.length > maxBytes) throw badRequest(tooLarge);
    if (bytes.length === 0) throw badRequest('Uploaded file is empty');
    const content_type = sniffContentType(bytes);
    const random = randomBytes(18).toString('base64url');
    const blob_key = emoji ? `emoji/${random}` : `uploads/${randomBytes(1).toString('hex')}/${random}`;
    await this.blobs.put(blob_key, bytes, content_type);
    return {
      file: { blob_key, name: filename || 'uploaded-file', size: bytes.length, content_type },
      discard: () => this.blobs.delete(blob_key).catch(() => undefined),
    };
  }

  /**
   * Deletes the bytes of files whose records the owning service removed, and gives the
   * reply without their keys. A failure here leaves bytes no record names (so no link
   * reaches them): logged by the caller's error path, not the client's fault.
   */
  async removeBlobs(value: { removed_blobs?: string[] }): Promise<Record<string, unknown>> {
    const { removed_blobs = [], ...rest } = value;
    for (const key of removed_blobs) if (isBlobKey(key)) await this.blobs.delete(key);
    return rest;
  }

  /** Answers with the bytes of a file the owning service allowed. */
  async send(reply: FastifyReply, location: FileLocation): Promise<FastifyReply> {
    const bytes = await this.blobs.get(location.blob_key);
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
    const bytes = await this.blobs.get(`emoji/${name[1]}`);
    if (!bytes) throw new ApiError('NOT_FOUND', 'File not found', 404);
    const type = sniffContentType(bytes);
    if (!INLINE_IMAGE_TYPES.has(type)) throw new ApiError('NOT_FOUND', 'File not found', 404);
    safeFileHeaders(reply, type);
    return reply.code(200).send(bytes);
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
