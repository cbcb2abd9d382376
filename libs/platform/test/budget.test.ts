import { describe, expect, it } from '@jest/globals';
import { CONTENDED_SLICE_MS, CONTENTION_WINDOW_MS, InProcessBus, RequestBudget, SCAN_SLICE_MS, serveContract } from '@teamchat/platform';
import { endpoints, requestCancelled, type BusReply } from '@teamchat/contracts';
import pino from 'pino';

/** Keeps the thread busy for `ms`, as a batch of a scan read synchronously does. */
function work(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/** A scan: `batches` batches of `ms` each, with a turn between them; records each batch's lane. */
async function scan(budget: RequestBudget, batches: number, ms: number, trace?: string[], name?: string): Promise<void> {
  try {
    await budget.enter();
    for (let i = 0; i < batches; i++) {
      work(ms);
      trace?.push(name ?? '');
      await budget.turn();
    }
  } finally {
    // As serveContract does once the request is answered.
    budget.end();
  }
}

describe('a request budget', () => {
  it('stops a scan once its time is spent, with a clear 504', async () => {
    const budget = new RequestBudget(30);
    const started = performance.now();
    const failure = await scan(budget, 1000, 2).catch((err: unknown) => err);
    expect(failure).toMatchObject({ code: 'GATEWAY_TIMEOUT', status: 504, msg: expect.stringMatching(/time limit \(0\.0 s\).*narrow it/) });
    // Stopped at its first turn past the budget, not after its 1,000 batches (2 s); a
    // loaded machine may deschedule the test for a while.
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('stops a scan whose client is gone', async () => {
    const budget = new RequestBudget(10_000);
    const running = scan(budget, 1000, 1);
    budget.abort();
    await expect(running).rejects.toMatchObject({ status: 504, msg: expect.stringMatching(/client closed the connection/) });
  });

  it('lets other work run between slices', async () => {
    const budget = new RequestBudget(10_000);
    let scanning = true;
    let ranDuringScan = false;
    setImmediate(() => (ranDuringScan = scanning));
    await scan(budget, 20, SCAN_SLICE_MS);
    scanning = false;
    expect(ranDuringScan).toBe(true);
  });

  it("runs one slice per turn of each caller's lane, however many scans the caller has", async () => {
    const trace: string[] = [];
    // One caller's five scans beside another caller's one, each batch a full slice.
    const hostile = Array.from({ length: 5 }, () => scan(new RequestBudget(10_000, 1), 8, SCAN_SLICE_MS, trace, 'h'));
    const other = scan(new RequestBudget(10_000, 2), 8, SCAN_SLICE_MS, trace, 'o');
    await Promise.all([...hostile, other]);
    // The other caller waits for one of the hostile caller's batches at most between two of its own.
    const rest = trace.slice(trace.indexOf('o') + 1);
    const gaps = rest.join('').split('o').slice(0, -1).map((run) => run.length);
    expect(gaps.length).toBeGreaterThan(3);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(1);
  });

  it('sizes a scan\'s batches to half a slice from the pace of the last one, so that a slice is not a whole batch', async () => {
    const budget = new RequestBudget(10_000);
    await budget.enter();
    // Items of 20 µs: a batch of 2,000, as a search's round reads, would hold the thread 40 ms.
    const itemMs = 0.02;
    let batch = 2000;
    const batchMs: number[] = [];
    for (let i = 0; i < 15; i++) {
      const started = performance.now();
      work(batch * itemMs);
      batchMs.push(performance.now() - started);
      batch = budget.paced(Math.min(2000, batch * 2), batch, 10);
      await budget.turn();
    }
    // The first batch ran its 40 ms; those after it about 2 ms (a batch the machine
    // interrupts looks slow, and the next is sized down for it: the median is compared).
    const later = batchMs.slice(1).sort((a, b) => a - b);
    expect(later[Math.floor(later.length / 2)]).toBeLessThan(SCAN_SLICE_MS);
    expect(batchMs[0]).toBeGreaterThanOrEqual(40);
    // A scan whose batches are quick reads what it wanted; none reads less than its minimum.
    const quick = new RequestBudget(10_000);
    await quick.enter();
    expect(quick.paced(2000, 1_000_000, 10)).toBe(2000);
    expect(new RequestBudget(10_000).paced(5, 0, 10)).toBe(10);
  });

  it('does not shrink the batches for one slow batch among quick ones', async () => {
    const budget = new RequestBudget(10_000);
    await budget.enter();
    const sizes: number[] = [];
    // Batches of 1,000 items in 0.5 ms (a batch of 4,000 would fit half a slice), then one
    // interrupted for 100 ms (as if 20 fitted), then quick again: the scan keeps asking 100.
    for (const ms of [0.5, 0.5, 100, 0.5]) {
      work(ms);
      sizes.push(budget.paced(100, 1000, 10));
      await budget.turn();
    }
    expect(sizes).toEqual([100, 100, 100, 100]);
  });

  it("takes short slices while another caller's requests are being served, and full ones alone", async () => {
    // The callers of the tests above are forgotten once the window has passed.
    const windowPassed = () => new Promise((resolve) => setTimeout(resolve, CONTENTION_WINDOW_MS + 50));
    await windowPassed();
    const scanning = new RequestBudget(10_000, 41);
    expect(scanning.sliceMs).toBe(SCAN_SLICE_MS);
    // The same caller's other requests (their searches wait in the lane) do not shorten it.
    void new RequestBudget(10_000, 41);
    expect(scanning.sliceMs).toBe(SCAN_SLICE_MS);
    void new RequestBudget(10_000, 42);
    expect(scanning.sliceMs).toBe(CONTENDED_SLICE_MS);
    // Batches are paced to the shorter slice too: items of 0.1 ms, half a slice each.
    await scanning.enter();
    work(10);
    // (At most: the machine may stretch the 10 ms, never shorten it.)
    expect(scanning.paced(1000, 100, 1)).toBeLessThanOrEqual(Math.floor(CONTENDED_SLICE_MS / 2 / 0.1));
    scanning.end();
    await windowPassed();
    expect(scanning.sliceMs).toBe(SCAN_SLICE_MS);
  });

  it("answers a request whose budget runs out while it waits for its caller's other scans", async () => {
    // Ahead in the lane: batches of 60 ms, longer than the budget of the request behind.
    const long = scan(new RequestBudget(10_000, 3), 2, 60);
    const waiting = scan(new RequestBudget(30, 3), 1, 1).catch((err: unknown) => err);
    expect(await waiting).toMatchObject({ status: 504, msg: expect.stringMatching(/time limit/) });
    await long;
  });
});

describe('serveContract and the budget', () => {
  it('gives the handler the budget the request carries, and a cancellation stops it', async () => {
    const bus = new InProcessBus();
    let seen: RequestBudget | undefined;
    await serveContract({ bus, log: pino({ level: 'silent' }) }, endpoints.accounts.devUsers, async (_params, { budget }) => {
      seen = budget;
      for (;;) {
        work(1);
        await budget.turn();
      }
    });
    const reply = bus.request(endpoints.accounts.devUsers.subject, { params: {}, budget_ms: 5000, request_id: 'r1' }, 10_000) as Promise<unknown>;
    while (!seen) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(seen.budgetMs).toBe(5000);
    bus.publish(requestCancelled.subject, { request_id: 'r1' });
    const answered = (await reply) as BusReply;
    expect(answered).toMatchObject({ ok: false, error: { status: 504, msg: expect.stringMatching(/client closed/) } });
    await bus.close();
  });
});
