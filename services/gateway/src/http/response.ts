/**
 * A success response assembled from the gateway's members and the members a service sent
 * already serialized (BusReply `json`): `{…body},{…json}` joined into one object, the
 * pre-serialized part copied as it is, never parsed.
 */

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
  const out = Buffer.allocUnsafe(headBytes + json.length - open - 1);
  out.write(head, 0);
  out[headBytes - 1] = COMMA; // in place of the head's closing brace
  out.set(json.subarray(open + 1), headBytes);
  return out;
}
