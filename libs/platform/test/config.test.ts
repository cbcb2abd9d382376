import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { DEFAULT_RATE_LIMITS, loadConfig, loadHttpSettings } from '@teamchat/platform';

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

  it('creates the data directory 0700 whatever the umask, and leaves the process creating private files', () => {
    const dir = join(dataDir(), 'nested', 'data');
    process.umask(0o022);
    loadConfig({ TEAMCHAT_DATA_DIR: dir });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(process.umask()).toBe(0o077);
    writeFileSync(join(dir, 'later'), 'x');
    expect(statSync(join(dir, 'later')).mode & 0o777).toBe(0o600);
  });

  describe('an existing data directory open to others', () => {
    const open = () => {
      const dir = join(dataDir(), 'data');
      mkdirSync(dir);
      chmodSync(dir, 0o755);
      writeFileSync(join(dir, 'events.sqlite'), '');
      chmodSync(join(dir, 'events.sqlite'), 0o644);
      return dir;
    };

    it('is refused in production, as a configuration error naming what is exposed and the fix, and left as it was', () => {
      const dir = open();
      expect(() => loadConfig({ TEAMCHAT_DATA_DIR: dir, TEAMCHAT_MODE: 'production' })).toThrow(
        expect.objectContaining({
          code: 'CONFIGURATION',
          message: `data directory ${dir} is readable by other users (the directory 0755, events.sqlite 0644): make it private with \`chmod -R go= ${dir}\` and start again`,
        }),
      );
      expect(statSync(dir).mode & 0o777).toBe(0o755);
      expect(statSync(join(dir, 'events.sqlite')).mode & 0o777).toBe(0o644);
    });

    it('is made private in development, saying so in one line', () => {
      const dir = open();
      const write = jest.spyOn(process.stderr, 'write').mockImplementation(() => true);
      try {
        loadConfig({ TEAMCHAT_DATA_DIR: dir });
        expect(write.mock.calls).toEqual([[`data directory ${dir} was readable by other users (the directory 0755, events.sqlite 0644): made it private to its owner\n`]]);
      } finally {
        write.mockRestore();
      }
      expect(statSync(dir).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir, 'events.sqlite')).mode & 0o777).toBe(0o600);
      // The secret created afterwards is private too.
      expect(statSync(join(dir, 'server-secret')).mode & 0o777).toBe(0o600);
    });
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

describe('the HTTP edge settings', () => {
  it('turns rate limits on in production and off in development, unless TEAMCHAT_RATE_LIMITS says otherwise', () => {
    expect(loadHttpSettings({}, 'production', 60).rateLimits).toEqual(DEFAULT_RATE_LIMITS);
    expect(loadHttpSettings({}, 'development', 60).rateLimits).toBeUndefined();
    expect(loadHttpSettings({ TEAMCHAT_RATE_LIMITS: 'on' }, 'development', 60).rateLimits).toEqual(DEFAULT_RATE_LIMITS);
    expect(loadHttpSettings({ TEAMCHAT_RATE_LIMITS: 'off' }, 'production', 60).rateLimits).toBeUndefined();
  });

  it("keeps Zulip's budgets by default: 200 API requests a minute per user, 5 failed logins per account in 30 minutes", () => {
    expect(DEFAULT_RATE_LIMITS.api).toEqual({ max: 200, windowMs: 60_000 });
    expect(DEFAULT_RATE_LIMITS.loginByAccount).toEqual({ max: 5, windowMs: 1_800_000 });
  });

  it('reads each budget as <requests>/<seconds>', () => {
    const { rateLimits } = loadHttpSettings(
      { TEAMCHAT_RATE_LIMITS: 'on', TEAMCHAT_RATE_LIMIT_API: '50/10', TEAMCHAT_RATE_LIMIT_LOGIN: ' 3 / 0.5 ' },
      'development',
      60,
    );
    expect(rateLimits).toEqual({ ...DEFAULT_RATE_LIMITS, api: { max: 50, windowMs: 10_000 }, loginByAddress: { max: 3, windowMs: 500 } });
  });

  it.each([
    ['TEAMCHAT_RATE_LIMITS', 'yes'],
    ['TEAMCHAT_RATE_LIMIT_API', '200'],
    ['TEAMCHAT_RATE_LIMIT_API', '0/60'],
    ['TEAMCHAT_RATE_LIMIT_ANONYMOUS', 'ten/60'],
    ['TEAMCHAT_RATE_LIMIT_LOGIN_ACCOUNT', '5/0'],
    ['TEAMCHAT_HEADERS_TIMEOUT_SECONDS', '-1'],
    ['TEAMCHAT_REQUEST_TIMEOUT_SECONDS', 'soon'],
  ])('refuses to start on %s=%s, naming the variable', (variable, value) => {
    expect(() => loadHttpSettings({ TEAMCHAT_RATE_LIMITS: 'on', [variable]: value }, 'development', 60)).toThrow(variable);
  });

  it('sets timeouts from seconds, the idle one past the long-poll heartbeat, the request one no shorter than the headers one', () => {
    expect(loadHttpSettings({}, 'development', 60)).toMatchObject({
      headersTimeoutMs: 10_000,
      requestTimeoutMs: 30_000,
      keepAliveTimeoutMs: 65_000,
      idleTimeoutMs: 90_000,
      trustProxy: false,
    });
    const settings = loadHttpSettings({ TEAMCHAT_HEADERS_TIMEOUT_SECONDS: '40', TEAMCHAT_REQUEST_TIMEOUT_SECONDS: '20' }, 'development', 2);
    expect([settings.headersTimeoutMs, settings.requestTimeoutMs, settings.idleTimeoutMs]).toEqual([40_000, 40_000, 32_000]);
  });
});
