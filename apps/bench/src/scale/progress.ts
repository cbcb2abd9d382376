/**
 * What a scale run has done, kept in its directory so that a second run (or one after a
 * kill) continues instead of starting over: the users' and channels' ids, which messages
 * are sent, how long the seeding took, and the figures measured at each size.
 *
 * `progress.json` is rewritten whole (written aside, then renamed) every few seconds;
 * between two rewrites each message done is appended to `done.log` as it finishes, so a
 * kill loses nothing that was acknowledged. Only the sends still in flight at the kill
 * may have been stored without being noted: at most the seed's concurrency of messages
 * (out of the whole seed) are then sent a second time.
 */
import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ScaleSizes } from './model';
import type { Figures } from './report';

interface Saved {
  sizes: ScaleSizes;
  userIds: number[];
  channelIds: number[];
  /** Every message below this index is sent; those in `doneAbove` too. */
  sentBelow: number;
  doneAbove: number[];
  /** Time spent sending the messages sent so far, across runs. */
  seedMs: number;
  /** Figures measured so far, one set per size measured (the last run's at each). */
  measured: Figures[];
}

const SAVE_EVERY_MS = 5_000;

export class Progress {
  private readonly done = new Set<number>();
  private readonly log: number;
  private lastSave = Date.now();

  private constructor(
    private readonly dir: string,
    private readonly saved: Saved,
  ) {
    const logPath = join(dir, 'done.log');
    if (existsSync(logPath)) {
      for (const line of readFileSync(logPath, 'utf8').split('\n')) if (line) this.done.add(Number(line));
    }
    for (const i of saved.doneAbove) this.done.add(i);
    this.log = openSync(logPath, 'a');
    this.advance();
  }

  /** The progress of `dir`, or a fresh one; a directory seeded with other sizes is refused. */
  static open(dir: string, sizes: ScaleSizes): Progress {
    const path = join(dir, 'progress.json');
    if (!existsSync(path)) return new Progress(dir, { sizes, userIds: [], channelIds: [], sentBelow: 0, doneAbove: [], seedMs: 0, measured: [] });
    const saved = JSON.parse(readFileSync(path, 'utf8')) as Saved;
    if (saved.sizes.users !== sizes.users || saved.sizes.channels !== sizes.channels) {
      throw new Error(
        `${dir} holds an organization of ${saved.sizes.users} users and ${saved.sizes.channels} channels, not ${sizes.users} and ${sizes.channels}: ` +
          'use another BENCH_SCALE_DIR or remove it',
      );
    }
    // More messages than last time continue the same sequence; fewer only measure less.
    saved.sizes.messages = Math.max(saved.sizes.messages, sizes.messages);
    return new Progress(dir, saved);
  }

  get userIds(): number[] {
    return this.saved.userIds;
  }

  get channelIds(): number[] {
    return this.saved.channelIds;
  }

  get sentBelow(): number {
    return this.saved.sentBelow;
  }

  get seedMs(): number {
    return this.saved.seedMs;
  }

  /** The figures measured at `messages` messages, if any. */
  figuresAt(messages: number): Figures | undefined {
    return this.saved.measured.find((f) => f.messages === messages);
  }

  /** The figures of the largest size measured below `messages`, if any. */
  figuresBelow(messages: number): Figures | undefined {
    return this.saved.measured.filter((f) => f.messages < messages).sort((a, b) => b.messages - a.messages)[0];
  }

  isDone(i: number): boolean {
    return i < this.saved.sentBelow || this.done.has(i);
  }

  setUsers(ids: number[]): void {
    this.saved.userIds = ids;
    this.save();
  }

  setChannels(ids: number[]): void {
    this.saved.channelIds = ids;
    this.save();
  }

  addFigures(figures: Figures): void {
    this.saved.measured = [...this.saved.measured.filter((f) => f.messages !== figures.messages), figures];
    this.save();
  }

  /** Message `i` and everything done after it was sent. */
  markDone(i: number): void {
    writeSync(this.log, `${i}\n`);
    this.done.add(i);
    if (i === this.saved.sentBelow) this.advance();
    if (Date.now() - this.lastSave > SAVE_EVERY_MS) this.save();
  }

  addSeedTime(ms: number): void {
    this.saved.seedMs += ms;
    this.save();
  }

  /** Writes progress.json and empties done.log, whose lines it now holds (one synchronous step). */
  save(): void {
    this.advance();
    this.saved.doneAbove = [...this.done];
    const path = join(this.dir, 'progress.json');
    writeFileSync(`${path}.tmp`, JSON.stringify(this.saved));
    renameSync(`${path}.tmp`, path);
    ftruncateSync(this.log, 0);
    this.lastSave = Date.now();
  }

  close(): void {
    this.save();
    closeSync(this.log);
  }

  private advance(): void {
    while (this.done.has(this.saved.sentBelow)) this.done.delete(this.saved.sentBelow++);
  }
}
