/**
 * The HTTP suite for uploaded files and custom emoji (issue 17 items 1 and 2), run
 * against every mode: who may download a file, the headers it is served with, the
 * attachment and realm_emoji events, and every refusal leaving the state as it was.
 */
import { beforeAll, describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { del, eventsUntil, expectRefused, suiteServer, type Reply } from './suite-kit';

/** A 1 MiB limit, so that exceeding it takes a small request. */
export const UPLOADS_ENV = { TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB: '1', TEAMCHAT_MAX_EMOJI_FILE_SIZE_MIB: '1' };

/** A 1×1 PNG. */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

export async function uploadFiles(client: Client, files: { name: string; bytes: Buffer; type?: string }[], path = '/user_uploads'): Promise<Reply> {
  const form = new FormData();
  for (const [i, f] of files.entries()) form.append(`file-${i}`, new Blob([new Uint8Array(f.bytes)], { type: f.type ?? 'application/octet-stream' }), f.name);
  return client.request('POST', path, {}, { rawBody: form });
}

/** GET of a file at the organization's root or under /api/v1, with the client's credentials. */
export async function download(client: Client, url: string, options: { api?: boolean; anonymous?: boolean } = {}) {
  const root = client.api.replace(/\/api\/v1$/, '');
  const headers: Record<string, string> = {};
  if (!options.anonymous) headers.authorization = `Basic ${Buffer.from(`${client.email}:${client.apiKey}`).toString('base64')}`;
  const res = await fetch(`${options.api ? client.api : root}${url}`, { headers });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

export function uploadsSuite(mode: string, start: (env: Record<string, string>) => Promise<RunningServer>) {
  describe(`uploads and custom emoji (${mode})`, () => {
    // Starting five processes takes long on a busy machine.
    const { clients } = suiteServer(() => start(UPLOADS_ENV), ['owner', 'admin', 'member', 'member2', 'guest'], 120_000);
    let owner: Client;
    let admin: Client;
    let member: Client;
    let member2: Client;
    let guest: Client;
    beforeAll(() => {
      ({ owner, admin, member, member2, guest } = clients);
    });

    const refusedWith = (reply: Reply, code?: string, status?: number) => expectRefused(reply, { code, status });
    const send = (client: Client, to: string, content: string) => client.post('/messages', { type: 'stream', to, topic: 'files', content });
    const attachmentsOf = async (client: Client) => (await client.get('/attachments')).body;

    describe('files', () => {
      let imageUrl: string;
      let imageId: number;

      it('uploads an image: a path under the organization, an add event for the uploader only', async () => {
        const mine = (await member.post('/register', { event_types: ['attachment'] })).body.queue_id;
        const others = (await member2.post('/register', { event_types: ['attachment'] })).body.queue_id;
        const reply = await uploadFiles(member, [{ name: 'my cat.png', bytes: PNG, type: 'text/html' }]);
        expect(reply.status).toBe(200);
        expect(reply.body).toMatchObject({ result: 'success', filename: 'my cat.png' });
        expect(reply.body.url).toMatch(/^\/user_uploads\/2\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/my-cat\.png$/);
        expect(reply.body.uri).toBe(reply.body.url);
        imageUrl = reply.body.url;
        const events = await eventsUntil(member, mine, (e) => e.some((x) => x.type === 'attachment'));
        const added = events.find((e) => e.type === 'attachment');
        expect(added).toMatchObject({ op: 'add', attachment: { name: 'my cat.png', path_id: imageUrl.slice('/user_uploads/'.length), size: PNG.length, messages: [] } });
        expect(added.upload_space_used).toBeGreaterThanOrEqual(PNG.length);
        imageId = added.attachment.id;
        expect(await eventsUntil(member2, others, () => false)).toEqual([]);
      });

      it('serves the uploader the bytes, typed by sniffing, inline as an image, with safe headers', async () => {
        // At the root; under /api/v1 the same path answers a temporary URL (file-urls-suite.ts).
        const file = await download(member, imageUrl);
        expect(file.status).toBe(200);
        expect(file.bytes.equals(PNG)).toBe(true);
        expect(file.headers.get('content-type')).toBe('image/png');
        expect(file.headers.get('x-content-type-options')).toBe('nosniff');
        expect(file.headers.get('content-security-policy')).toContain("default-src 'none'");
        expect(file.headers.get('content-disposition')).toBeNull();
      });

      it('hides a file nobody linked from everyone but its uploader (404), and asks for credentials', async () => {
        for (const other of [owner, admin, member2, guest]) {
          const file = await download(other, imageUrl);
          expect(file.status).toBe(404);
          expect(JSON.parse(file.bytes.toString())).toMatchObject({ result: 'error', code: 'NOT_FOUND' });
        }
        expect((await download(member, imageUrl, { anonymous: true })).status).toBe(401);
      });

      it("a message of the uploader's linking it shows it to the message's readers, and tells the uploader (update)", async () => {
        const queue = (await member.post('/register', { event_types: ['attachment'] })).body.queue_id;
        const sent = await send(member, 'general', `look [my cat.png](${imageUrl})`);
        expect(sent.status).toBe(200);
        const events = await eventsUntil(member, queue, (e) => e.some((x) => x.type === 'attachment'));
        expect(events.find((e) => e.type === 'attachment')).toMatchObject({ op: 'update', attachment: { id: imageId, messages: [{ id: sent.body.id }] } });
        for (const reader of [owner, admin, member2, guest]) expect((await download(reader, imageUrl)).status).toBe(200);
        const listed = await attachmentsOf(member);
        expect(listed.attachments).toEqual([expect.objectContaining({ id: imageId, name: 'my cat.png', messages: [{ id: sent.body.id, date_sent: expect.any(Number) }] })]);
        expect(listed.upload_space_used).toBeGreaterThanOrEqual(PNG.length);
        expect((await attachmentsOf(member2)).attachments).toEqual([]);
        // has:attachment and has:image find it, and it renders with a preview.
        for (const operand of ['attachment', 'image']) {
          const found = await member.get('/messages', { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([{ operator: 'has', operand }]) });
          expect(found.body.messages.map((m: any) => m.id)).toContain(sent.body.id);
        }
        const message = (await member.get(`/messages/${sent.body.id}`)).body.message;
        expect(message.content).toContain(`<div class="message_inline_image"><a href="${imageUrl}"`);
      });

      it('a link in a private channel shows the file to its subscribers only', async () => {
        const secret = await uploadFiles(admin, [{ name: 'plan.txt', bytes: Buffer.from('the plan') }]);
        expect(secret.status).toBe(200);
        expect((await send(admin, 'leadership', `[plan](${secret.body.url})`)).status).toBe(200);
        expect((await download(owner, secret.body.url)).status).toBe(200);
        for (const outsider of [member, member2, guest]) expect((await download(outsider, secret.body.url)).status).toBe(404);
        // Someone else's message linking it grants nothing: only the uploader's messages do.
        expect((await send(member, 'general', `[plan](${secret.body.url})`)).status).toBe(200);
        expect((await download(member2, secret.body.url)).status).toBe(404);
      });

      it('serves what is not an image as a download, typed by its bytes, whatever the client claimed', async () => {
        const html = await uploadFiles(member, [{ name: 'page.png', bytes: Buffer.from('<html><script>alert(1)</script></html>'), type: 'image/png' }]);
        const file = await download(member, html.body.url);
        expect(file.headers.get('content-type')).toBe('text/plain; charset=utf-8');
        expect(file.headers.get('content-disposition')).toMatch(/^attachment; filename="page\.png"/);
        expect(file.headers.get('x-content-type-options')).toBe('nosniff');
        const binary = await uploadFiles(member, [{ name: 'blob.bin', bytes: Buffer.from([0, 1, 2, 255, 0]) }]);
        expect((await download(member, binary.body.url)).headers.get('content-type')).toBe('application/octet-stream');
      });

      it('refuses no file, two files, an empty file and one over the limit, storing nothing', async () => {
        const before = await attachmentsOf(member);
        refusedWith(await member.post('/user_uploads', { file: 'text' }));
        refusedWith(await uploadFiles(member, []));
        refusedWith(await uploadFiles(member, [{ name: 'a.txt', bytes: Buffer.from('a') }, { name: 'b.txt', bytes: Buffer.from('b') }]));
        refusedWith(await uploadFiles(member, [{ name: 'empty.txt', bytes: Buffer.alloc(0) }]));
        const big = await uploadFiles(member, [{ name: 'big.bin', bytes: Buffer.alloc(1024 * 1024 + 1, 7) }]);
        refusedWith(big);
        expect(big.body.msg).toContain('1 MiB');
        expect(await attachmentsOf(member)).toEqual(before);
      });

      it('finds nothing outside stored paths: traversal, other shapes, other organizations', async () => {
        const [, , dir, key, name] = imageUrl.split('/').slice(1);
        for (const path of [
          `/user_uploads/2/${dir}/${key}/..%2F..%2F..%2Fetc%2Fpasswd`,
          `/user_uploads/2/${dir}/%2e%2e/%2e%2e`,
          `/user_uploads/2/${dir}/${key}/${name}.x`,
          `/user_uploads/3/${dir}/${key}/${name}`,
          `/user_uploads/2/${dir}/${key}/..`,
        ]) {
          const file = await download(member, path);
          expect([400, 404]).toContain(file.status);
          expect(file.bytes.toString()).not.toContain('root:');
        }
      });

      it('deletes only its own attachment: remove event, the file gone', async () => {
        refusedWith(await del(member2, `/attachments/${imageId}`));
        refusedWith(await del(member, '/attachments/999999'));
        expect((await download(member2, imageUrl)).status).toBe(200);
        const queue = (await member.post('/register', { event_types: ['attachment'] })).body.queue_id;
        expect((await del(member, `/attachments/${imageId}`)).status).toBe(200);
        const events = await eventsUntil(member, queue, (e) => e.some((x) => x.type === 'attachment'));
        expect(events.find((e) => e.type === 'attachment')).toMatchObject({ op: 'remove', attachment: { id: imageId } });
        expect((await download(member, imageUrl)).status).toBe(404);
        expect((await attachmentsOf(member)).attachments.map((a: any) => a.id)).not.toContain(imageId);
      });
    });

    describe('custom emoji', () => {
      const addEmoji = (client: Client, name: string, files: { name: string; bytes: Buffer }[]) => uploadFiles(client, files, `/realm/emoji/${name}`);
      const emojiList = async (client: Client) => (await client.get('/realm/emoji')).body.emoji as Record<string, any>;
      let emojiId: string;

      it('a member adds one: realm_emoji event to everyone, listed, in register, its image served', async () => {
        const queue = (await member2.post('/register', { event_types: ['realm_emoji'] })).body.queue_id;
        const added = await addEmoji(member, 'party_parrot', [{ name: 'parrot.png', bytes: PNG }]);
        expect(added.status).toBe(200);
        const events = await eventsUntil(member2, queue, (e) => e.some((x) => x.type === 'realm_emoji'));
        const event = events.find((e) => e.type === 'realm_emoji');
        const entry = Object.values(event.realm_emoji as Record<string, any>).find((e: any) => e.name === 'party_parrot');
        expect(entry).toMatchObject({ name: 'party_parrot', deactivated: false, source_url: expect.stringMatching(/^\/user_avatars\/2\/emoji\/images\/[A-Za-z0-9_-]{24}\.png$/) });
        expect(entry.author_id).toBe((await member.get('/users/me')).body.user_id);
        emojiId = entry.id;
        expect((await emojiList(guest))[emojiId]).toEqual(entry);
        expect((await guest.post('/register', { fetch_event_types: ['realm_emoji'] })).body.realm_emoji[emojiId]).toEqual(entry);
        const image = await download(guest, entry.source_url, { anonymous: true });
        expect(image.status).toBe(200);
        expect(image.headers.get('content-type')).toBe('image/png');
        expect(image.bytes.equals(PNG)).toBe(true);
      });

      it('renders :name: as its image, and takes reactions and statuses of type realm_emoji by id', async () => {
        const sent = await send(member2, 'general', 'hello :party_parrot:');
        const message = (await member2.get(`/messages/${sent.body.id}`)).body.message;
        expect(message.content).toMatch(/<img alt=":party_parrot:" class="emoji" src="\/user_avatars\/2\/emoji\/images\/[^"]+\.png" title="party parrot">/);
        const react = (client: Client, code: string) =>
          client.post(`/messages/${sent.body.id}/reactions`, { emoji_name: 'party_parrot', emoji_code: code, reaction_type: 'realm_emoji' });
        refusedWith(await react(guest, '999'));
        expect((await react(guest, emojiId)).status).toBe(200);
        const reactions = (await member2.get(`/messages/${sent.body.id}`)).body.message.reactions;
        expect(reactions).toEqual([expect.objectContaining({ emoji_name: 'party_parrot', emoji_code: emojiId, reaction_type: 'realm_emoji' })]);
        expect((await guest.post('/users/me/status', { emoji_name: 'party_parrot', emoji_code: emojiId, reaction_type: 'realm_emoji' })).status).toBe(200);
        refusedWith(await guest.post('/users/me/status', { emoji_name: 'nope', reaction_type: 'realm_emoji' }));
      });

      it('refuses guests, bad names, duplicates, non-images, no file and oversized images, changing nothing', async () => {
        const before = await emojiList(owner);
        refusedWith(await addEmoji(guest, 'guest_emoji', [{ name: 'g.png', bytes: PNG }]));
        for (const name of ['Bad', 'with%20space', 'ends_', 'ends-', 'x'.repeat(61), 'dot.name']) refusedWith(await addEmoji(member, name, [{ name: 'e.png', bytes: PNG }]));
        refusedWith(await addEmoji(member, 'party_parrot', [{ name: 'e.png', bytes: PNG }]));
        refusedWith(await addEmoji(member, 'not_image', [{ name: 'e.png', bytes: Buffer.from('<svg onload="alert(1)"/>') }]));
        refusedWith(await addEmoji(member, 'no_file', []));
        refusedWith(await addEmoji(member, 'two_files', [{ name: 'a.png', bytes: PNG }, { name: 'b.png', bytes: PNG }]));
        refusedWith(await addEmoji(member, 'huge', [{ name: 'h.png', bytes: Buffer.concat([PNG, Buffer.alloc(1024 * 1024)]) }]));
        expect(await emojiList(owner)).toEqual(before);
      });

      it('only an administrator or its author deactivates it; reactions then refuse it, the name is free again', async () => {
        refusedWith(await del(member2, '/realm/emoji/party_parrot'));
        refusedWith(await del(admin, '/realm/emoji/no_such_emoji'));
        const queue = (await guest.post('/register', { event_types: ['realm_emoji'] })).body.queue_id;
        expect((await del(member, '/realm/emoji/party_parrot')).status).toBe(200);
        const events = await eventsUntil(guest, queue, (e) => e.some((x) => x.type === 'realm_emoji'));
        expect(events.find((e) => e.type === 'realm_emoji').realm_emoji[emojiId]).toMatchObject({ deactivated: true });
        expect((await emojiList(member))[emojiId].deactivated).toBe(true);
        refusedWith(await del(admin, '/realm/emoji/party_parrot'));
        const sent = await send(member2, 'general', 'again');
        refusedWith(await member.post(`/messages/${sent.body.id}/reactions`, { emoji_name: 'party_parrot', emoji_code: emojiId, reaction_type: 'realm_emoji' }));
        expect((await addEmoji(admin, 'party_parrot', [{ name: 'p.png', bytes: PNG }])).status).toBe(200);
        expect((await del(admin, '/realm/emoji/party_parrot')).status).toBe(200);
      });
    });
  });
}
