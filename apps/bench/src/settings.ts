/**
 * The settings every bench line shares, from the environment: BENCH_SECONDS (each measured
 * run, default 5), BENCH_MESSAGES (the data set, default 100,000 messages) and BENCH_ONLY
 * (a regular expression; only lines whose name matches run, for profiling one path).
 */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 100_000);
export const CONNECTIONS = 32;
export const CHANNELS = 20;
export const TOPICS_PER_CHANNEL = 10;
export const ONLY = new RegExp(process.env.BENCH_ONLY ?? '');
