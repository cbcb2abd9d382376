/**
 * The blob-store port: key rules (pure), the directory adapter on a temporary directory,
 * and the GridFS adapter against a real MongoDB (testcontainers; skipped, with one printed
 * line, where no Docker engine answers). Both adapters pass the same contract.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, beforeAll, afterAll } from '@jest/globals';
import { MongoDBContainer, type StartedMongoDBContainer } from '@testcontainers/mongodb';
import { DirectoryBlobStore, GridFsBlobStore, isBlobKey, type BlobStore } from '@teamchat/platform';
import { describeWithDocker } from '@teamchat/platform/testing';

describe('blob keys', () => {
  it('accepts the server’s own shapes', () => {
    for (const key of ['uploads/0a/abcdefghijklmnopqrstuvwx', 'emoji/abc_DEF-123', 'a', 'x/y.z']) expect(isBlobKey(key)).toBe(true);
  });
  it('refuses anything that could leave its root or be ambiguous', () => {
    for (const key of ['', '/abs', '../x', 'a/../b', 'a/..', 'a//b', 'a\\b', '.hidden', 'a/./b', 'a b', 'a/b/', 'x'.repeat(301), 'a/b/c/d/e/f/g/h/i'])
      expect(isBlobKey(key)).toBe(false);
  });
});

function blobStoreContract(name: string, open: () => Promise<BlobStore>) {
  describe(name, () => {
    let store: BlobStore;
    beforeAll(async () => {
      store = await open();
    }, 180_000);
    afterAll(async () => {
      await store?.close();
    });

    it('stores, reads, replaces and deletes bytes by key', async () => {
      const bytes = Buffer.from([0, 1, 2, 255]);
      await store.put('uploads/0a/key1', bytes, 'application/octet-stream');
      expect((await store.get('uploads/0a/key1'))?.equals(bytes)).toBe(true);
      await store.put('uploads/0a/key1', Buffer.from('newer'), 'text/plain');
      expect((await store.get('uploads/0a/key1'))?.toString()).toBe('newer');
      await store.delete('uploads/0a/key1');
      expect(await store.get('uploads/0a/key1')).toBeUndefined();
      await store.delete('uploads/0a/key1');
    });

    it('keeps a megabyte whole', async () => {
      const big = Buffer.alloc(1024 * 1024 + 17, 0x5a);
      await store.put('emoji/big', big, 'image/png');
      expect((await store.get('emoji/big'))?.equals(big)).toBe(true);
    });

    it('streams bytes in as they come, and stores nothing when the source fails part way', async () => {
      const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(64 * 1024, i));
      const source = async function* () {
        for (const chunk of chunks) yield chunk;
      };
      expect(await store.putStream('uploads/0b/streamed', source(), 'application/octet-stream')).toBe(40 * 64 * 1024);
      expect((await store.get('uploads/0b/streamed'))?.equals(Buffer.concat(chunks))).toBe(true);
      const failing = async function* () {
        yield Buffer.alloc(256 * 1024, 1);
        throw new Error('too large');
      };
      await expect(store.putStream('uploads/0b/partial', failing(), 'application/octet-stream')).rejects.toThrow('too large');
      expect(await store.get('uploads/0b/partial')).toBeUndefined();
      await store.delete('uploads/0b/streamed');
    });

    it('answers nothing for a missing key and refuses an invalid one', async () => {
      expect(await store.get('uploads/none')).toBeUndefined();
      await expect(store.get('../etc/passwd')).rejects.toThrow('Invalid blob key');
      await expect(store.put('a/../../b', Buffer.from('x'), 'text/plain')).rejects.toThrow('Invalid blob key');
    });
  });
}

blobStoreContract('DirectoryBlobStore', async () => new DirectoryBlobStore(mkdtempSync(join(tmpdir(), 'teamchat-blobs-'))));

describe('DirectoryBlobStore files', () => {
  it('leaves no temporary file behind', async () => {
    const root = mkdtempSync(join(tmpdir(), 'teamchat-blobs-'));
    const store = new DirectoryBlobStore(root);
    await store.put('uploads/0a/k', Buffer.from('x'), 'text/plain');
    expect(readdirSync(join(root, 'uploads', '0a'))).toEqual(['k']);
  });
});

describe('DirectoryBlobStore streams', () => {
  it('removes the partial temporary file when the source fails', async () => {
    const root = mkdtempSync(join(tmpdir(), 'teamchat-blobs-'));
    const store = new DirectoryBlobStore(root);
    await store.put('uploads/0a/kept', Buffer.from('x'), 'text/plain');
    const failing = async function* () {
      yield Buffer.alloc(1024 * 1024, 2);
      throw new Error('limit');
    };
    await expect(store.putStream('uploads/0a/cut', failing(), 'application/octet-stream')).rejects.toThrow('limit');
    expect(readdirSync(join(root, 'uploads', '0a'))).toEqual(['kept']);
  });
});

describeWithDocker('GridFS blob store', () => {
  let container: StartedMongoDBContainer;
  beforeAll(async () => {
    container = await new MongoDBContainer('mongo:7.0').start();
  }, 180_000);
  afterAll(async () => {
    await container?.stop();
  });
  blobStoreContract('GridFsBlobStore', () => GridFsBlobStore.connect(`${container.getConnectionString()}/?directConnection=true`, 'blobs_contract'));
});
