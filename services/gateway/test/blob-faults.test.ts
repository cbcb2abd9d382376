/**
 * Fault injection for the blob store (issue 36, "no request is half applied"): a store
 * that fails on write, on read or on delete. An upload whose bytes could not be stored
 * answers 503 SERVICE_UNAVAILABLE (never 500, never the client's 400) and reaches no
 * service, so no fact names missing bytes; an upload the service refuses leaves no bytes;
 * a download or an emoji image whose bytes cannot be read answers 503; a deletion whose
 * bytes cannot be removed still succeeds (its record is gone, so no link reaches them).
 * Small files (a few hundred bytes) and files of several chunks are both tried.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { badRequest, endpoints, ROLE } from '@teamchat/contracts';
import { InProcessBus, loadHttpSettings, loadUploadSettings, serveContract, type BlobStore } from '@teamchat/platform';
import pino from 'pino';
import { buildGateway } from '../src/server';

const log = pino({ level: 'silent' });
const MIB = 1024 * 1024;
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

/** A memory blob store with switches that make each operation fail as a broken disk would. */
class FaultyBlobStore implements BlobStore {
  readonly blobs = new Map<string, Buffer>();
  failWrite: 'no' | 'at-once' | 'mid-stream' = 'no';
  failRead = false;
  failDelete = false;
  private fault(): Error {
    return Object.assign(new Error('EIO: i/o error, write'), { code: 'EIO' });
  }
  async put(key: string, bytes: Buffer): Promise<void> {
    if (this.failWrite !== 'no') throw this.fault();
    this.blobs.set(key, bytes);
  }
  async putStream(key: string, source: AsyncIterable<Buffer>): Promise<number> {
    if (this.failWrite === 'at-once') throw this.fault();
    const chunks: Buffer[] = [];
    for await (const chunk of source) {
      chunks.push(chunk);
      // As the directory adapter does, nothing partial is left when the write fails.
      if (this.failWrite === 'mid-stream') throw this.fault();
    }
    const bytes = Buffer.concat(chunks);
    this.blobs.set(key, bytes);
    return bytes.length;
  }
  async get(key: string): Promise<Buffer | undefined> {
    if (this.failRead) throw Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO' });
    return this.blobs.get(key);
  }
  async delete(key: string): Promise<void> {
    if (this.failDelete) throw this.fault();
    this.blobs.delete(key);
  }
  async close(): Promise<void> {}
}

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/** A gateway over an in-process bus, with stand-ins for the services that record what reached them. */
async function gateway(blobs: FaultyBlobStore, options: { refuseUploads?: boolean } = {}) {
  const bus = new InProcessBus();
  const reached: string[] = [];
  const actor = { user_id: 9, email: 'm@example.com', full_name: 'M', role: ROLE.member, is_bot: false, client: 'test' };
  await serveContract({ bus, log }, endpoints.accounts.authenticate, async () => ({ value: { actor } }));
  await serveContract({ bus, log }, endpoints.messaging.uploadFile, async (params) => {
    reached.push(`upload ${params.file.blob_key}`);
    if (options.refuseUploads) throw badRequest('Refused by the service');
    return { value: { uri: `/user_uploads/2/aa/${params.file.blob_key.split('/').at(-1)}/f.bin`, url: `/user_uploads/2/aa/x/f.bin`, filename: 'f.bin' } };
  });
  await serveContract({ bus, log }, endpoints.messaging.downloadFile, async () => ({
    value: { blob_key: [...blobs.blobs.keys()][0] ?? 'uploads/aa/none', content_type: 'image/png', name: 'f.png', size: PNG.length },
  }));
  await serveContract({ bus, log }, endpoints.messaging.deleteAttachment, async () => {
    reached.push('delete');
    return { value: { removed_blobs: [...blobs.blobs.keys()] } };
  });
  const app = await buildGateway({
    bus,
    log,
    heartbeatSeconds: 1,
    http: loadHttpSettings({}, 'development', 1),
    blobs,
    uploads: loadUploadSettings({ TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB: '2' }),
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  closers.push(async () => (await app.close(), await bus.close()));
  const authorization = `Basic ${Buffer.from('m@example.com:k').toString('base64')}`;
  const asJson = async (res: Response) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> });
  return {
    reached,
    upload: async (bytes: Buffer) => {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)]), 'f.bin');
      return asJson(await fetch(`${url}/api/v1/user_uploads`, { method: 'POST', body: form, headers: { authorization } }));
    },
    download: () => fetch(`${url}/user_uploads/2/aa/bbbbbbbbbbbbbbbbbbbbbbbb/f.png`, { headers: { authorization } }),
    emoji: () => fetch(`${url}/user_avatars/2/emoji/images/${'a'.repeat(24)}.png`),
    deleteAttachment: async () => asJson(await fetch(`${url}/api/v1/attachments/1`, { method: 'DELETE', headers: { authorization } })),
  };
}

const unavailable = { status: 503, body: expect.objectContaining({ result: 'error', code: 'SERVICE_UNAVAILABLE' }) };

describe('blob store faults', () => {
  it.each([
    ['at once, small file', 'at-once', 300],
    ['at once, large file', 'at-once', MIB + 5],
    ['mid-stream, large file', 'mid-stream', MIB + 5],
  ] as const)('a store failing on write (%s): 503, no service reached, nothing stored', async (_, mode, size) => {
    const blobs = new FaultyBlobStore();
    blobs.failWrite = mode;
    const gw = await gateway(blobs);
    expect(await gw.upload(Buffer.alloc(size, 0x41))).toEqual(unavailable);
    expect(gw.reached).toEqual([]);
    expect(blobs.blobs.size).toBe(0);
    // Once the store works again, the same upload succeeds.
    blobs.failWrite = 'no';
    expect(await gw.upload(Buffer.alloc(size, 0x41))).toMatchObject({ status: 200, body: { result: 'success' } });
    expect(blobs.blobs.size).toBe(1);
  });

  it('an upload the service refuses leaves no bytes, and a failing delete then changes no answer', async () => {
    const blobs = new FaultyBlobStore();
    const gw = await gateway(blobs, { refuseUploads: true });
    expect(await gw.upload(Buffer.alloc(300, 0x41))).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST', msg: 'Refused by the service' } });
    expect(blobs.blobs.size).toBe(0);
    blobs.failDelete = true;
    expect(await gw.upload(Buffer.alloc(300, 0x41))).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
  });

  it('a store failing on read: downloads and emoji images answer 503, not 500', async () => {
    const blobs = new FaultyBlobStore();
    blobs.blobs.set('uploads/aa/one', PNG);
    blobs.blobs.set(`emoji/${'a'.repeat(24)}`, PNG);
    const gw = await gateway(blobs);
    expect((await gw.download()).status).toBe(200);
    expect((await gw.emoji()).status).toBe(200);
    blobs.failRead = true;
    for (const res of [await gw.download(), await gw.emoji()]) {
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ result: 'error', code: 'SERVICE_UNAVAILABLE' });
    }
  });

  it('a store failing on delete: the attachment is deleted all the same (its record is gone)', async () => {
    const blobs = new FaultyBlobStore();
    blobs.blobs.set('uploads/aa/one', PNG);
    blobs.failDelete = true;
    const gw = await gateway(blobs);
    expect(await gw.deleteAttachment()).toEqual({ status: 200, body: { result: 'success', msg: '' } });
    expect(gw.reached).toEqual(['delete']);
  });
});
