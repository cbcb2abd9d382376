/**
 * The HTTP suite for avatars (issue 41 item 4), run against every mode: a person uploads
 * their own (POST /users/me/avatar) and removes it (DELETE), everyone who sees them gets
 * the `realm_user` update, user objects, POST /register (with and without client_gravatar)
 * and message senders follow, the file is served at a URL its version busts; every refusal
 * changes nothing; who may change theirs where the organization disabled changes.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import { gravatarUrl } from '@teamchat/contracts';
import type { Client, RunningServer } from './harness';
import { authorizationMatrix, del, eventsUntil, expectRefusedUnchanged, patch, suiteServer, type Reply } from './suite-kit';
import { download, PNG, uploadFiles, UPLOADS_ENV } from './uploads-suite';

const AVATAR_URL = /^\/user_avatars\/2\/([A-Za-z0-9_-]{24})\.png\?version=(\d+)$/;
/** The first bytes of a GIF: what the gateway's sniffing recognizes. */
const GIF = Buffer.concat([Buffer.from('GIF89a'), Buffer.alloc(20, 1)]);

/** A 1 MiB limit, so that exceeding it takes a small request. */
const AVATAR_ENV = { ...UPLOADS_ENV, TEAMCHAT_MAX_AVATAR_FILE_SIZE_MIB: '1' };

export const uploadAvatar = (client: Client, files: { name: string; bytes: Buffer; type?: string }[]) => uploadFiles(client, files, '/users/me/avatar');

