/**
 * Blobs in MongoDB GridFS (distributed mode): one GridFS file per key, its filename the
 * key. A replacement is uploaded before the older versions are removed, so a reader in
 * between still finds a whole file (the newest by upload date).
 */
import { pipeline } from 'node:stream/promises';
import type { Db, GridFSBucket, MongoClient } from 'mongodb';
import { mongodbDriver } from './lazy-driver';
import { checkBlobKey, countingChunks, type BlobStore } from '../ports/blob-store';

const BUCKET = 'blobs';

export class GridFsBlobStore implements BlobStore {
  private readonly bucket: GridFSBucket;

  private constructor(
    private readonly client: MongoClient | undefined,
    db: Db,
  ) {
    this.bucket = new (mongodbDriver().GridFSBucket)(db, { bucketName: BUCKET });
  }

  static async connect(url: string, database: string): Promise<GridFsBlobStore> {
    const client = await mongodbDriver().MongoClient.connect(url);
    return new GridFsBlobStore(client, client.db(database));
  }

  /** Over a database the caller owns (and closes). */
  static over(db: Db): GridFsBlobStore {
    return new GridFsBlobStore(undefined, db);
  }

  private async idsOf(key: string) {
    return (await this.bucket.find({ filename: key }, { projection: { _id: 1 } }).toArray()).map((f) => f._id);
  }

  async put(key: string, bytes: Buffer, contentType: string): Promise<void> {
    checkBlobKey(key);
    const older = await this.idsOf(key);
    await new Promise<void>((resolve, reject) => {
      const upload = this.bucket.openUploadStream(key, { metadata: { content_type: contentType } });
      upload.once('error', reject);
      upload.once('finish', () => resolve());
      upload.end(bytes);
    });
    for (const id of older) await this.bucket.delete(id).catch(() => undefined);
  }

  /** Streamed into a new GridFS file; aborted (its chunks removed) if the source fails. */
  async putStream(key: string, source: AsyncIterable<Buffer>, contentType: string): Promise<number> {
    checkBlobKey(key);
    const older = await this.idsOf(key);
    const upload = this.bucket.openUploadStream(key, { metadata: { content_type: contentType } });
    const counted = countingChunks(source);
    try {
      await pipeline(counted.chunks, upload);
    } catch (err) {
      await upload.abort().catch(() => undefined);
      throw err;
    }
    for (const id of older) await this.bucket.delete(id).catch(() => undefined);
    return counted.size();
  }

  async get(key: string): Promise<Buffer | undefined> {
    checkBlobKey(key);
    const [newest] = await this.bucket.find({ filename: key }).sort({ uploadDate: -1 }).limit(1).toArray();
    if (!newest) return undefined;
    const chunks: Buffer[] = [];
    for await (const chunk of this.bucket.openDownloadStream(newest._id)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async delete(key: string): Promise<void> {
    checkBlobKey(key);
    // Another instance may have removed it already: a missing file is not an error.
    for (const id of await this.idsOf(key)) await this.bucket.delete(id).catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
