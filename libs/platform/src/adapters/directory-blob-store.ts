/**
 * Blobs as files under one directory (the data directory's `uploads`): each written (or
 * streamed) to a temporary file and renamed into place, so a reader sees the whole file
 * or none. Directories are made 0700 and files 0600 (the bytes are users' private files),
 * whatever the process's umask (see kit/data-dir.ts).
 */
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { checkBlobKey, countingChunks, type BlobStore } from '../ports/blob-store';

export class DirectoryBlobStore implements BlobStore {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    checkBlobKey(key);
    return join(this.root, ...key.split('/'));
  }

  /** The type is not kept: downloads take it from the owning service's record. */
  async put(key: string, bytes: Buffer, _contentType?: string): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    await writeFile(temporary, bytes, { flush: true, mode: 0o600 });
    await rename(temporary, path);
  }

  /** Streamed into a temporary file beside the target, which is removed if the source fails. */
  async putStream(key: string, source: AsyncIterable<Buffer>, _contentType?: string): Promise<number> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
    const counted = countingChunks(source);
    try {
      const file = createWriteStream(temporary, { flush: true, mode: 0o600 });
      await pipeline(counted.chunks, file);
      await rename(temporary, path);
    } catch (err) {
      await rm(temporary, { force: true });
      throw err;
    }
    return counted.size();
  }

  async get(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async close(): Promise<void> {}
}
