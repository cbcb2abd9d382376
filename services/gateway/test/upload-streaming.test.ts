/**
 * The gateway streams an upload into the blob store: the store receives the file in many
 * chunks and never as one buffer (`put` is not called), and a file past the limit is
 * refused while streaming, the store having seen at most the limit and one chunk.
 */
import { endpoints, ROLE } from '@teamchat/contracts';
import { InProcessBus, loadHttpSettings, loadUploadSettings, serveContract, type BlobStore } from '@teamchat/platform';
import pino from 'pino';
import { buildGateway } from '../src/server';

const log = pino({ level: 'silent' });
const MIB = 1024 * 1024;

class RecordingBlobStore implements BlobStore {
  chunks: number[] = [];
  outcomes: ('stored' | 'refused')[] = [];
  async put(): Promise<void> {
    throw new Error('an upload must be streamed, not put whole');
  }
  async putStream(_key: string, source: AsyncIterable<Buffer>): Promise<number> {
    let size = 0;
    try {
      for await (const chunk of source) {
        this.chunks.push(chunk.length);
        size += chunk.length;
      }
    } catch (err) {
      this.outcomes.push('refused');
      throw err;
    }
    this.outcomes.push('stored');
    return size;
  }
  async get(): Promise<Buffer | undefined> {
    return undefined;
  }
  async delete(): Promise<void> {}
  async close(): Promise<void> {}
}

async function gateway(blobs: BlobStore) {
  const bus = new InProcessBus();
  const actor = { user_id: 9, email: 'm@example.com', full_name: 'M', role: ROLE.member, is_bot: false, client: 'test' };
  await serveContract({ bus, log }, endpoints.accounts.authenticate, async () => ({ value: { actor } }));
  await serveContract({ bus, log }, endpoints.messaging.uploadFile, async (params) => ({
    value: { uri: `/user_uploads/2/${params.file.size}`, url: `/user_uploads/2/${params.file.size}`, filename: params.file.content_type },
  }));
  const app = await buildGateway({
    bus,
    log,
    heartbeatSeconds: 1,
    http: loadHttpSettings({}, 'development', 1),
    blobs,
    uploads: loadUploadSettings({ TEAMCHAT_MAX_FILE_UPLOAD_SIZE_MIB: '1' }),
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  const upload = async (bytes: Buffer) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)]), 'f.bin');
    const res = await fetch(`${url}/api/v1/user_uploads`, { method: 'POST', body: form, headers: { authorization: `Basic ${Buffer.from('m@example.com:k').toString('base64')}` } });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  return { upload, close: async () => (await app.close(), await bus.close()) };
}

describe('upload streaming', () => {
  it('hands the blob store the file in chunks, sized and sniffed without holding it whole', async () => {
    const blobs = new RecordingBlobStore();
    const { upload, close } = await gateway(blobs);
    try {
      const reply = await upload(Buffer.alloc(MIB - 10, 0x41));
      expect(reply).toEqual({ status: 200, body: expect.objectContaining({ result: 'success', url: `/user_uploads/2/${MIB - 10}`, filename: 'text/plain; charset=utf-8' }) });
      expect(blobs.outcomes).toEqual(['stored']);
      expect(blobs.chunks.length).toBeGreaterThan(4);
      expect(Math.max(...blobs.chunks)).toBeLessThan(MIB / 4);
    } finally {
      await close();
    }
  });

  it('refuses a file past the limit while streaming: the store saw no more than the limit and one chunk', async () => {
    const blobs = new RecordingBlobStore();
    const { upload, close } = await gateway(blobs);
    try {
      const reply = await upload(Buffer.alloc(8 * MIB, 0x41));
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ result: 'error', code: 'BAD_REQUEST', msg: expect.stringContaining('1 MiB') });
      expect(blobs.outcomes).toEqual(['refused']);
      expect(blobs.chunks.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(MIB + Math.max(...blobs.chunks));
    } finally {
      await close();
    }
  });
});
