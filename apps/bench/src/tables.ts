/** The two tables the bench prints: the throughput lines against the no-op ceiling, and the single-client lines against fsync. */
import type { FsyncReport } from './fsync';
import { SECONDS } from './settings';
import type { OneClientRow } from './single-client';
import type { Row } from './throughput';

/** Columns: the first left-aligned, the others right-aligned, under a dashed rule. */
function printColumns(header: string[], lines: string[][]): void {
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log([format(header), widths.map((w) => '-'.repeat(w)).join('  '), ...lines.map(format)].join('\n'));
}

export function printTable(rows: Row[], ceiling: number): void {
  const header = ['benchmark', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', '% of noop', 'server CPU µs/req'];
  const lines = rows.map(({ name, result, cpuPerRequest }) => [
    name,
    result.requests.average.toFixed(0),
    String(result.latency.p50),
    String(result.latency.p99),
    String(result.non2xx),
    String(result.errors),
    `${((100 * result.requests.average) / ceiling).toFixed(1)}%`,
    cpuPerRequest.toFixed(0),
  ]);
  printColumns(header, lines);
}

export function printOneClientTable(rows: OneClientRow[], fsync: FsyncReport | undefined, pacedFsync?: FsyncReport): void {
  const header = ['single client', 'req/s', 'p50 ms', 'p99 ms', 'max ms', 'p50/fsync', 'p99/p50', 'non-2xx', 'server CPU µs/req'];
  // A paced line is set against the fsync with the same pause before it.
  const reference = (row: OneClientRow) => (row.pauseMs !== undefined && pacedFsync?.pauseMs === row.pauseMs ? pacedFsync : fsync);
  const lines = rows.map((row) => {
    const { name, result, cpuPerRequest } = row;
    const against = reference(row);
    return [
      name,
      ((1000 * result.requests) / (SECONDS * 1000)).toFixed(0),
      result.p50.toFixed(2),
      result.p99.toFixed(2),
      result.max.toFixed(2),
      against ? (result.p50 / against.p50).toFixed(1) : '-',
      (result.p99 / result.p50).toFixed(1),
      String(result.non2xx),
      cpuPerRequest.toFixed(0),
    ];
  });
  const probes = [];
  if (fsync) probes.push(['fsync 4 KiB (data dir)', fsync.count.toFixed(0), fsync.p50.toFixed(2), fsync.p99.toFixed(2), '', '1.0', (fsync.p99 / fsync.p50).toFixed(1), '', '']);
  if (pacedFsync) {
    // Its p50/fsync is what the pause alone costs a durable write.
    const ratio = fsync ? (pacedFsync.p50 / fsync.p50).toFixed(1) : '-';
    probes.push([`fsync 4 KiB (data dir), ${pacedFsync.pauseMs} ms apart`, '', pacedFsync.p50.toFixed(2), pacedFsync.p99.toFixed(2), '', ratio, (pacedFsync.p99 / pacedFsync.p50).toFixed(1), '', '']);
  }
  printColumns(header, [...probes, ...lines]);
}
