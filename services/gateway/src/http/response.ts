/**
 * A success response assembled from the gateway's members and the members a service sent
 * already serialized (BusReply `json`): `{…body},{…json}` joined into one object, the
 * pre-serialized part copied as it is, never parsed.
 */

import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import type { SerializedMembers } from '@teamchat/contracts';
import { claimLent, isPieces, roomBefore, stageTracing, traceStage } from '@teamchat/platform';

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const COMMA = 0x2c;
/** The whitespace JSON allows around an object's members. */
const WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

export function joinMembers(body: Record<string, unknown>, json: string | Uint8Array): string | Buffer {
  const head = JSON.stringify(body);
  if (typeof json === 'string') {
    const members = json.slice(1, -1).trim();
    return members ? `${head.slice(0, -1)},${members}}` : head;
  }
  // Bytes (moved from a worker thread) are written after the head's bytes, from just
  // past their opening brace, so that their closing brace closes the whole object.
  let open = 0;
  while (WHITESPACE.has(json[open]!)) open++;
  if (json[open] !== OPEN_BRACE) throw new Error('pre-serialized members are not a JSON object');
  let first = open + 1;
  while (WHITESPACE.has(json[first]!)) first++;
  if (json[first] === CLOSE_BRACE) return head;
  const headBytes = Buffer.byteLength(head);
  // Bytes lent from a thread's arena have room before them: the head goes there, the brace
  // becomes the comma, and the body is the same memory, not a copy of it.
  if (open === 0 && roomBefore(json) >= headBytes - 1) {
    const start = json.byteOffset - (headBytes - 1);
    const whole = Buffer.from(json.buffer, start, json.byteLength + headBytes - 1);
    whole.write(head, 0);
    whole[headBytes - 1] = COMMA;
    return sendable(whole);
  }
  const out = Buffer.allocUnsafe(headBytes + json.length - open - 1);
  out.write(head, 0);
  out[headBytes - 1] = COMMA; // in place of the head's closing brace
  out.set(json.subarray(open + 1), headBytes);
  return out;
}

/**
 * The response as chunks to write one after another, for members a service sent as
 * several objects' bytes (SerializedMembers: POST /register, each owner's sections): the
 * gateway's members, then each object's members, as one object. Nothing is copied but
 * the gateway's own members; each piece's bytes between its braces are written where
 * they are (about 7 MB at 10,000 users, which joining would copy once more).
 */
export function memberChunks(body: Record<string, unknown>, pieces: readonly Uint8Array[]): Buffer[] {
  const head = JSON.stringify(body);
  const chunks = membersChunks(pieces);
  if (chunks.length === 0) return [Buffer.from(head)];
  // The head without its closing brace (the first comma follows it), and the brace at the end.
  chunks[0] = Buffer.from(`${head.slice(0, -1)},`);
  chunks.push(CLOSE_BYTE);
  return chunks;
}

/**
 * An object's members as chunks that follow others: a comma, then its bytes between its
 * braces, where they are (none for an empty object). Text is encoded; bytes must be
 * compact by contract, anything else would make broken JSON, so it is refused.
 */
function innerChunks(piece: string | Uint8Array): Buffer[] {
  if (typeof piece === 'string') {
    const members = piece.slice(1, -1).trim();
    return members ? [COMMA_BYTE, Buffer.from(members)] : [];
  }
  if (piece[0] !== OPEN_BRACE || piece[piece.length - 1] !== CLOSE_BRACE) throw new Error('pre-serialized members are not a compact JSON object');
  return piece.length === 2 ? [] : [COMMA_BYTE, Buffer.from(piece.buffer, piece.byteOffset + 1, piece.length - 2)];
}

const membersChunks = (json: SerializedMembers): Buffer[] => (isPieces(json) ? json.flatMap(innerChunks) : innerChunks(json));

const COMMA_BYTE = Buffer.from(',');
const CLOSE_BYTE = Buffer.from('}');

/**
 * Sends the gateway's members and several objects' bytes as one JSON object (memberChunks),
 * its length known up front, written straight to the socket in one corked batch. Fastify
 * takes several chunks only as a stream; given one, the main thread ran a full collection
 * every 8 registrations at 10,000 users (12-23 ms each; the stream held the 7 MB across
 * turns, long enough for the collector to promote them), which writing at once does not.
 * The reply is taken over from Fastify, so its response hooks do not run for it: none
 * applies to these answers but the stage trace's last line, written here.
 */
