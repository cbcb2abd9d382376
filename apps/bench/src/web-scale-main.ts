/**
 * `npm run bench:web-scale`: the "web at scale" line alone (see web-scale.ts), on an
 * embedded server of its own in a fresh directory, removed afterwards. The sizes come from
 * WEB_SCALE_USERS, WEB_SCALE_CHANNELS and WEB_SCALE_TOPICS.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServer } from '@teamchat/server';
import { settle } from './settle';
import { measureWebScale, seedWebScale, webScaleLines, webScaleSizes } from './web-scale';

async function main(): Promise<void> {
  const sizes = webScaleSizes();
  const dataDir = mkdtempSync(join(tmpdir(), 'teamchat-web-scale-'));
  process.env.LOG_LEVEL = 'warn';
  const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_MODE: 'development', LOG_LEVEL: 'warn' });
  const server = await startEmbeddedServer(config, createLogger('bench'), { host: '127.0.0.1', port: 0 });
  try {
    console.log(`seeding ${sizes.users} users, ${sizes.channels} channels, ${sizes.topics} topics…`);
    const seed = await seedWebScale(server, sizes, (line) => console.log(line));
    console.log(`settled in ${((await settle()) / 1000).toFixed(1)} s; resident ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB`);
    for (const line of webScaleLines(await measureWebScale(server.url, sizes, seed))) console.log(line);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
