/**
 * Waits until the server is idle: every thread's CPU (this process) under 5% of one core
 * for half a second, or 60 s at most. The seeding acknowledges each message once it is
 * durable, and the projections, the event fan-out and the WAL checkpoints behind it run
 * on for a while; a latency line measured then would be measuring that backlog.
 */
const WINDOW_MS = 500;
const IDLE_SHARE = 0.05;

export async function settle(limitMs = 60_000): Promise<number> {
  const started = performance.now();
  for (;;) {
    const before = process.cpuUsage();
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
    const used = process.cpuUsage(before);
    const share = (used.user + used.system) / 1000 / WINDOW_MS;
    if (share < IDLE_SHARE || performance.now() - started > limitMs) return performance.now() - started;
  }
}
