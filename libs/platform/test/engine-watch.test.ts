import { describe, expect, it } from '@jest/globals';
import pino from 'pino';
import { Writable } from 'node:stream';
import { lockDataDirectory, watchEngine } from '@teamchat/platform';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function capture() {
  const lines: { level: number; msg: string; outage_ms?: number; url?: string; reason?: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

describe('watchEngine', () => {
  it('logs an outage once when it begins and once when it ends, with its length, and never a password', async () => {
    const { log, lines } = capture();
    let up = true;
    const watch = watchEngine('MongoDB', 'mongodb://app:s3cret@db:27017/', async () => {
      if (!up) throw new Error('connect ECONNREFUSED mongodb://app:s3cret@db:27017/');
    }, log, { everyMs: 20, timeoutMs: 200 });
    try {
      await sleep(100);
      up = false;
      await sleep(300);
      up = true;
      await sleep(150);
    } finally {
      watch.stop();
    }
    expect(lines.map((l) => l.level)).toEqual([40, 30]);
    expect(lines[0]!.msg).toMatch(/^MongoDB at mongodb:\/\/app:\*\*\*@db:27017\/ is out of reach/);
    expect(lines[1]!.msg).toMatch(/answers again after \d\.\d s$/);
    expect(lines[1]!.outage_ms).toBeGreaterThanOrEqual(250);
    expect(JSON.stringify(lines)).not.toContain('s3cret');
  });

  it('counts a probe that hangs as an outage and waits for it instead of piling probes up', async () => {
    const { log, lines } = capture();
    let release: (() => void) | undefined;
    let probes = 0;
    let hang = true;
    const watch = watchEngine('EventStoreDB', 'esdb://store:2113', () => {
      probes++;
      return hang ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
    }, log, { everyMs: 10, timeoutMs: 50 });
    try {
      await sleep(200);
      expect(probes).toBe(1);
      hang = false;
      release?.();
      await sleep(100);
    } finally {
      watch.stop();
    }
    expect(lines.map((l) => l.level)).toEqual([40, 30]);
  });
});

describe('lockDataDirectory', () => {
  it('lets one holder in, names it to the next, and frees the directory on release', () => {
    const dir = mkdtempSync(join(tmpdir(), 'teamchat-lock-'));
    try {
      const lock = lockDataDirectory(dir);
      expect(() => lockDataDirectory(dir)).toThrow(
        expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringMatching(new RegExp(`^data directory ${dir} is in use by another server \\(pid ${process.pid} on `)) }),
      );
      lock.release();
      lockDataDirectory(dir).release();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
