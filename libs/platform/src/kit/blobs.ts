/**
 * Which blob store a process uses: GridFS in the MongoDB of the distributed mode
 * (TEAMCHAT_MONGODB_URL, database TEAMCHAT_BLOBS_DATABASE, default `teamchat_blobs`,
 * shared by every instance), else the `uploads` directory under the data directory.
 */
import { join } from 'node:path';
import { DirectoryBlobStore } from '../adapters/directory-blob-store';
import { GridFsBlobStore } from '../adapters/gridfs-blob-store';
import type { BlobStore } from '../ports/blob-store';

export async function openBlobStore(dataDir: string, env: NodeJS.ProcessEnv = process.env): Promise<BlobStore> {
  const url = env.TEAMCHAT_MONGODB_URL?.trim();
  if (url) return GridFsBlobStore.connect(url, env.TEAMCHAT_BLOBS_DATABASE?.trim() || 'teamchat_blobs');
  return new DirectoryBlobStore(join(dataDir, 'uploads'));
}
