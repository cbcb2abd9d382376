/**
 * The HTTP suite for files as the Zulip apps fetch them (issue 37 items 2 and 4), run
 * against every mode: GET /api/v1/user_uploads/… answers a temporary URL that downloads
 * the file without credentials for a minute, given only to who may read the file, while
 * the root path keeps serving the bytes to an authenticated caller; every bad token
 * (malformed, altered, next to another file, expired, for a deleted file) is refused and
 * serves nothing. And the server's emoji data, public and cacheable at the URL POST
 * /register names, agrees with what the renderer renders.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { serverEmojiData } from '@teamchat/markdown';
import { signFileAccessToken } from '@teamchat/policies';
import type { Client, RunningServer } from './harness';
import { del, suiteServer } from './suite-kit';
import { download, PNG, uploadFiles, UPLOADS_ENV } from './uploads-suite';

/** A known secret, so that the suite can sign a genuine token that has already expired. */
const SECRET = 'file-urls-suite-secret-0123456789abcdef0123456789abcdef0123456789';
export const FILE_URLS_ENV = { ...UPLOADS_ENV, TEAMCHAT_SECRET: SECRET };

const TEMPORARY_URL = /^\/user_uploads\/temporary\/([A-Za-z0-9_.-]+)\/([^/]+)$/;

