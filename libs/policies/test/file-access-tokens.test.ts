import { describe, expect, it } from '@jest/globals';
import { checkFileAccessToken, signFileAccessToken, TEMPORARY_FILE_URL_SECONDS, temporaryFileUrl } from '@teamchat/policies';

const SECRET = 'a'.repeat(64);
const PATH = '2/ab/AbCdEfGhIjKlMnOpQrStUvWx/my-cat.png';
const NOW = 1_750_000_000;

/** The token and file name of a temporary URL. */
function partsOf(url: string): { token: string; filename: string } {
  const match = /^\/user_uploads\/temporary\/([^/]+)\/([^/]+)$/.exec(url);
  expect(match).not.toBeNull();
  return { token: match![1]!, filename: decodeURIComponent(match![2]!) };
}

/** The token with one character of part `index` (0 directory, 1 expiry, 2 mac) changed. */
function altered(token: string, index: number): string {
  const parts = token.split('.');
  const part = parts[index]!;
  const swap = (c: string) => (index === 1 ? (c === '1' ? '2' : '1') : c === 'A' ? 'B' : 'A');
  parts[index] = swap(part[0]!) + part.slice(1);
  return parts.join('.');
}

describe('temporary file URLs', () => {
  it('given a file, when its temporary URL is made, then it names the file at the root and checks out until it expires', () => {
    const url = temporaryFileUrl(SECRET, PATH, NOW);
    const { token, filename } = partsOf(url);
    expect(filename).toBe('my-cat.png');
    // Within the router's 100-character limit on a path parameter.
    expect(token.length).toBeLessThanOrEqual(100);
    expect(token).toMatch(/^[A-Za-z0-9_.-]+$/);
    expect(checkFileAccessToken(SECRET, token, filename, NOW)).toEqual({ ok: true, path_id: PATH });
    expect(checkFileAccessToken(SECRET, token, filename, NOW + TEMPORARY_FILE_URL_SECONDS)).toEqual({ ok: true, path_id: PATH });
  });

  it('lasts Zulip\'s 60 seconds: one second later it is expired', () => {
    expect(TEMPORARY_FILE_URL_SECONDS).toBe(60);
    const { token, filename } = partsOf(temporaryFileUrl(SECRET, PATH, NOW));
    expect(checkFileAccessToken(SECRET, token, filename, NOW + 61)).toEqual({ ok: false, reason: 'expired' });
    expect(checkFileAccessToken(SECRET, token, filename, NOW + 86_400)).toEqual({ ok: false, reason: 'expired' });
  });

  it('encodes a file name outside ASCII in the URL and checks it decoded', () => {
    const path = '2/0f/AbCdEfGhIjKlMnOpQrStUvWx/Überblick-日本.pdf';
    const url = temporaryFileUrl(SECRET, path, NOW);
    expect(url).toMatch(/\/%C3%9Cberblick-%E6%97%A5%E6%9C%AC\.pdf$/);
    const { token, filename } = partsOf(url);
    expect(checkFileAccessToken(SECRET, token, filename, NOW)).toEqual({ ok: true, path_id: path });
  });

  it('refuses a token with any part altered (directory, expiry, MAC) as forged', () => {
    const { token, filename } = partsOf(temporaryFileUrl(SECRET, PATH, NOW));
    for (const index of [0, 1, 2]) {
      const result = checkFileAccessToken(SECRET, altered(token, index), filename, NOW);
      expect(result.ok).toBe(false);
      expect(['forged', 'malformed']).toContain((result as { reason: string }).reason);
    }
    // A later expiry written in, the MAC kept: the expiry is signed.
    const [dir, , mac] = token.split('.');
    expect(checkFileAccessToken(SECRET, `${dir}.${(NOW + 3600).toString(36)}.${mac}`, filename, NOW)).toEqual({ ok: false, reason: 'forged' });
  });

  it('refuses a token next to another file name, or for another file, and one signed with another secret', () => {
    const { token, filename } = partsOf(temporaryFileUrl(SECRET, PATH, NOW));
    expect(checkFileAccessToken(SECRET, token, 'other.png', NOW)).toEqual({ ok: false, reason: 'forged' });
    const other = partsOf(temporaryFileUrl(SECRET, '2/cd/ZyXwVuTsRqPoNmLkJiHgFeDc/my-cat.png', NOW));
    // Another file's directory with this file's MAC.
    const [dir] = other.token.split('.');
    const [, exp, mac] = token.split('.');
    expect(checkFileAccessToken(SECRET, `${dir}.${exp}.${mac}`, filename, NOW)).toEqual({ ok: false, reason: 'forged' });
    expect(checkFileAccessToken('b'.repeat(64), token, filename, NOW)).toEqual({ ok: false, reason: 'forged' });
  });

  it('refuses what is not a token at all as malformed', () => {
    const { token, filename } = partsOf(temporaryFileUrl(SECRET, PATH, NOW));
    const [dir, exp, mac] = token.split('.');
    for (const bad of ['', 'x', 'a.b', `${dir}.${exp}`, `${dir}.${exp}.${mac}.x`, `${dir}.${exp}.${mac!.slice(1)}`, `${dir}=.${exp}.${mac}`, `${dir}.${exp!.toUpperCase()}.${mac}`, `${dir}.${exp}.${mac}=`, `${dir}.-1.${mac}`]) {
      expect(checkFileAccessToken(SECRET, bad, filename, NOW)).toEqual({ ok: false, reason: 'malformed' });
    }
    for (const name of ['', 'a/b.png', 'a\0.png']) expect(checkFileAccessToken(SECRET, token, name, NOW)).toEqual({ ok: false, reason: 'malformed' });
  });

  it('signs only path ids with a directory and a name', () => {
    for (const bad of ['name.png', '/name.png', '2/ab/']) expect(() => signFileAccessToken(SECRET, bad, NOW)).toThrow();
    expect(() => signFileAccessToken(SECRET, PATH, -1)).toThrow();
  });
});
