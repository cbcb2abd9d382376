/**
 * How an API key follows from the server secret and a user's salt. Keys are never stored:
 * accounts derives a key to hand it out, and the events service derives a bot's key for
 * the `realm_bot` events that carry it to the bot's owner and administrators, so both must
 * run with the same TEAMCHAT_SECRET.
 */
import { createHmac } from 'node:crypto';

const KEY_LENGTH = 32;

export function deriveApiKey(serverSecret: string, salt: string): string {
  // Zulip keys are alphanumeric: drop base64url's '-' and '_'. SHA-512's 86 characters
  // leave far more than 32 after that.
  return createHmac('sha512', serverSecret).update(salt).digest('base64url').replace(/[-_]/g, '').slice(0, KEY_LENGTH);
}