export function avatarSuite(mode: string, start: (env: Record<string, string>) => Promise<RunningServer>) {
  const USERS = ['owner', 'admin', 'moderator', 'member', 'member2', 'guest'] as const;
  type User = (typeof USERS)[number];
  describe(`avatars (${mode})`, () => {
    const { clients, ids } = suiteServer(() => start(AVATAR_ENV), [...USERS, 'bot'] as const, 120_000);
    let member: Client;
    let member2: Client;
    let guest: Client;
    beforeAll(() => {
      ({ member, member2, guest } = clients);
    });
    const me = async (client: Client) => (await client.get('/users/me')).body;
    const avatarOf = async (client: Client) => {
      const { avatar_url, avatar_version } = await me(client);
      return { avatar_url, avatar_version };
    };
    const person = async (viewer: Client, userId: number, client_gravatar: boolean) => {
      const state = (await viewer.post('/register', { fetch_event_types: ['realm_user'], client_gravatar })).body;
      return state.realm_users.find((u: any) => u.user_id === userId);
    };
    let firstUrl: string;

    it('register gives the server’s real upload limits', async () => {
      const state = (await member.post('/register', { fetch_event_types: ['realm'] })).body;
      expect(state).toMatchObject({ max_file_upload_size_mib: 1, max_avatar_file_size_mib: 1, realm_max_file_upload_size_mib: 1 });
    });

    it('a person uploads theirs: the URL, the realm_user update to everyone who sees them, the bytes served', async () => {
      const queues = await Promise.all([member2, guest, member].map(async (c) => (await c.post('/register', { event_types: ['realm_user'] })).body.queue_id as string));
      // The declared type is not what decides: the bytes are a PNG.
      const reply = await uploadAvatar(member, [{ name: 'me.txt', bytes: PNG, type: 'text/plain' }]);
      expect(reply.status).toBe(200);
      expect(reply.body.avatar_url).toMatch(AVATAR_URL);
      expect(reply.body.removed_blobs).toBeUndefined();
      firstUrl = reply.body.avatar_url;
      const [, key, version] = AVATAR_URL.exec(firstUrl)!;
      expect(Number(version)).toBe(2);
      for (const [i, viewer] of [member2, guest, member].entries()) {
        const events = await eventsUntil(viewer, queues[i]!, (e) => e.some((x) => x.type === 'realm_user'));
        expect(events.filter((e) => e.type === 'realm_user')).toEqual([
          {
            type: 'realm_user',
            op: 'update',
            id: expect.any(Number),
            person: { user_id: ids.member, avatar_url: firstUrl, avatar_source: 'U', avatar_url_medium: `/user_avatars/2/${key}-medium.png?version=2`, avatar_version: 2 },
          },
        ]);
      }
      for (const url of [firstUrl, `/user_avatars/2/${key}-medium.png?version=2`]) {
        // Public, as Zulip's are (the name is random), and typed by its bytes.
        const file = await download(member2, url, { anonymous: true });
        expect(file.status).toBe(200);
        expect(file.bytes.equals(PNG)).toBe(true);
        expect(file.headers.get('content-type')).toBe('image/png');
        expect(file.headers.get('x-content-type-options')).toBe('nosniff');
      }
    });

    it('user objects and register follow, an upload shown even to a client that computes gravatars', async () => {
      expect(await avatarOf(member)).toEqual({ avatar_url: firstUrl, avatar_version: 2 });
      expect((await member2.get(`/users/${ids.member}`)).body.user).toMatchObject({ avatar_url: firstUrl, avatar_version: 2 });
      for (const client_gravatar of [true, false]) expect(await person(member2, ids.member, client_gravatar)).toMatchObject({ avatar_url: firstUrl, avatar_version: 2 });
      // Someone who never uploaded one: null with client_gravatar, their gravatar without.
      expect((await person(member, ids.member2, true)).avatar_url).toBeNull();
      expect((await person(member, ids.member2, false)).avatar_url).toBe(gravatarUrl((await me(member2)).email));
      const own = (await member.post('/register', { fetch_event_types: ['realm_user'], client_gravatar: true })).body;
      expect(own).toMatchObject({ avatar_source: 'U', avatar_url: firstUrl, avatar_url_medium: firstUrl.replace('.png', '-medium.png') });
    });

    it("message senders' avatars follow, in history and in message events", async () => {
      const queue = (await member2.post('/register', { event_types: ['message'], client_gravatar: true })).body.queue_id;
      const sent = await member.post('/messages', { type: 'stream', to: 'general', topic: 'avatars', content: 'new picture' });
      expect(sent.status).toBe(200);
      const events = await eventsUntil(member2, queue, (e) => e.some((x) => x.type === 'message'));
      expect(events.find((e) => e.type === 'message').message).toMatchObject({ id: sent.body.id, avatar_url: firstUrl });
      for (const client_gravatar of [true, false]) {
        const page = await member2.get('/messages', { anchor: sent.body.id, num_before: 0, num_after: 0, client_gravatar });
        expect(page.body.messages[0]).toMatchObject({ id: sent.body.id, avatar_url: firstUrl });
      }
    });

    it('a second upload replaces the first: the next version, the old file gone', async () => {
      const reply = await uploadAvatar(member, [{ name: 'me.gif', bytes: GIF }]);
      expect(reply.status).toBe(200);
      expect(reply.body.avatar_url).toMatch(/^\/user_avatars\/2\/[A-Za-z0-9_-]{24}\.gif\?version=3$/);
      expect((await download(member, reply.body.avatar_url)).headers.get('content-type')).toBe('image/gif');
      expect((await download(member, firstUrl)).status).toBe(404);
      expect(await avatarOf(member)).toEqual({ avatar_url: reply.body.avatar_url, avatar_version: 3 });
    });

    it('removing it goes back to the gravatar with the next version, told to everyone, the file gone', async () => {
      const uploadedUrl = (await avatarOf(member)).avatar_url;
      const queue = (await guest.post('/register', { event_types: ['realm_user'] })).body.queue_id;
      const reply = await del(member, '/users/me/avatar');
      const email = (await me(member)).email;
      expect(reply.body).toEqual({ result: 'success', msg: '', avatar_url: gravatarUrl(email, 4) });
      const events = await eventsUntil(guest, queue, (e) => e.some((x) => x.type === 'realm_user'));
      expect(events.find((e) => e.type === 'realm_user').person).toEqual({
        user_id: ids.member,
        avatar_url: gravatarUrl(email, 4),
        avatar_source: 'G',
        avatar_url_medium: gravatarUrl(email, 4),
        avatar_version: 4,
      });
      expect((await download(member, uploadedUrl)).status).toBe(404);
      expect(await avatarOf(member)).toEqual({ avatar_url: gravatarUrl(email, 4), avatar_version: 4 });
      expect((await person(member2, ids.member, true)).avatar_url).toBeNull();
      expect((await member.post('/register', { fetch_event_types: ['realm_user'] })).body.avatar_source).toBe('G');
    });

    it("a bot changes its own too: its administrators' bot lists follow, and they hear of it (realm_bot)", async () => {
      const queues = await Promise.all([clients.admin, member2].map(async (c) => (await c.post('/register', { event_types: ['realm_bot'] })).body.queue_id as string));
      const reply = await uploadAvatar(clients.bot, [{ name: 'bot.png', bytes: PNG }]);
      expect(reply.body.avatar_url).toMatch(AVATAR_URL);
      const heard = await eventsUntil(clients.admin, queues[0]!, (e) => e.some((x) => x.type === 'realm_bot'));
      expect(heard.find((e) => e.type === 'realm_bot')).toMatchObject({ op: 'update', bot: { user_id: ids.bot, avatar_url: reply.body.avatar_url } });
      // Not the bot's administrator: no realm_bot event (the realm_user one, as for everyone).
      expect((await eventsUntil(member2, queues[1]!, () => false)).filter((e) => e.type === 'realm_bot')).toEqual([]);
      const listed = (await clients.admin.get('/bots')).body.bots.find((b: any) => b.user_id === ids.bot);
      expect(listed.avatar_url).toBe(reply.body.avatar_url);
      expect((await clients.admin.post('/register', { fetch_event_types: ['realm_bot'] })).body.realm_bots.find((b: any) => b.user_id === ids.bot).avatar_url).toBe(reply.body.avatar_url);
    });

    describe('bad input changes nothing', () => {
      const refused = (request: () => Promise<Reply>, msg: string) => expectRefusedUnchanged(request, { msg }, () => avatarOf(member2));
      it('not an image (the bytes decide, not the declared type or name)', async () => {
        await refused(() => uploadAvatar(member2, [{ name: 'me.png', bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), type: 'image/png' }]), 'Could not decode image; did you upload an image file?');
        await refused(() => uploadAvatar(member2, [{ name: 'me.png', bytes: Buffer.from('%PDF-1.4 not a picture'), type: 'image/png' }]), 'Could not decode image; did you upload an image file?');
      });
      it('a picture whose header is broken, and one of more pixels than Zulip takes', async () => {
        const corrupt = Buffer.concat([PNG.subarray(0, 8), Buffer.from('a signature and nothing after it')]);
        await refused(() => uploadAvatar(member2, [{ name: 'corrupt.png', bytes: corrupt }]), 'Could not decode image; did you upload an image file?');
        const huge = Buffer.from(PNG);
        huge.writeUInt32BE(10_000, 16);
        huge.writeUInt32BE(10_000, 20);
        await refused(() => uploadAvatar(member2, [{ name: 'huge.png', bytes: huge }]), 'Image size exceeds limit.');
      });
      it('too large', () =>
        refused(() => uploadAvatar(member2, [{ name: 'big.png', bytes: Buffer.concat([PNG, Buffer.alloc(1024 * 1024, 7)]) }]), 'Uploaded file is larger than the allowed limit of 1 MiB'));
      it('no file, two files, an empty file', async () => {
        await refused(() => uploadAvatar(member2, []), 'You must upload exactly one avatar.');
        await refused(() => member2.post('/users/me/avatar', { file: 'not a file' }), 'You must upload exactly one avatar.');
        await refused(() => uploadAvatar(member2, [{ name: 'a.png', bytes: PNG }, { name: 'b.png', bytes: PNG }]), 'You must upload exactly one avatar.');
        await refused(() => uploadAvatar(member2, [{ name: 'empty.png', bytes: Buffer.alloc(0) }]), 'Uploaded file is empty');
      });
      it('a path that is no avatar is not found', async () => {
        for (const url of ['/user_avatars/2/nope.png', '/user_avatars/3/abcdefghijklmnopqrstuvwx.png', '/user_avatars/2/abcdefghijklmnopqrstuvwx.svg']) {
          expect((await download(member2, url)).status).toBe(404);
        }
      });
    });

    describe('who may change their own avatar', () => {
      const upload = (who: User) => uploadAvatar(clients[who], [{ name: 'me.png', bytes: PNG }]);
      const remove = (who: User) => del(clients[who], '/users/me/avatar');
      // Everyone changes their own (the endpoints name nobody else).
      authorizationMatrix<User>([['upload', upload, USERS], ['remove', remove, USERS]], USERS);
      describe('where the organization disabled avatar changes, its administrators only', () => {
        beforeAll(async () => {
          expect((await patch(clients.owner, '/realm', { avatar_changes_disabled: true })).status).toBe(200);
          const state = (await member.post('/register', { fetch_event_types: ['realm'] })).body;
          expect(state.realm_avatar_changes_disabled).toBe(true);
        });
        const admins: readonly User[] = ['owner', 'admin'];
        authorizationMatrix<User>([['upload', upload, admins], ['remove', remove, admins]], USERS);
        it('says why, and changes nothing', () =>
          expectRefusedUnchanged(() => upload('member2'), { msg: 'Avatar changes are disabled in this organization.' }, () => avatarOf(member2)));
      });
    });
  });
}
