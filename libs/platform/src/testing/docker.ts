import { spawnSync } from 'node:child_process';
import { jestGlobals } from './nats-server';

/**
 * Whether a Docker engine answers, decided synchronously (jest collects suites
 * synchronously): a child process asks the engine's /_ping on DOCKER_HOST or the usual
 * socket. DOCKER_HOST=none pretends there is none.
 */
export function dockerAvailability(): { available: true } | { available: false; reason: string } {
  const host = process.env.DOCKER_HOST ?? 'unix:///var/run/docker.sock';
  if (host === 'none') return { available: false, reason: 'Docker disabled by DOCKER_HOST=none' };
  const script = `
    const http = require('node:http');
    const host = process.argv[1];
    const target = host.startsWith('unix://') ? { socketPath: host.slice(7) }
      : (() => { const u = new URL(host.replace(/^tcp:/, 'http:')); return { host: u.hostname, port: u.port || 2375 }; })();
    const req = http.get({ ...target, path: '/_ping', timeout: 2000 }, (res) => process.exit(res.statusCode === 200 ? 0 : 2));
    req.on('timeout', () => process.exit(3));
    req.on('error', (err) => { process.stderr.write(err.message); process.exit(4); });`;
  const result = spawnSync(process.execPath, ['-e', script, host], { timeout: 5000, encoding: 'utf8' });
  if (result.status === 0) return { available: true };
  const why = result.status === 3 || result.signal ? 'did not answer in time' : result.stderr.trim() || `answered /_ping with an error`;
  return { available: false, reason: `no Docker engine at ${host} (${why})` };
}

let availability: ReturnType<typeof dockerAvailability> | undefined;

/**
 * `describe` for suites that need real engines in containers (testcontainers). Without a
 * Docker engine the suite is skipped with one printed line saying why, so it counts as
 * skipped, never as passed; CI machines have no Docker engine either, so this holds
 * under CI=true too (only nats-server is required there).
 */
export function describeWithDocker(name: string, fn: () => void): void {
  const { describe } = jestGlobals();
  availability ??= dockerAvailability();
  if (availability.available) {
    describe(name, fn);
    return;
  }
  // One line on stderr (console.warn would add a stack excerpt under jest).
  process.stderr.write(`Skipping "${name}": ${availability.reason}; these suites need Docker (testcontainers).\n`);
  describe.skip(name, fn);
}
