/** The memory report. The server shares the bench's process: its resident memory, read-model caches included. */
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

export function memoryLine(rssAfterSeeding: number): string {
  return `server process memory (RSS): ${mib(rssAfterSeeding)} after seeding, ${mib(process.memoryUsage().rss)} at the end`;
}
