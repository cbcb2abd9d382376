import { latencyFigures, percentile } from '../src/latency';

describe('latency figures of the bench lines', () => {
  it('rank the percentiles at floor(n·p/100) of the ascending list, never past the last', () => {
    const tenths = Array.from({ length: 10 }, (_, i) => i + 1);
    expect(percentile(tenths, 50)).toBe(6);
    expect(percentile(tenths, 99)).toBe(10);
    expect(percentile([...tenths, ...tenths.map((v) => v + 10)].sort((a, b) => a - b), 99)).toBe(20);
    expect(percentile(Array.from({ length: 1000 }, (_, i) => i), 99)).toBe(990);
  });

  it('take the durations in any order and leave the list as it was', () => {
    const durations = [30, 10, 50, 20, 40];
    expect(latencyFigures(durations)).toEqual({ p50: 30, p99: 50, max: 50 });
    expect(durations).toEqual([30, 10, 50, 20, 40]);
  });

  it('are NaN where nothing was measured', () => {
    expect(latencyFigures([])).toEqual({ p50: NaN, p99: NaN, max: NaN });
  });

  // The lines computed these inline before (crowd: the middle and the last; pollers: p/100·n);
  // the shared helper must print the same figures.
  it('give the figures the lines computed before', () => {
    const differing: number[] = [];
    for (let n = 1; n <= 3000; n++) {
      const sorted = Array.from({ length: n }, (_, i) => i);
      const { p50, p99, max } = latencyFigures(sorted);
      if (p50 !== sorted[Math.floor(n / 2)] || max !== sorted[n - 1] || p99 !== sorted[Math.min(n - 1, Math.floor((99 / 100) * n))]) differing.push(n);
    }
    expect(differing).toEqual([]);
  });
});
