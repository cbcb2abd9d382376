import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import { loadConfig } from '@teamchat/platform';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'teamchat-config-'));
  dirs.push(dir);
  return dir;
};

describe('loadConfig', () => {
  it('creates one server secret per data directory, private to its owner, and keeps it', () => {
    const dir = dataDir();
    const first = loadConfig({ TEAMCHAT_DATA_DIR: dir });
    expect(first.serverSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dir }).serverSecret).toBe(first.serverSecret);
    expect(readFileSync(join(dir, 'server-secret'), 'utf8')).toBe(first.serverSecret);
    expect(statSync(join(dir, 'server-secret')).mode & 0o077).toBe(0);
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir() }).serverSecret).not.toBe(first.serverSecret);
  });

  it('takes the secret from TEAMCHAT_SECRET when set', () => {
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir(), TEAMCHAT_SECRET: 's3cret' }).serverSecret).toBe('s3cret');
  });

  it('enables JWT with the development secret only in development mode', () => {
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir() })).toMatchObject({ mode: 'development', jwtSecret: 'dev-jwt-secret' });
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir(), TEAMCHAT_MODE: 'production' })).toMatchObject({ mode: 'production', jwtSecret: undefined });
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir(), TEAMCHAT_MODE: 'production', ZULIP_JWT_SECRET: 'k' }).jwtSecret).toBe('k');
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir(), ZULIP_JWT_SECRET: '' }).jwtSecret).toBeUndefined();
  });

  it('falls back to a 60 s heartbeat for nonsense values', () => {
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir(), TEAMCHAT_HEARTBEAT_SECONDS: 'soon' }).heartbeatSeconds).toBe(60);
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir(), TEAMCHAT_HEARTBEAT_SECONDS: '5' }).heartbeatSeconds).toBe(5);
  });
});
