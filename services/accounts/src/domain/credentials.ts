/**
 * API keys are never stored: a key is derived from the server secret and a per-user
 * random salt, and only its SHA-256 is kept for checking. Whoever reads the event store
 * or the read models alone cannot authenticate; the server can still hand a user's key
 * out again (development key endpoint, JWT exchange) without rotating it.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { deriveApiKey } from '@teamchat/policies';

export { deriveApiKey };

export function newSalt(): string {
  return randomBytes(16).toString('hex');
}

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

export function apiKeyMatches(apiKey: string, expectedHash: string): boolean {
  const actual = Buffer.from(hashApiKey(apiKey), 'hex');
  const expected = Buffer.from(expectedHash, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export function newCredentials(serverSecret: string): { api_key_salt: string; api_key_hash: string } {
  const api_key_salt = newSalt();
  return { api_key_salt, api_key_hash: hashApiKey(deriveApiKey(serverSecret, api_key_salt)) };
}
