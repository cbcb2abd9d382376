/**
 * The scale bench end to end at a tiny size: a first run only seeds part of the messages,
 * a second continues that seed (not starting over), measures at the checkpoint and at the
 * full size, and prints every figure of the table with a number in each column. Runs the
 * compiled bench (`tsc -b`), as `npm run bench:scale` does.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const MAIN = join(__dirname, '..', 'dist', 'scale', 'main.js');

/** Every figure the table must show. */
const FIGURES = [
  'seeding',
  ...[
    'channel, newest 50',
    'topic, newest 50',
    'combined feed, newest 50',
    'first unread, 25 + 25',
    'direct messages, newest 50',
    'starred, newest 50',
    'mentions, newest 50',
    'deep page, channel',
    'deep page, combined feed',
    'search, rare word',
    'search, common word',
    'POST /register (reader)',
  ].flatMap((read) => [`${read} p50`, `${read} p99`]),
  'send to the largest channel, all 50 pollers have it p50',
  'send to the largest channel, all 50 pollers have it max',
  'disk, event store',
  'disk, read models',
  'disk, read models / event store',
  'resident memory while serving reads',
  'startup, process start to first HTTP answer p50',
  'startup, process start to ready (a served GET /messages) p50',
  'startup, process start to ready max',
  'first send after a restart p50',
  'first send after a restart max',
  'first send to a new conversation after a restart p50',
  'first send to a new conversation after a restart max',
  'one unindexable search alone',
  "another user's newest 20 p99, alone",
  "another user's newest 20 p99, 16 unindexable searches in flight",
  'full read-model rebuild',
  'full read-model rebuild, peak memory',
  'full read-model rebuild, first HTTP answer (503 until ready)',
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

describe('npm run bench:scale', () => {
  const dir = mkdtempSync(join(tmpdir(), 'teamchat-scale-test-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = (env: Record<string, string>) =>
    // As `npm run bench:scale` starts it: the bench collects its own garbage between registrations.
    spawnSync(process.execPath, ['--expose-gc', MAIN], {
      env: { ...process.env, BENCH_SCALE_DIR: dir, SCALE_USERS: '80', SCALE_CHANNELS: '12', SCALE_SAMPLES: '3', SCALE_RESTARTS: '1', ...env },
      encoding: 'utf8',
      timeout: 240_000,
    });

  it('continues a seed in its directory, then prints every figure at both sizes with its growth', () => {
    const first = run({ SCALE_MESSAGES: '150', SCALE_CHECKPOINT: '150', SCALE_SEED_ONLY: '1' });
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/created 80 users/);
    expect(first.stdout).toMatch(/seeded 150 messages in [\d.]+ s: \d+ messages\/s/);

    const second = run({ SCALE_MESSAGES: '400', SCALE_CHECKPOINT: '150' });
    expect(second.stderr).toBe('');
    expect(second.status).toBe(0);
    // The users, channels and first messages are not made again.
    expect(second.stdout).not.toMatch(/created \d+ users/);
    expect(second.stdout).toMatch(/continuing the seed at message 150/);
    expect(second.stdout).toMatch(/seeded 250 messages/);
    expect(second.stdout).toMatch(/figure +unit +150 msgs +400 msgs +growth/);
    const number = String.raw`-?\d+(\.\d+)?`;
    for (const figure of FIGURES) {
      expect(second.stdout).toMatch(new RegExp(`^${escape(figure)} +\\S+ +${number} +${number} +×${number}$`, 'm'));
    }
    expect(second.stdout).toMatch(/POST \/register \(reader\): \d+ KiB, \d+ unread/);
    expect(second.stdout).toMatch(/the first five measured \d+(, \d+)* ms; /);
    expect(second.stdout).toMatch(/the client's own collections inside the timings \d+ ms(?! \(not collected)/);
    expect(second.stdout).toMatch(/restarts: 1/);
    expect(second.stdout).toMatch(/unindexable searches while timed: \d+ × \d+/);
  }, 300_000);
});
