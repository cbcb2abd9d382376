/**
 * The drivers of the distributed engines, of NATS and of SMTP load when an adapter first
 * needs them, not when the platform (or the embedded server) is imported: loading them
 * took about a third of a second of every process's and service thread's start. So does
 * jose, which only a JWT login needs.
 * Each check runs in a fresh process over the compiled output, whose module cache is
 * Node's own (jest keeps a registry of its own).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from '@jest/globals';

const root = join(__dirname, '..', '..', '..');
const DRIVERS = ['mongodb', '@eventstore/db-client', 'nats', 'nodemailer', 'jose'];

/** The drivers among the packages loaded by `script` (run from the repository's root). */
function driversLoadedBy(script: string): string[] {
  const probe = `${script};
    const loaded = Object.keys(require.cache);
    console.log(JSON.stringify(${JSON.stringify(DRIVERS)}.filter((d) => loaded.some((f) => f.includes('/node_modules/' + d + '/')))));`;
  const out = execFileSync(process.execPath, ['-e', probe], { cwd: root, encoding: 'utf8', env: { ...process.env, LOG_LEVEL: 'silent' } });
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

describe('driver loading', () => {
  it('imports the platform and the embedded server without any of the drivers or jose', () => {
    expect(driversLoadedBy("require('./libs/platform/dist/index.js'); require('./apps/server/dist/embedded.js')")).toEqual([]);
  });

  it('loads a driver once its adapter is used', () => {
    const script = `const p = require('./libs/platform/dist/index.js');
      new p.SmtpMailer({ host: '127.0.0.1', port: 1, secure: false, user: undefined, password: undefined, attempts: 1, retryDelayMs: 1 }, 'a@b.c', require('pino')({ level: 'silent' }));
      p.connectEsdb('esdb://127.0.0.1:1?tls=false')`;
    expect(driversLoadedBy(script).sort()).toEqual(['@eventstore/db-client', 'nodemailer']);
  });
});
