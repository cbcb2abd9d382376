/**
 * The machine's durable-write latency, the floor of an acknowledged send: 4 KiB appended
 * to a file in the data directory (beside the event store) and fsynced, one at a time,
 * for a second. Milliseconds.
 */
import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { latencyFigures } from './latency';

export interface FsyncReport {
  p50: number;
  p99: number;
  count: number;
}

export function measureFsync(dir: string): FsyncReport {
  const file = join(dir, 'fsync-probe');
  const fd = openSync(file, 'w');
  const block = Buffer.alloc(4096, 7);
  const durations: number[] = [];
  try {
    const deadline = performance.now() + 1000;
    for (let offset = 0; performance.now() < deadline || durations.length < 100; offset = (offset + block.length) % (4 * 1024 * 1024)) {
      const started = performance.now();
      writeSync(fd, block, 0, block.length, offset);
      fsyncSync(fd);
      durations.push(performance.now() - started);
    }
  } finally {
    closeSync(fd);
    unlinkSync(file);
  }
  const { p50, p99 } = latencyFigures(durations);
  return { p50, p99, count: durations.length };
}
