/**
 * GET /static/generated/emoji/emoji_api.<hash>.json: the server's emoji data (libs/markdown's
 * server-emoji-data.ts), which POST /register names as `server_emoji_data_url`. Public, as
 * Zulip's static files are: the apps fetch it without credentials, and it says nothing of
 * the organization.
 *
 * At its hashed URL it never changes, so it is cached for a year; the unhashed name Zulip
 * also serves answers the same bytes but must be revalidated (its ETag is the hash), and a
 * hash of other data (a URL from before an upgrade) is not found, so that no client caches
 * old names under it. The body is compressed once per process, for clients that accept gzip.
 */
import { gzipSync } from 'node:zlib';
import { SERVER_EMOJI_DATA_DIR, serverEmojiData } from '@teamchat/markdown';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The route's path; `:file` is `emoji_api.json` or `emoji_api.<hash>.json`. */
export const EMOJI_DATA_ROUTE = `${SERVER_EMOJI_DATA_DIR}/:file`;

const YEAR_SECONDS = 365 * 24 * 3600;

interface Body {
  etag: string;
  plain: Buffer;
  gzip: Buffer;
}

let body: Body | undefined;

function built(): Body {
  if (!body) {
    const data = serverEmojiData();
    const plain = Buffer.from(data.json);
    body = { etag: `"${data.hash}"`, plain, gzip: gzipSync(plain) };
  }
  return body;
}

/** Whether an If-None-Match header names this ETag (or `*`), so that 304 answers. */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim().replace(/^W\//, '');
    return t === '*' || t === etag;
  });
}

/** Whether the client accepts gzip (not refused with q=0). */
function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(',').some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(';');
    if (coding !== 'gzip' && coding !== '*') return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** Answers the emoji data, or false when `file` names none (the caller answers 404). */
export function sendEmojiData(request: FastifyRequest, reply: FastifyReply): FastifyReply | false {
  const { file } = request.params as { file: string };
  const { hash } = serverEmojiData();
  const hashed = file === `emoji_api.${hash}.json`;
  if (!hashed && file !== 'emoji_api.json') return false;
  const { etag, plain, gzip } = built();
  reply.header('ETag', etag);
  reply.header('Cache-Control', hashed ? `public, max-age=${YEAR_SECONDS}, immutable` : 'public, no-cache');
  reply.header('Vary', 'Accept-Encoding');
  // Read by apps and by web pages of other origins alike (Zulip serves its static files so).
  reply.header('Access-Control-Allow-Origin', '*');
  reply.header('X-Content-Type-Options', 'nosniff');
  if (matches(request.headers['if-none-match'], etag)) return reply.code(304).send();
  reply.header('Content-Type', 'application/json; charset=utf-8');
  if (acceptsGzip(request.headers['accept-encoding'])) {
    reply.header('Content-Encoding', 'gzip');
    return reply.code(200).send(gzip);
  }
  return reply.code(200).send(plain);
}