export function sendMemberPieces(reply: FastifyReply, body: Record<string, unknown>, pieces: readonly Uint8Array[]): FastifyReply {
  const chunks = memberChunks(body, pieces);
  let length = 0;
  for (const chunk of chunks) length += chunk.length;
  const response = takeOver(reply, { 'content-length': length });
  response.cork();
  for (const chunk of chunks) response.write(chunk);
  response.end();
  response.uncork();
  return reply;
}

/**
 * A success answer: the gateway's members (`result`, `msg`, the reply's value) and those
 * the service sent serialized, as one object, in whichever way fits how they came: after
 * the parts already written (AnswerInParts), as Fastify's body, as pieces written at once,
 * or joined with the serialized members.
 */
export function sendSuccess(reply: FastifyReply, body: { result: 'success'; msg: string } & Record<string, unknown>, json: SerializedMembers | undefined, parts?: AnswerInParts): FastifyReply {
  if (parts) {
    const { result: _result, msg: _msg, ...members } = body;
    parts.finish(members, json);
    return reply;
  }
  if (json === undefined) return reply.send(body);
  if (isPieces(json)) return sendMemberPieces(reply, body, json);
  return reply.type('application/json; charset=utf-8').send(joinMembers(body, json));
}

/**
 * Takes the response over from Fastify and sends its status, 200, with the headers set so
 * far (the rate limits') and `extra`. Fastify's response hooks do not run for it: none
 * applies to the answers written this way but the stage trace's last line, written here.
 */
function takeOver(reply: FastifyReply, extra: OutgoingHttpHeaders): ServerResponse {
  const response = reply.raw;
  reply.hijack();
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
  response.writeHead(200, { ...headers, 'content-type': 'application/json; charset=utf-8', ...extra });
  if (stageTracing) {
    const started = performance.now();
    response.once('finish', () => traceStage('http.response', `${reply.request.method} ${reply.request.url.split('?')[0]} ${(performance.now() - started).toFixed(3)}`));
  }
  return response;
}

/**
 * A success answer written as its members arrive (an `inParts` endpoint, POST /register):
 * started at the service's first part, each part written as it comes, the reply's members
 * last. Its length is known only at the end, so the body goes chunked. The status is out
 * with the first part: a failure after it cuts the connection (`cut`), so that the client
 * sees a broken response, never an object it could take for the whole answer.
 */
export class AnswerInParts {
  private readonly response: ServerResponse;
  /** Whether the object's start is written (it goes with the first members, in one batch). */
  private begun = false;

  constructor(reply: FastifyReply) {
    this.response = takeOver(reply, {});
  }

  /** A part's members, written where they are; lent bytes go back once the response is done. */
  write(json: SerializedMembers): void {
    lendUntilDone(this.response, json);
    this.writeAll(membersChunks(json));
  }

  /** The reply's members (the gateway's and those the service serialized), and the end. */
  finish(members: Record<string, unknown>, json: SerializedMembers | undefined): void {
    const own = JSON.stringify(members).slice(1, -1);
    const chunks: Buffer[] = own ? [COMMA_BYTE, Buffer.from(own)] : [];
    if (json !== undefined) chunks.push(...membersChunks(json));
    chunks.push(CLOSE_BYTE);
    this.writeAll(chunks);
    this.response.end();
  }

  cut(): void {
    this.response.destroy();
  }

  private writeAll(chunks: readonly Buffer[]): void {
    this.response.cork();
    if (!this.begun) this.response.write(ANSWER_HEAD);
    this.begun = true;
    for (const chunk of chunks) this.response.write(chunk);
    this.response.uncork();
  }
}

/** What every answer in parts begins with, as a whole answer does. */
const ANSWER_HEAD = Buffer.from(JSON.stringify({ result: 'success', msg: '' }).slice(0, -1));

/**
 * Fastify sends a Buffer as bytes only if its `buffer` is an ArrayBuffer (reply.js); one
 * over shared memory would be serialized as an object. Node writes a view's own memory
 * whatever that property says, so the view gets one that passes the test.
 */
const NOT_SHARED = new ArrayBuffer(0);
function sendable(bytes: Buffer): Buffer {
  Object.defineProperty(bytes, 'buffer', { value: NOT_SHARED });
  return bytes;
}

/** Keeps bytes lent from a thread's arena until the response that writes them is done, then gives them back. */
export function lendUntilDone(response: ServerResponse, json: unknown): void {
  const release = claimLent(json);
  if (!release) return;
  if (response.closed) release();
  else response.once('close', release);
}