export function fileUrlsSuite(mode: string, start: (env: Record<string, string>) => Promise<RunningServer>) {
  describe(`file URLs for the apps and the server emoji data (${mode})`, () => {
    const { clients } = suiteServer(() => start(FILE_URLS_ENV), ['owner', 'admin', 'member', 'member2', 'guest'], 120_000);
    let owner: Client;
    let admin: Client;
    let member: Client;
    let member2: Client;
    let guest: Client;
    let root: string;
    beforeAll(() => {
      ({ owner, admin, member, member2, guest } = clients);
      root = member.api.replace(/\/api\/v1$/, '');
    });

    /** GET without credentials at the organization's root. */
    const anonymous = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(`${root}${path}`, { headers });
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    };
    /** The apps' request: the upload's path under /api/v1. */
    const temporaryUrlOf = (client: Client, url: string) => client.get(url);
    const send = (client: Client, to: string, content: string) => client.post('/messages', { type: 'stream', to, topic: 'app files', content });
    const upload = async (client: Client, name: string, bytes: Buffer) => {
      const reply = await uploadFiles(client, [{ name, bytes }]);
      expect(reply.status).toBe(200);
      return reply.body.url as string;
    };
    /** A refusal that serves no file: Zulip's JSON error, 400 "Invalid token". */
    const expectInvalidToken = (reply: { status: number; bytes: Buffer }) => {
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.bytes.toString())).toEqual({ result: 'error', msg: 'Invalid token', code: 'BAD_REQUEST' });
    };

    describe('temporary URLs (GET /api/v1/user_uploads/…)', () => {
      let imageUrl: string;
      let temporary: string;

      it('answers the uploader a temporary URL that downloads the file without credentials', async () => {
        imageUrl = await upload(member, 'my cat.png', PNG);
        const reply = await temporaryUrlOf(member, imageUrl);
        expect(reply.status).toBe(200);
        expect(reply.body).toEqual({ result: 'success', msg: '', url: expect.stringMatching(TEMPORARY_URL) });
        temporary = reply.body.url;
        expect(TEMPORARY_URL.exec(temporary)![2]).toBe('my-cat.png');
        const file = await anonymous(temporary);
        expect(file.status).toBe(200);
        expect(file.bytes.equals(PNG)).toBe(true);
        expect(file.headers.get('content-type')).toBe('image/png');
        expect(file.headers.get('x-content-type-options')).toBe('nosniff');
        expect(file.headers.get('content-security-policy')).toContain("default-src 'none'");
        // Good for its minute, not for one download only.
        expect((await anonymous(temporary)).status).toBe(200);
      });

      it('keeps the authenticated download at the root: the bytes with credentials, 401 without', async () => {
        const file = await download(member, imageUrl);
        expect(file.status).toBe(200);
        expect(file.bytes.equals(PNG)).toBe(true);
        expect((await download(member, imageUrl, { anonymous: true })).status).toBe(401);
        // Under /api/v1 the same path is the apps' request, credentials required.
        const api = await download(member, imageUrl, { api: true, anonymous: true });
        expect(api.status).toBe(401);
      });

      it('decides access before issuing: a file nobody linked has no URL for anyone else (404)', async () => {
        for (const other of [owner, admin, member2, guest]) {
          const reply = await temporaryUrlOf(other, imageUrl);
          expect(reply.status).toBe(404);
          expect(reply.body).toMatchObject({ result: 'error', code: 'NOT_FOUND' });
          expect(reply.body.url).toBeUndefined();
        }
      });

      it("gives the readers of the uploader's message a URL, and a private channel's only to its subscribers", async () => {
        expect((await send(member, 'general', `[cat](${imageUrl})`)).status).toBe(200);
        for (const reader of [owner, member2, guest]) {
          const reply = await temporaryUrlOf(reader, imageUrl);
          expect(reply.status).toBe(200);
          expect((await anonymous(reply.body.url)).bytes.equals(PNG)).toBe(true);
        }
        const plan = await upload(admin, 'plan.txt', Buffer.from('the plan'));
        expect((await send(admin, 'leadership', `[plan](${plan})`)).status).toBe(200);
        expect((await temporaryUrlOf(owner, plan)).status).toBe(200);
        for (const outsider of [member, member2, guest]) expect((await temporaryUrlOf(outsider, plan)).status).toBe(404);
      });

      it('refuses a malformed or altered token, and a token next to another file name, serving nothing', async () => {
        const [, token, filename] = TEMPORARY_URL.exec(temporary)!;
        const [dir, exp, mac] = token!.split('.');
        const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
        for (const bad of ['x', 'a.b.c', `${dir}.${exp}`, `${flip(dir!)}.${exp}.${mac}`, `${dir}.${(parseInt(exp!, 36) + 3600).toString(36)}.${mac}`, `${dir}.${exp}.${flip(mac!)}`]) {
          expectInvalidToken(await anonymous(`/user_uploads/temporary/${bad}/${filename}`));
        }
        expectInvalidToken(await anonymous(`/user_uploads/temporary/${token}/other.png`));
        // Another file's name and token halves mixed: each token is good for its own file only.
        const other = (await temporaryUrlOf(admin, (await uploadFiles(admin, [{ name: 'other.txt', bytes: Buffer.from('other') }])).body.url)).body.url as string;
        const [, otherToken, otherName] = TEMPORARY_URL.exec(other)!;
        expectInvalidToken(await anonymous(`/user_uploads/temporary/${token}/${otherName}`));
        expectInvalidToken(await anonymous(`/user_uploads/temporary/${otherToken!.split('.')[0]}.${exp}.${mac}/${otherName}`));
        expect((await anonymous(other)).bytes.toString()).toBe('other');
        // Under /api/v1 there is no such path, and credentials do not stand in for a token.
        expect((await anonymous(`/api/v1/user_uploads/temporary/${token}/${filename}`)).status).toBe(404);
        expectInvalidToken(await download(member, `/user_uploads/temporary/${flip(token!)}/${filename}`));
      });

      it('refuses a genuine token once expired, and one for a file that no longer exists', async () => {
        const pathId = imageUrl.slice('/user_uploads/'.length);
        const now = Math.floor(Date.now() / 1000);
        const expired = signFileAccessToken(SECRET, pathId, now - 1);
        expectInvalidToken(await anonymous(`/user_uploads/temporary/${expired}/my-cat.png`));
        // The same token, signed to last: downloads (so the refusal above was the expiry's).
        expect((await anonymous(`/user_uploads/temporary/${signFileAccessToken(SECRET, pathId, now + 30)}/my-cat.png`)).status).toBe(200);
        const gone = await upload(member, 'gone.txt', Buffer.from('soon gone'));
        const url = (await temporaryUrlOf(member, gone)).body.url as string;
        expect((await anonymous(url)).status).toBe(200);
        const id = ((await member.get('/attachments')).body.attachments as any[]).find((a) => gone.endsWith(a.path_id)).id;
        expect((await del(member, `/attachments/${id}`)).status).toBe(200);
        expectInvalidToken(await anonymous(url));
      });
    });

    describe('the server emoji data (server_emoji_data_url)', () => {
      const { path, hash } = serverEmojiData();

      it("serves Zulip's code_to_names without credentials, agreeing with what :grinning: renders", async () => {
        const file = await anonymous(path);
        expect(file.status).toBe(200);
        expect(file.headers.get('content-type')).toBe('application/json; charset=utf-8');
        const data = JSON.parse(file.bytes.toString());
        expect(Object.keys(data)).toEqual(['code_to_names']);
        expect(data.code_to_names['1f600'][0]).toBe('grinning');
        expect(data.code_to_names['1f600']).toContain('happy');
        const sent = await send(member, 'general', ':grinning: and :happy:');
        const content = (await member.get(`/messages/${sent.body.id}`)).body.message.content as string;
        expect(content.match(/class="emoji emoji-1f600"/g)).toHaveLength(2);
        expect(content).toContain('title="grinning"');
      });

      it('is cached for good at its hashed URL, revalidated at the plain one, and answers 304 to its ETag', async () => {
        const hashed = await anonymous(path);
        expect(hashed.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
        expect(hashed.headers.get('etag')).toBe(`"${hash}"`);
        expect(hashed.headers.get('access-control-allow-origin')).toBe('*');
        const plain = await anonymous('/static/generated/emoji/emoji_api.json');
        expect(plain.status).toBe(200);
        expect(plain.headers.get('cache-control')).toBe('public, no-cache');
        expect(plain.bytes.equals(hashed.bytes)).toBe(true);
        const again = await anonymous(path, { 'if-none-match': `"${hash}"` });
        expect(again.status).toBe(304);
        expect(again.bytes.length).toBe(0);
        // Another version's URL is not this file.
        expect((await anonymous('/static/generated/emoji/emoji_api.0123456789abcdef.json')).status).toBe(404);
      });

      it('is compressed for a client that accepts gzip', async () => {
        const res = await fetch(`${root}${path}`, { headers: { 'accept-encoding': 'gzip' } });
        expect(res.headers.get('content-encoding')).toBe('gzip');
        expect(((await res.json()) as any).code_to_names['1f44d'][0]).toBe('+1');
        const identity = await fetch(`${root}${path}`, { headers: { 'accept-encoding': 'identity' } });
        expect(identity.headers.get('content-encoding')).toBeNull();
        expect((await identity.text()).length).toBe(serverEmojiData().json.length);
      });
    });
  });
}
