/**
 * The machine's durable-write latency, the floor of an acknowledged send: 4 KiB appended
 * to a file in the data directory (beside the event store) and fsynced, one at a time,
 * for a second. Milliseconds.
 *
 * Back to back, that is the disk at its fastest. On the development VM an fsync after the
 * disk has been idle costs several times as much (0.15 ms back to back; 0.24 ms after
 * 0.5 ms idle, 0.35 after 2 ms, 0.8 after 20 ms, 0.85–0.9 after 200 ms: the virtual
 * disk's and the CPU's idle states), and a lone send's fsync always follows a pause: the
 * paced probe measures that floor, with the same pause before each fsync as a paced line
 * leaves between its requests.
 */
import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { latencyFigures } from './latency';

export interface FsyncReport {
  p50: number;
  p99: number;
  count: number;
  /** The idle pause before each fsync, for a paced probe. */
  pauseMs?: number;
}

const BLOCK = Buffer.alloc(4096, 7);
/** The probe's file wraps at this size: its blocks are overwritten, as a reused WAL's are. */
const SPAN = 4 * 1024 * 1024;

/** A scratch file in `dir` and the probe's one timed step on it. */
function openProbe(dir: string, name: string) {
  const file = join(dir, name);
  const fd = openSync(file, 'w');
  return {
    /** Writes 4 KiB at the i-th block and fsyncs: milliseconds. */
    timed(i: number): number {
      const started = performance.now();
      writeSync(fd, BLOCK, 0, BLOCK.length, (i * BLOCK.length) % SPAN);
      fsyncSync(fd);
      return performance.now() - started;
    },
    close(): void {
      closeSync(fd);
      unlinkSync(file);
    },
  };
}

function report(durations: number[], pauseMs?: number): FsyncReport {
  const { p50, p99 } = latencyFigures(durations);
  return { p50, p99, count: durations.length, ...(pauseMs !== undefined ? { pauseMs } : {}) };
}

export function measureFsync(dir: string): FsyncReport {
  const probe = openProbe(dir, 'fsync-probe');
  const durations: number[] = [];
  try {
    const deadline = performance.now() + 1000;
    for (let i = 0; performance.now() < deadline || durations.length < 100; i++) durations.push(probe.timed(i));
  } finally {
    probe.close();
  }
  return report(durations);
}

/** As measureFsync, one every `pauseMs` of idleness (the event loop's, not a spin), `count` times. */
export async function measurePacedFsync(dir: string, pauseMs: number, count: number): Promise<FsyncReport> {
  const probe = openProbe(dir, 'fsync-probe-paced');
  const durations: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      await sleep(pauseMs);
      durations.push(probe.timed(i));
    }
  } finally {
    probe.close();
  }
  return report(durations, pauseMs);
}
