import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import { apiKeyMatches, deriveApiKey, hashApiKey, newCredentials, newSalt } from '../src/domain/credentials';

describe('deriveApiKey', () => {
  it('is 32 alphanumeric characters', () => {
    for (let i = 0; i < 200; i++) expect(deriveApiKey('server-secret', `salt-${i}`)).toMatch(/^[A-Za-z0-9]{32}$/);
  });

  it('is the same for the same secret and salt', () => {
    expect(deriveApiKey('server-secret', 'abc')).toBe(deriveApiKey('server-secret', 'abc'));
  });

  it('differs across salts', () => {
    expect(deriveApiKey('server-secret', 'abc')).not.toBe(deriveApiKey('server-secret', 'abd'));
  });

  it('differs across secrets', () => {
    expect(deriveApiKey('server-secret', 'abc')).not.toBe(deriveApiKey('server-secreT', 'abc'));
  });

  it('gives distinct keys for many salts', () => {
    const keys = new Set(Array.from({ length: 500 }, (_, i) => deriveApiKey('s', String(i))));
    expect(keys.size).toBe(500);
  });
});

describe('apiKeyMatches', () => {
  const key = deriveApiKey('server-secret', 'abc');

  it('is true for the key whose hash is kept', () => {
    expect(apiKeyMatches(key, hashApiKey(key))).toBe(true);
  });

  it('is false for another key', () => {
    expect(apiKeyMatches(deriveApiKey('server-secret', 'abd'), hashApiKey(key))).toBe(false);
  });

  it('is false for the key in another case', () => {
    expect(apiKeyMatches(key.toLowerCase() === key ? key.toUpperCase() : key.toLowerCase(), hashApiKey(key))).toBe(false);
  });

  it('is false, without throwing, for an empty or malformed hash', () => {
    expect(apiKeyMatches(key, '')).toBe(false);
    expect(apiKeyMatches(key, 'not-hex')).toBe(false);
    expect(apiKeyMatches(key, hashApiKey(key).slice(0, 62))).toBe(false);
  });

  it('is false for an empty key', () => {
    expect(apiKeyMatches('', hashApiKey(key))).toBe(false);
  });
});

describe('hashApiKey', () => {
  it('is the hex SHA-256 of the key', () => {
    expect(hashApiKey('abc')).toBe(createHash('sha256').update('abc').digest('hex'));
    expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('newCredentials', () => {
  it('keeps only the hash of the key derived from the secret and a fresh salt', () => {
    const { api_key_salt, api_key_hash } = newCredentials('server-secret');
    expect(api_key_salt).toMatch(/^[0-9a-f]{32}$/);
    expect(apiKeyMatches(deriveApiKey('server-secret', api_key_salt), api_key_hash)).toBe(true);
    expect(apiKeyMatches(deriveApiKey('other-secret', api_key_salt), api_key_hash)).toBe(false);
  });

  it('uses a new salt every time', () => {
    expect(newCredentials('s').api_key_salt).not.toBe(newCredentials('s').api_key_salt);
    expect(newSalt()).not.toBe(newSalt());
  });
});
