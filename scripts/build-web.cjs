// `npm run build` (and so `npm start`): builds the web client (apps/web, Vite) into
// apps/web/dist, which the gateway serves at `/`. A tree without apps/web builds the rest
// and says so; the server then answers `/` with how to build the client.
const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');
if (!existsSync(join(root, 'apps/web/package.json'))) {
  process.stderr.write('apps/web is not in this tree: the web client is not built (the server says so at /).\n');
  process.exit(0);
}
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const result = spawnSync(npm, ['run', 'build', '--workspace', 'apps/web'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
