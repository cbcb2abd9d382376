/**
 * The blob store port: the bytes of uploaded files and custom emoji, by key. Which
 * adapter answers is configuration: a directory under the data directory (embedded
 * mode, or processes sharing one disk) or MongoDB GridFS (distributed mode), so the
 * gateway that reads and writes bytes never knows where they are.
 *
 * Keys are chosen by the server, never taken from a request (see `isBlobKey`): a
 * download names a stored path, and the service owning it answers with the key.
 */
export interface BlobStore {
  /** Stores (or replaces) the bytes under `key`; resolves once they are durable. */
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /**
   * Stores the bytes `source` yields under `key` as they arrive, never holding the whole
   * file; resolves with their count once they are durable. If `source` throws (a size
   * limit, a broken request), nothing is stored under `key` and no partial data is left.
   */
  putStream(key: string, source: AsyncIterable<Buffer>, contentType: string): Promise<number>;
  /** The bytes under `key`, or undefined where there are none. */
  get(key: string): Promise<Buffer | undefined>;
  /** Removes the bytes under `key`; nothing happens where there are none. */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * A key is 1-8 segments of letters, digits, `_`, `-` and inner dots, separated by `/`:
 * no empty, `.` or `..` segment, no backslash, no leading slash. A directory adapter
 * may then join it under its root as it is.
 */
export function isBlobKey(key: string): boolean {
  if (key.length === 0 || key.length > 300) return false;
  const segments = key.split('/');
  return segments.length <= 8 && segments.every((s) => /^[A-Za-z0-9_-][A-Za-z0-9_.-]*$/.test(s) && !s.includes('..'));
}

export function checkBlobKey(key: string): void {
  if (!isBlobKey(key)) throw new Error(`Invalid blob key: ${JSON.stringify(key.slice(0, 80))}`);
}

/**
 * A stream's chunks passed on as they come, counting their bytes: what every adapter's
 * `putStream` returns once the stream is stored (`size()` after the chunks are consumed).
 */
export function countingChunks(source: AsyncIterable<Buffer>): { chunks: () => AsyncGenerator<Buffer>; size: () => number } {
  let size = 0;
  return {
    chunks: async function* () {
      for await (const chunk of source) {
        size += chunk.length;
        yield chunk;
      }
    },
    size: () => size,
  };
}
