import { FLOOR_WRITE_BYTES, FloorWrites, floorWrite } from '../src/fan-out-floor';

describe('the fan-out floor reader', () => {
  it('times a write by its first byte, however the write is split on the way', () => {
    const writes = new FloorWrites();
    const write = floorWrite(3, 1000);
    expect(write).toHaveLength(FLOOR_WRITE_BYTES);
    expect(writes.take(write.slice(0, 10), 1004.5)).toEqual([]);
    expect(writes.take(write.slice(10, 900), 1007)).toEqual([]);
    expect(writes.take(write.slice(900), 1009)).toEqual([{ round: 3, latency: 4.5 }]);
  });

  it('separates writes that arrive merged, the second timed by the chunk that began it', () => {
    const writes = new FloorWrites();
    const first = floorWrite(-1, 2000);
    const second = floorWrite(0, 2001.25);
    const merged = first + second;
    expect(writes.take(merged.slice(0, FLOOR_WRITE_BYTES + 5), 2002)).toEqual([{ round: -1, latency: 2 }]);
    expect(writes.take(merged.slice(FLOOR_WRITE_BYTES + 5), 2010)).toEqual([{ round: 0, latency: 0.75 }]);
    expect(writes.take(floorWrite(1, 3000) + floorWrite(2, 3000), 3001)).toEqual([
      { round: 1, latency: 1 },
      { round: 2, latency: 1 },
    ]);
  });
});
