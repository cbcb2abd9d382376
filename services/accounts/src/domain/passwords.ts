/**
 * Passwords: kept only as scrypt hashes (memory-hard: 2^14 × 8 × 128 bytes = 16 MiB per
 * attempt), compared in constant time. A login for an unknown email hashes against a dummy
 * hash with the same parameters, so that the answer takes as long whether or not the
 * account exists. The hashing is node:crypto's asynchronous scrypt (libuv's thread pool),
 * so a login never blocks the service's event loop.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

// Django's scrypt defaults (N 2^14, r 8, p 1: 16 MiB and a few hundred milliseconds per hash).
const PARAMS = { N: 2 ** 14, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
/** Zulip's bounds: a password is at most 100 characters; an empty one is no password. */
export const MAX_PASSWORD_LENGTH = 100;

function scryptAsync(password: string, salt: Buffer, params: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => scrypt(password, salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `scrypt$N$r$p$salt$hash`, salt and hash in base64. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scryptAsync(password, salt, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$');
}

interface Parsed {
  params: { N: number; r: number; p: number };
  salt: Buffer;
  key: Buffer;
}

function parse(stored: string): Parsed | undefined {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  if (!Object.values(params).every((v) => Number.isInteger(v) && v > 0)) return undefined;
  return { params, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

/** A hash nobody's password matches, to spend an unknown account's time on. */
const DUMMY = `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${randomBytes(16).toString('base64')}$${randomBytes(KEY_LENGTH).toString('base64')}`;

/**
 * Whether `password` matches `stored`; with no stored hash (unknown user, or one without a
 * password) the dummy is hashed anyway and the answer is false.
 */
export async function passwordMatches(password: string, stored: string | undefined): Promise<boolean> {
  const parsed = parse(stored ?? DUMMY) ?? parse(DUMMY)!;
  const actual = await scryptAsync(password, parsed.salt, parsed.params);
  const same = actual.length === parsed.key.length && timingSafeEqual(actual, parsed.key);
  return same && stored !== undefined;
}
