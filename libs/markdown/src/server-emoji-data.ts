/**
 * The server's emoji data, the file `server_emoji_data_url` (POST /register) names: every
 * unicode emoji this server renders, as Zulip's `code_to_names` map from a code (the
 * catalogue's, FE0F dropped) to its names, canonical first. The Zulip apps fetch it,
 * without credentials, for their emoji pickers and `:name:` completion.
 *
 * It is made from the renderer's own catalogue (emoji.ts), so a name the apps offer is one
 * that renders, and its URL carries a hash of its contents: the file never changes at one
 * URL, so it may be cached for good, and a server with other emoji data names another URL.
 */
import { createHash } from 'node:crypto';
import { emojiCodeToNames } from './emoji';

/** Where the file is served, as Zulip serves its own (`emoji_api.<hash>.json`). */
export const SERVER_EMOJI_DATA_DIR = '/static/generated/emoji';

export interface ServerEmojiData {
  /** The file's body: `{"code_to_names": {...}}`. */
  json: string;
  /** The first 16 hex digits of the body's SHA-256: its version, in its URL and ETag. */
  hash: string;
  /** Its path at the organization's root, hash included. */
  path: string;
}

let built: ServerEmojiData | undefined;

/** The file, built once per process from the catalogue. */
export function serverEmojiData(): ServerEmojiData {
  if (!built) {
    const json = JSON.stringify({ code_to_names: emojiCodeToNames() });
    const hash = createHash('sha256').update(json).digest('hex').slice(0, 16);
    built = { json, hash, path: `${SERVER_EMOJI_DATA_DIR}/emoji_api.${hash}.json` };
  }
  return built;
}

/**
 * `server_emoji_data_url` for POST /register: absolute, because the apps fetch it as it
 * is (the Flutter app sends it to its HTTP client without resolving it against the realm).
 */
export function serverEmojiDataUrl(realmUri: string): string {
  return realmUri.replace(/\/+$/, '') + serverEmojiData().path;
}
