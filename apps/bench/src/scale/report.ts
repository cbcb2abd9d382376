/**
 * What one measurement of the scale bench found, and the table that sets the figures at
 * the checkpoint (100,000 messages at full size) beside those at the full size, with the
 * growth factor between them: a cost that grows with the organization shows a factor
 * near the ratio of the sizes, one that does not stays near 1.
 */
import type { FanOutReport } from './fan-out';
import type { HostileReport } from './hostile';
import type { ReadLine } from './reads';
import type { RestartReport } from './restart';

export interface Figures {
  messages: number;
  /** Messages (with their reactions, stars and edits) sent per second while seeding. */
  seedRate: number;
  reads: ReadLine[];
  fanOut: FanOutReport;
  disk: { eventStore: number; readModels: number };
  /** The server's resident memory, the most sampled while it served the reads. */
  rssServing: number;
  /** From the spawn to a served GET /messages (the restarts' median when they were measured). */
  startupMs: number;
  /** Absent in figures kept before these lines, or when SCALE_MEASURE left them out. */
  restarts?: RestartReport;
  hostile?: HostileReport;
  /** `firstAnswerMs`: the listener answers (503) while the read models are rebuilt; absent in figures kept before. */
  rebuild: { ms: number; firstAnswerMs?: number; peakRss: number; progressLines: number };
}

const mib = (bytes: number) => bytes / 1024 / 1024;

interface Row {
  name: string;
  unit: string;
  value: (f: Figures) => number;
  digits: number;
}

function rows(reads: string[]): Row[] {
  const read = (name: string, pick: 'p50' | 'p99'): Row => ({
    name: `${name} ${pick}`,
    unit: 'ms',
    value: (f) => f.reads.find((r) => r.name === name)?.[pick] ?? NaN,
    digits: 1,
  });
  return [
    { name: 'seeding', unit: 'messages/s', value: (f) => f.seedRate, digits: 0 },
    ...reads.flatMap((name) => [read(name, 'p50'), read(name, 'p99')]),
    { name: 'send to the largest channel, all 50 pollers have it p50', unit: 'ms', value: (f) => f.fanOut.p50, digits: 1 },
    { name: 'send to the largest channel, all 50 pollers have it max', unit: 'ms', value: (f) => f.fanOut.max, digits: 1 },
    { name: 'disk, event store', unit: 'MiB', value: (f) => mib(f.disk.eventStore), digits: 1 },
    { name: 'disk, read models', unit: 'MiB', value: (f) => mib(f.disk.readModels), digits: 1 },
    { name: 'disk, read models / event store', unit: 'ratio', value: (f) => f.disk.readModels / f.disk.eventStore, digits: 2 },
    { name: 'resident memory while serving reads', unit: 'MiB', value: (f) => mib(f.rssServing), digits: 0 },
    { name: 'startup, process start to first HTTP answer p50', unit: 'ms', value: (f) => f.restarts?.firstAnswer.p50 ?? NaN, digits: 0 },
    { name: 'startup, process start to ready (a served GET /messages) p50', unit: 'ms', value: (f) => f.startupMs, digits: 0 },
    { name: 'startup, process start to ready max', unit: 'ms', value: (f) => f.restarts?.ready.max ?? NaN, digits: 0 },
    { name: 'first send after a restart p50', unit: 'ms', value: (f) => f.restarts?.firstSend.p50 ?? NaN, digits: 1 },
    { name: 'first send after a restart max', unit: 'ms', value: (f) => f.restarts?.firstSend.max ?? NaN, digits: 1 },
    { name: 'first send to a new conversation after a restart p50', unit: 'ms', value: (f) => f.restarts?.newConversation.p50 ?? NaN, digits: 1 },
    { name: 'first send to a new conversation after a restart max', unit: 'ms', value: (f) => f.restarts?.newConversation.max ?? NaN, digits: 1 },
    { name: 'one unindexable search alone', unit: 'ms', value: (f) => f.hostile?.searchAloneMs ?? NaN, digits: 0 },
    { name: "another user's newest 20 p99, alone", unit: 'ms', value: (f) => f.hostile?.alone.p99 ?? NaN, digits: 1 },
    { name: "another user's newest 20 p99, 16 unindexable searches in flight", unit: 'ms', value: (f) => f.hostile?.flooded.p99 ?? NaN, digits: 1 },
    { name: 'full read-model rebuild', unit: 's', value: (f) => f.rebuild.ms / 1000, digits: 1 },
    { name: 'full read-model rebuild, peak memory', unit: 'MiB', value: (f) => mib(f.rebuild.peakRss), digits: 0 },
    { name: 'full read-model rebuild, first HTTP answer (503 until ready)', unit: 'ms', value: (f) => f.rebuild.firstAnswerMs ?? NaN, digits: 0 },
  ];
}

/** The table, as lines: one row per figure, the growth factor last. */
export function table(full: Figures, checkpoint: Figures | undefined): string[] {
  const header = ['figure', 'unit', checkpoint ? `${checkpoint.messages} msgs` : '-', `${full.messages} msgs`, 'growth'];
  const lines = rows(full.reads.map((r) => r.name)).map(({ name, unit, value, digits }) => {
    // A figure never measured is NaN, which progress.json keeps as null.
    const now = value(full) ?? NaN;
    const before = checkpoint ? (value(checkpoint) ?? NaN) : NaN;
    return [name, unit, checkpoint ? before.toFixed(digits) : '-', now.toFixed(digits), checkpoint ? `×${(now / before).toFixed(2)}` : '-'];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(format)];
}

/** What each read returned at full size (message counts, registration size and unreads). */
export function details(full: Figures): string[] {
  return [
    ...full.reads.map((r) => `  ${r.name}: ${r.detail}`),
    `  send to the largest channel: ${full.fanOut.subscribers} subscribers, ${full.fanOut.pollers} long-polling`,
    `  rebuild: ${full.rebuild.progressLines} progress lines`,
    ...(full.restarts ? [`  restarts: ${full.restarts.rounds}`] : []),
    ...(full.hostile
      ? [`  unindexable searches while timed: ${Object.entries(full.hostile.answered).map(([status, n]) => `${n} × ${status}`).join(', ') || 'none finished'}; newest 20 p50 ${full.hostile.alone.p50.toFixed(1)} ms alone, ${full.hostile.flooded.p50.toFixed(1)} ms flooded`]
      : []),
  ];
}
