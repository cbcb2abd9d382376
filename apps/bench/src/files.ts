/**
 * Upload and download throughput of a 1 MB file (issue 17 item 8): `connections`
 * clients each upload (POST /user_uploads, multipart) or download (GET /user_uploads/…)
 * in a loop for `seconds`; a figure is requests per second, MiB per second and the
 * median latency. Every reply is checked, so a failure is counted, not timed.
 */
import { randomBytes } from 'node:crypto';
import { latencyFigures } from './latency';

export interface FileThroughput {
  requests: number;
  perSecond: number;
  mibPerSecond: number;
  p50Ms: number;
  failures: number;
}

export const FILE_BYTES = 1_000_000;

async function loop(connections: number, seconds: number, once: () => Promise<boolean>): Promise<FileThroughput> {
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < deadline) {
        const t = performance.now();
        const ok = await once().catch(() => false);
        if (ok) latencies.push(performance.now() - t);
        else failures++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return {
    requests: latencies.length,
    perSecond: latencies.length / elapsed,
    mibPerSecond: (latencies.length * FILE_BYTES) / 1024 / 1024 / elapsed,
    p50Ms: latencyFigures(latencies).p50,
    failures,
  };
}

export async function measureFiles(api: string, authorization: string, connections: number, seconds: number) {
  // Random bytes: nothing on the way (sniffing, storage) gets an easy case.
  const bytes = randomBytes(FILE_BYTES);
  const upload = async () => {
    const body = new FormData();
    body.append('file', new Blob([new Uint8Array(bytes)]), 'bench.bin');
    const res = await fetch(`${api}/user_uploads`, { method: 'POST', headers: { authorization }, body });
    const json = (await res.json()) as { result: string; url: string };
    return res.ok && json.result === 'success' ? json.url : undefined;
  };
  const url = await upload();
  if (!url) throw new Error('POST /user_uploads failed');
  const root = api.replace(/\/api\/v1$/, '');
  const uploads = await loop(connections, seconds, async () => (await upload()) !== undefined);
  const downloads = await loop(connections, seconds, async () => {
    const res = await fetch(`${root}${url}`, { headers: { authorization } });
    return res.ok && (await res.arrayBuffer()).byteLength === FILE_BYTES;
  });
  return { uploads, downloads };
}

export function fileLine(report: { uploads: FileThroughput; downloads: FileThroughput }): string {
  const part = (name: string, t: FileThroughput) =>
    `${name} ${t.perSecond.toFixed(1)}/s (${t.mibPerSecond.toFixed(1)} MiB/s, p50 ${t.p50Ms.toFixed(0)} ms${t.failures ? `, ${t.failures} failed` : ''})`;
  return `1 MB file: ${part('upload', report.uploads)}, ${part('download', report.downloads)}`;
}
