/**
 * BENCH_PROFILE=dir: a CPU profile and an allocation profile (sampled) of the server's main
 * thread for each measured run (not the seeding), written to dir/<benchmark>.cpuprofile
 * and .heapprofile, for Chrome DevTools or any viewer of those formats.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector';
import { join } from 'node:path';

const PROFILE_DIR = process.env.BENCH_PROFILE;

export async function profiled<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (!PROFILE_DIR) return work();
  const session = new Session();
  session.connect();
  const post = (method: string, params?: object) =>
    new Promise<unknown>((resolve, reject) => session.post(method, params, (err, result) => (err ? reject(err) : resolve(result))));
  await post('Profiler.enable');
  await post('Profiler.start');
  await post('HeapProfiler.enable');
  // Every allocation sampled, not only what is still live at the end: garbage is the point.
  await post('HeapProfiler.startSampling', { includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
  try {
    return await work();
  } finally {
    const { profile } = (await post('Profiler.stop')) as { profile: unknown };
    const { profile: allocations } = (await post('HeapProfiler.stopSampling')) as { profile: unknown };
    session.disconnect();
    mkdirSync(PROFILE_DIR, { recursive: true });
    const file = join(PROFILE_DIR, name.replace(/[^A-Za-z0-9]+/g, '-'));
    writeFileSync(`${file}.cpuprofile`, JSON.stringify(profile));
    writeFileSync(`${file}.heapprofile`, JSON.stringify(allocations));
  }
}
