import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import type * as JestGlobals from '@jest/globals';

const FALLBACK_PATHS = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'];
const INSTALL_HINT =
  'Install it (Debian/Ubuntu: apt-get install -y nats-server) or set NATS_SERVER_BIN to its path.';

export interface NatsServer {
  url: string;
  port: number;
  /** The server's process id, for tests that freeze or kill it (SIGSTOP, SIGKILL). */
  pid: number | undefined;
  stop(): Promise<void>;
}

/**
 * The nats-server binary to run: NATS_SERVER_BIN, else the first on PATH, else the usual
 * install locations. NATS_SERVER_BIN=none pretends there is none (to exercise the skip path
 * on a machine that has one).
 */
export function findNatsServer(): string | undefined {
  const configured = process.env.NATS_SERVER_BIN;
  if (configured === 'none') return undefined;
  if (configured) return isExecutable(configured) ? configured : undefined;
  const onPath = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => dir !== '')
    .map((dir) => join(dir, 'nats-server'));
  return [...onPath, ...FALLBACK_PATHS].find(isExecutable);
}

export function natsAvailability(): { available: true; bin: string } | { available: false; reason: string } {
  const bin = findNatsServer();
  if (bin) return { available: true, bin };
  const configured = process.env.NATS_SERVER_BIN;
  if (configured === 'none') return { available: false, reason: 'nats-server disabled by NATS_SERVER_BIN=none' };
  if (configured) {
    return { available: false, reason: `NATS_SERVER_BIN=${configured} is not an executable file` };
  }
  return {
    available: false,
    reason: `nats-server binary not found on PATH nor in ${FALLBACK_PATHS.join(', ')}`,
  };
}

/**
 * Starts a private nats-server (no config file, no JetStream) on a free port of 127.0.0.1,
 * or on `port`, and resolves once it accepts connections.
 */
export async function startNatsServer(port?: number): Promise<NatsServer> {
  const bin = findNatsServer();
  if (!bin) throw new Error(`${(natsAvailability() as { reason: string }).reason}. ${INSTALL_HINT}`);
  // On a given port (a restart after stop()): clients reconnect to the same URL.
  if (port !== undefined) return startOn(bin, port);
  // The free port can be taken by someone else before the server binds it; try again then.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(bin, await freePort());
    } catch (err) {
      if (attempt === 3) throw err;
    }
  }
}

async function startOn(bin: string, port: number): Promise<NatsServer> {
  const child = spawn(bin, ['-a', '127.0.0.1', '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] });
  // nats-server logs to stderr; keep the tail to explain a failed start, and keep the pipe
  // drained so the server never blocks on it.
  let log = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk: string) => {
    log = (log + chunk).slice(-4000);
  });
  let hasExited = false;
  // 'error' without 'exit' is what a failed spawn gives; either way there is no process left.
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  }).then(() => {
    hasExited = true;
  });
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));

  const stop = async (): Promise<void> => {
    if (hasExited) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  };

  try {
    await Promise.race([spawnError, waitForPort(port, () => hasExited)]);
  } catch (err) {
    await stop();
    throw new Error(`nats-server did not start on port ${port}: ${(err as Error).message}\n${log}`);
  }
  return { url: `nats://127.0.0.1:${port}`, port, pid: child.pid, stop };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitForPort(port: number, hasExited: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await canConnect(port))) {
    if (hasExited()) throw new Error('the process exited');
    if (Date.now() > deadline) throw new Error('no TCP connection within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

let warned = false;

/**
 * `describe` for suites that need a real nats-server. Without the binary the suite is
 * skipped with a warning, except on CI (CI=true), where a missing binary must fail the run
 * rather than let the NATS transport go untested.
 */
export function describeWithNats(name: string, fn: () => void): void {
  const { describe, it } = jestGlobals();
  const availability = natsAvailability();
  if (availability.available) {
    describe(name, fn);
    return;
  }
  if (process.env.CI === 'true') {
    describe(name, () => {
      it('needs a nats-server binary', () => {
        throw new Error(`${availability.reason}; CI=true requires it. ${INSTALL_HINT}`);
      });
    });
    return;
  }
  if (!warned) {
    warned = true;
    console.warn(`Skipping NATS suites: ${availability.reason}. ${INSTALL_HINT}`);
  }
  describe.skip(name, fn);
}

/**
 * Jest's globals, looked up when called: importing '@jest/globals' for real throws outside
 * jest, and the testing entry must load there too (deciderSpec falls back to node's assert).
 */
export function jestGlobals(): typeof JestGlobals {
  return globalThis as unknown as typeof JestGlobals;
}
