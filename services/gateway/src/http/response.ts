/**
 * A success response assembled from the gateway's members and the members a service sent
 * already serialized (BusReply `json`): `{…body},{…json}` joined into one object, the
 * pre-serialized part copied as it is, never parsed.
 */

import type { ServerResponse } from 'node:http';
import { claimLent, roomBefore } from '@teamchat/platform';

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
