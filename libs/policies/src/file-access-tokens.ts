/**
 * Temporary file URLs (GET /api/v1/user_uploads/{realm_id}/{filename} answers one):
 * `/user_uploads/temporary/{token}/{filename}` downloads a file without credentials for a
 * minute, as Zulip's do, so that a mobile app can hand it to a browser or a media player.
 *
 * Nothing is stored: the token carries the file's path id (all but its last segment, the
 * file name, which the URL carries beside it) and its expiry, and an HMAC of both under a
 * key derived from the server secret for this use alone. A token is good only for the file
 * it was issued for, until its expiry; altering any of its parts, or the file name next to
 * it, fails the check, which compares in constant time. Every process that runs with the
 * same TEAMCHAT_SECRET accepts the tokens of the others.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How long a temporary URL downloads its file (Zulip's SIGNED_ACCESS_TOKEN_VALIDITY_IN_SECONDS). */
export const TEMPORARY_FILE_URL_SECONDS = 60;

/** Bytes of HMAC-SHA256 kept in a token: 192 bits, 32 base64url characters. */
const MAC_BYTES = 24;
const MAC_CHARS = 32;

/**
 * The key tokens are signed with: the server secret never signs anything directly, so a
 * token can be neither an API key nor an invitation key, nor help guess one.
 */
function fileAccessKey(serverSecret: string): Buffer {
  return createHmac('sha256', serverSecret).update('teamchat/user_uploads/temporary-url/v1').digest();
}

function macOf(serverSecret: string, pathId: string, expiresAt: number): Buffer {
  // The NUL keeps the path id from running into the expiry: no path id contains one.
  return createHmac('sha256', fileAccessKey(serverSecret)).update(`${pathId}\0${expiresAt}`).digest().subarray(0, MAC_BYTES);
}

/** `2/ab/KEY/name.png` → [`2/ab/KEY`, `name.png`]; undefined for a path without a directory. */
function splitPathId(pathId: string): [string, string] | undefined {
  const slash = pathId.lastIndexOf('/');
  if (slash <= 0 || slash === pathId.length - 1) return undefined;
  return [pathId.slice(0, slash), pathId.slice(slash + 1)];
}

/**
 * A token for `pathId` that expires at `expiresAt` (seconds since the epoch):
 * `<directory, base64url>.<expiry, base36>.<mac, base64url>`, every part URL-safe.
 */
export function signFileAccessToken(serverSecret: string, pathId: string, expiresAt: number): string {
  const parts = splitPathId(pathId);
  if (!parts || pathId.includes('\0') || !Number.isSafeInteger(expiresAt) || expiresAt < 0) throw new Error('not a file path id or expiry');
  const mac = macOf(serverSecret, pathId, expiresAt).toString('base64url');
  return `${Buffer.from(parts[0]).toString('base64url')}.${expiresAt.toString(36)}.${mac}`;
}

export type FileAccessCheck =
  | { ok: true; path_id: string }
  /** `malformed`: not a token's shape; `forged`: the MAC does not match (any part or the file name altered); `expired`: genuine, past its expiry. */
  | { ok: false; reason: 'malformed' | 'forged' | 'expired' };

/** Whether `token`, with the `filename` beside it in the URL, names a file until after `now` (seconds). */
export function checkFileAccessToken(serverSecret: string, token: string, filename: string, now: number): FileAccessCheck {
  const match = /^([A-Za-z0-9_-]{1,200})\.([0-9a-z]{1,11})\.([A-Za-z0-9_-]+)$/.exec(token);
  if (!match || match[3]!.length !== MAC_CHARS || filename === '' || filename.includes('/') || filename.includes('\0')) {
    return { ok: false, reason: 'malformed' };
  }
  const directory = Buffer.from(match[1]!, 'base64url').toString('utf8');
  const expiresAt = parseInt(match[2]!, 36);
  // Only the canonical spelling of each part is accepted, so one token has one form.
  if (Buffer.from(directory).toString('base64url') !== match[1] || expiresAt.toString(36) !== match[2] || !Number.isSafeInteger(expiresAt)) {
    return { ok: false, reason: 'malformed' };
  }
  const pathId = `${directory}/${filename}`;
  const given = Buffer.from(match[3]!, 'base64url');
  const expected = macOf(serverSecret, pathId, expiresAt);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'forged' };
  // Checked after the MAC: only a genuine token learns that it has expired.
  if (now > expiresAt) return { ok: false, reason: 'expired' };
  return { ok: true, path_id: pathId };
}

/** The temporary URL of a file, at the organization's root: its name, the path id's last segment, encoded. */
export function temporaryFileUrl(serverSecret: string, pathId: string, now: number): string {
  const token = signFileAccessToken(serverSecret, pathId, now + TEMPORARY_FILE_URL_SECONDS);
  return `/user_uploads/temporary/${token}/${encodeURIComponent(splitPathId(pathId)![1])}`;
}
