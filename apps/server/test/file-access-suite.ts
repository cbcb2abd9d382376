/**
 * The HTTP suite for the life of an uploaded file after its upload (issue 17 item 1),
 * run against every mode: deleting an attachment deletes its bytes from the blob store;
 * a link edited out of a message, or its message deleted, withdraws the access that
 * message gave (the uploader keeps it); a scheduled message's files are claimed by the
 * message it becomes. Attachment events and GET /attachments follow each change.
 */
import { existsSync, readdirSync, type Dirent } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';
import type { Client, RunningServer } from './harness';
import { eventsUntil, suiteServer, waitFor } from './suite-kit';
import { download, PNG, uploadFiles, UPLOADS_ENV } from './uploads-suite';


export function fileAccessSuite(mode: string, start: (env: Record<string, string>) => Promise<RunningServer>) {
  describe(`file access after upload (${mode})`, () => {
    const suite = suiteServer(() => start(UPLOADS_ENV), ['owner', 'admin', 'member', 'member2'], 120_000);
    const c = suite.clients;
    let serial = 0;
    const unique = (prefix: string) => `${prefix}-${++serial}-${Date.now() % 100000}`;

    /** Uploads a small file as `client`; its URL, attachment id and where its bytes are on disk. */
    async function upload(client: Client, name = 'notes.txt') {
      const reply = await uploadFiles(client, [{ name, bytes: Buffer.from(`contents of ${unique(name)}`) }]);
      expect(reply.body.result).toBe('success');
      const url = reply.body.url as string;
      const [, , dir, key] = /^\/user_uploads\/(\d+)\/([0-9a-f]{2})\/([A-Za-z0-9_-]{24})\//.exec(url)!;
      const attachment = ((await client.get('/attachments')).body.attachments as any[]).find((a) => url.endsWith(a.path_id));
      // The directory blob store (both modes here): `uploads/{dir}/{key}` under the data directory's `uploads`.
      return { url, id: attachment.id as number, file: join(suite.server.dataDir!, 'uploads', 'uploads', dir!, key!) };
    }
    const statusOf = async (client: Client, url: string) => (await download(client, url)).status;
    const attachmentOf = async (client: Client, id: number) => ((await client.get('/attachments')).body.attachments as any[]).find((a) => a.id === id);
    const send = async (client: Client, content: string) => {
      const reply = await client.post('/messages', { type: 'stream', to: 'general', topic: 'files', content });
      expect(reply.body.result).toBe('success');
      return reply.body.id as number;
    };

    /** Every file under the blob store's directory, temporary ones included. */
    const storedFiles = () => {
      const root = join(suite.server.dataDir!, 'uploads');
      return existsSync(root) ? (readdirSync(root, { recursive: true, withFileTypes: true }) as Dirent[]).filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name)).sort() : [];
    };

    it('streams an upload into the blob store: whole files only; one past the limit, an empty one, a second file or a cut-off body leave nothing behind', async () => {
      const member = c.member!;
      const before = storedFiles();
      // Past the 1 MiB limit after several chunks: refused while streaming, the partial file removed.
      const big = await uploadFiles(member, [{ name: 'big.bin', bytes: Buffer.alloc(3 * 1024 * 1024, 7) }]);
      expect(big.status).toBe(400);
      expect(big.body.msg).toContain('1 MiB');
      expect((await uploadFiles(member, [{ name: 'empty.txt', bytes: Buffer.alloc(0) }])).status).toBe(400);
      const two = await uploadFiles(member, [
        { name: 'a.txt', bytes: Buffer.alloc(600 * 1024, 0x61) },
        { name: 'b.txt', bytes: Buffer.alloc(600 * 1024, 0x62) },
      ]);
      expect(two.status).toBe(400);
      // A body cut off inside the file: refused as unparseable, the partial file removed.
      const boundary = 'cut-boundary';
      const cut = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="cut.txt"\r\nContent-Type: text/plain\r\n\r\n${'x'.repeat(300_000)}`;
      const broken = await member.request('POST', '/user_uploads', {}, { rawBody: cut, headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } });
      expect(broken.status).toBe(400);
      expect(broken.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST' });
      expect(storedFiles()).toEqual(before);
      // Just under the limit: stored whole, its type sniffed from its first bytes.
      const { url, file } = await upload(member, 'notes.txt');
      const almost = await uploadFiles(member, [{ name: 'almost.bin', bytes: Buffer.concat([PNG, Buffer.alloc(1024 * 1024 - PNG.length, 1)]) }]);
      expect(almost.body.result).toBe('success');
      const served = await download(member, almost.body.url);
      expect(served.bytes.length).toBe(1024 * 1024);
      expect(served.headers.get('content-type')).toBe('image/png');
      const added = storedFiles().filter((f) => !before.includes(f));
      expect(added).toHaveLength(2);
      expect(added).toContain(file);
      for (const f of added) expect(f).toMatch(/uploads\/uploads\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}$/);
      expect(await statusOf(member, url)).toBe(200);
    });

    it('deleting an attachment deletes its bytes: the file is gone from the blob store and its URL answers 404', async () => {
      const member = c.member!;
      const { url, id, file } = await upload(member);
      expect(existsSync(file)).toBe(true);
      expect(await statusOf(member, url)).toBe(200);
      expect((await member.request('DELETE', `/attachments/${id}`)).body).toEqual({ result: 'success', msg: '' });
      expect(existsSync(file)).toBe(false);
      expect(await statusOf(member, url)).toBe(404);
      expect(await attachmentOf(member, id)).toBeUndefined();
    });

    it("refuses to delete an unknown attachment or another user's, keeping the bytes", async () => {
      const member = c.member!;
      const { url, id, file } = await upload(member);
      for (const [client, target] of [
        [c.member2!, id],
        [c.admin!, id],
        [member, id + 10_000],
      ] as const) {
        const reply = await client.request('DELETE', `/attachments/${target}`);
        expect(reply.status).toBe(400);
        expect(reply.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: 'Invalid attachment' });
      }
      expect((await member.request('DELETE', '/attachments/abc')).status).toBe(400);
      expect(existsSync(file)).toBe(true);
      expect(await statusOf(member, url)).toBe(200);
    });

    it('a link edited out of a message withdraws the access it gave; the uploader keeps it; attachment events and GET /attachments follow', async () => {
      const [member, reader] = [c.member!, c.member2!];
      const { url, id } = await upload(member);
      const queue = (await member.post('/register', { event_types: ['attachment'] })).body.queue_id;
      const kept = await send(member, `also here: [notes](${url})`);
      const edited = await send(member, `have a look: [notes](${url})`);
      expect(await statusOf(reader, url)).toBe(200);
      expect((await attachmentOf(member, id)).messages.map((m: any) => m.id)).toEqual([kept, edited]);
      // The edit keeps the link: nothing changes.
      expect((await member.request('PATCH', `/messages/${edited}`, { content: `still: [notes](${url})` }, { query: false })).body.result).toBe('success');
      expect((await attachmentOf(member, id)).messages.map((m: any) => m.id)).toEqual([kept, edited]);
      // Both messages lose the link: the reader loses the file.
      expect((await member.request('PATCH', `/messages/${kept}`, { content: 'never mind' }, { query: false })).body.result).toBe('success');
      expect(await statusOf(reader, url)).toBe(200);
      expect((await member.request('PATCH', `/messages/${edited}`, { content: 'never mind either' }, { query: false })).body.result).toBe('success');
      expect(await statusOf(reader, url)).toBe(404);
      expect(await statusOf(member, url)).toBe(200);
      expect((await attachmentOf(member, id)).messages).toEqual([]);
      const updates = (await eventsUntil(member, queue, (e) => e.filter((x) => x.op === 'update').length >= 4)).filter((e) => e.op === 'update');
      expect(updates.map((e) => e.attachment.messages.map((m: any) => m.id))).toEqual([[kept], [kept, edited], [edited], []]);
      // Linking it again gives it back.
      expect((await member.request('PATCH', `/messages/${edited}`, { content: `back: [notes](${url})` }, { query: false })).body.result).toBe('success');
      expect(await statusOf(reader, url)).toBe(200);
    });

    it("a deleted message withdraws the access it gave, whoever deletes it; the uploader keeps it", async () => {
      const [member, reader] = [c.member!, c.member2!];
      const { url, id } = await upload(member);
      const message = await send(member, `[notes](${url})`);
      expect(await statusOf(reader, url)).toBe(200);
      expect((await c.admin!.request('DELETE', `/messages/${message}`)).body.result).toBe('success');
      expect(await statusOf(reader, url)).toBe(404);
      expect(await statusOf(member, url)).toBe(200);
      expect((await attachmentOf(member, id)).messages).toEqual([]);
    });

    it('a scheduled message claims its files when delivered: its readers may then download them', async () => {
      const [member, reader] = [c.member!, c.member2!];
      const { url, id } = await upload(member);
      const content = `${unique('scheduled')} [notes](${url})`;
      const at = Math.ceil(Date.now() / 1000) + 2;
      expect((await member.post('/scheduled_messages', { type: 'stream', to: 'general', topic: 'files', content, scheduled_delivery_timestamp: at })).body.result).toBe('success');
      expect(await statusOf(reader, url)).toBe(404);
      const messages = await waitFor('the delivered message to claim the file', async () => {
        const listed = (await attachmentOf(member, id)).messages as any[];
        return listed.length > 0 ? listed : undefined;
      });
      expect(messages).toHaveLength(1);
      expect(await statusOf(reader, url)).toBe(200);
    });
  });
}
