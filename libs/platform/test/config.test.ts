import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { DEFAULT_RATE_LIMITS, loadConfig, loadHttpSettings, loadMode, loadSettings, withListeningAddress } from '@teamchat/platform';

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
      expect(() => loadConfig({ TEAMCHAT_DATA_DIR: dir, TEAMCHAT_MODE: 'production', TEAMCHAT_REALM_URI: 'https://chat.acme.test' })).toThrow(
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

  it('enables JWT with the development secret only in development mode, and refuses that secret in production', () => {
    const production = { TEAMCHAT_MODE: 'production', TEAMCHAT_REALM_URI: REALM };
    const long = 'k'.repeat(32);
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir() })).toMatchObject({ mode: 'development', jwtSecret: 'dev-jwt-secret' });
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir(), ...production })).toMatchObject({ mode: 'production', jwtSecret: undefined });
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir(), ...production, ZULIP_JWT_SECRET: long }).jwtSecret).toBe(long);
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir(), ZULIP_JWT_SECRET: '' }).jwtSecret).toBeUndefined();
    expect(() => loadSettings({ ...production, ZULIP_JWT_SECRET: 'dev-jwt-secret' })).toThrow(/^ZULIP_JWT_SECRET is the published development secret/);
    expect(() => loadSettings({ ...production, ZULIP_JWT_SECRET: 'k' })).toThrow(/^ZULIP_JWT_SECRET is shorter than 32 characters/);
  });

  it("reads the catch-up's batch and progress settings, and refuses what is not a whole number or a number of seconds above 0", () => {
    for (const bad of ['many', '0', '2.5', '-3']) {
      expect(() => loadSettings({ TEAMCHAT_CATCH_UP_BATCH: bad })).toThrow(`TEAMCHAT_CATCH_UP_BATCH=${JSON.stringify(bad)}: expected a whole number above 0`);
      expect(() => loadSettings({ TEAMCHAT_CATCH_UP_REPORT_MIN_FACTS: bad })).toThrow(`TEAMCHAT_CATCH_UP_REPORT_MIN_FACTS=${JSON.stringify(bad)}: expected a whole number above 0`);
    }
    for (const bad of ['often', '0', '-1', 'Infinity']) {
      expect(() => loadSettings({ TEAMCHAT_CATCH_UP_REPORT_SECONDS: bad })).toThrow(`TEAMCHAT_CATCH_UP_REPORT_SECONDS=${JSON.stringify(bad)}: expected a number of seconds above 0`);
    }
    const { catchUp } = loadSettings({ TEAMCHAT_CATCH_UP_BATCH: '10', TEAMCHAT_CATCH_UP_REPORT_SECONDS: '0.05', TEAMCHAT_CATCH_UP_REPORT_MIN_FACTS: '1' });
    expect(catchUp).toEqual({ batch: 10, reportEveryMs: 50, reportMinFacts: 1 });
    expect(loadSettings({}).catchUp).toEqual({ batch: 500, reportEveryMs: 10_000, reportMinFacts: 20_000 });
  });

  it('refuses a heartbeat that is not a number of seconds above 0, instead of replacing it', () => {
    for (const bad of ['soon', '-1', '0', 'Infinity']) {
      expect(() => loadSettings({ TEAMCHAT_HEARTBEAT_SECONDS: bad })).toThrow(`TEAMCHAT_HEARTBEAT_SECONDS=${JSON.stringify(bad)}: expected a number of seconds above 0`);
    }
    expect(loadConfig({ TEAMCHAT_DATA_DIR: dataDir(), TEAMCHAT_HEARTBEAT_SECONDS: '5' }).heartbeatSeconds).toBe(5);
  });
});

const REALM = 'https://chat.acme.test';

describe('the mode', () => {
  it('is exactly development or production: a typo stops the process with one line naming the variable', () => {
    expect(loadMode({})).toBe('development');
    expect(loadMode({ TEAMCHAT_MODE: 'production' })).toBe('production');
    for (const typo of ['prod', 'Production', 'PRODUCTION', ' production', '', 'dev']) {
      expect(() => loadSettings({ TEAMCHAT_MODE: typo })).toThrow(
        expect.objectContaining({ code: 'CONFIGURATION', message: `TEAMCHAT_MODE=${JSON.stringify(typo)}: expected exactly development or production` }),
      );
    }
  });
});

describe('the realm address (TEAMCHAT_REALM_URI)', () => {
  it('is required in production, as an absolute http(s) origin', () => {
    expect(() => loadSettings({ TEAMCHAT_MODE: 'production' })).toThrow(/^TEAMCHAT_REALM_URI is not set: production needs the address/);
    for (const bad of ['chat.acme.test', 'ftp://chat.acme.test', '/relative', 'https://chat.acme.test/team', 'https://chat.acme.test/?x=1']) {
      expect(() => loadSettings({ TEAMCHAT_MODE: 'production', TEAMCHAT_REALM_URI: bad })).toThrow(/^TEAMCHAT_REALM_URI=/);
    }
    // A password in it is refused without being repeated.
    expect(() => loadSettings({ TEAMCHAT_REALM_URI: 'https://ann:hunter2@chat.acme.test' })).toThrow(/^TEAMCHAT_REALM_URI holds a user name or password[^]*$/);
    try {
      loadSettings({ TEAMCHAT_REALM_URI: 'https://ann:hunter2@chat.acme.test' });
    } catch (err) {
      expect((err as Error).message).not.toContain('hunter2');
    }
    expect(loadSettings({ TEAMCHAT_MODE: 'production', TEAMCHAT_REALM_URI: 'https://Chat.Acme.test/' })).toMatchObject({
      realmUri: 'https://chat.acme.test',
      realmHost: 'chat.acme.test',
      realmUriDerived: false,
    });
    expect(loadSettings({ TEAMCHAT_MODE: 'production', TEAMCHAT_REALM_URI: REALM }).mail.from).toBe('noreply@chat.acme.test');
  });

  it("defaults in development to the gateway's listening address (PORT, HOST), the same in every process", () => {
    expect(loadSettings({})).toMatchObject({ realmUri: 'http://127.0.0.1:9991', realmUriDerived: true, listen: { host: '127.0.0.1', port: 9991 } });
    expect(loadSettings({ PORT: '8080', HOST: '0.0.0.0' })).toMatchObject({ realmUri: 'http://127.0.0.1:8080', listen: { host: '0.0.0.0', port: 8080 } });
    expect(loadSettings({ PORT: '8080', HOST: 'chat.local' }).realmUri).toBe('http://chat.local:8080');
    // A server that asked for any port learns its address once bound; a configured one stays.
    expect(withListeningAddress(loadSettings({ PORT: '0' }), { host: '127.0.0.1', port: 4321 }).realmUri).toBe('http://127.0.0.1:4321');
    expect(withListeningAddress(loadSettings({ PORT: '0', TEAMCHAT_REALM_URI: REALM }), { host: '127.0.0.1', port: 4321 }).realmUri).toBe(REALM);
  });
});

describe('every other setting is checked, never replaced', () => {
  it.each([
    [{ PORT: 'abc' }, 'PORT="abc": expected a port number from 1 to 65535 (0: any free port)'],
    [{ PORT: '70000' }, 'PORT="70000": expected a port number'],
    [{ HOST: 'localhost:9991' }, 'HOST="localhost:9991": expected an address or host name of this machine'],
    [{ TEAMCHAT_DATA_DIR: '' }, 'TEAMCHAT_DATA_DIR is empty'],
    [{ TEAMCHAT_SECRET: '' }, 'TEAMCHAT_SECRET is empty'],
    [{ TEAMCHAT_MODE: 'production', TEAMCHAT_REALM_URI: REALM, TEAMCHAT_SECRET: 'short' }, 'TEAMCHAT_SECRET is shorter than 32 characters'],
    [{ TEAMCHAT_CHECK_REPLIES: 'yes' }, 'TEAMCHAT_CHECK_REPLIES="yes": expected 1 (on) or 0 (off)'],
    [{ TEAMCHAT_TRUST_PROXY: 'true' }, 'TEAMCHAT_TRUST_PROXY="true": expected 1 (on) or 0 (off)'],
    [{ TEAMCHAT_IDLE_TIMEOUT_SECONDS: 'Infinity' }, 'TEAMCHAT_IDLE_TIMEOUT_SECONDS="Infinity": expected a number of seconds above 0'],
    [{ TEAMCHAT_REQUEST_TIMEOUT_SECONDS: '5' }, 'TEAMCHAT_REQUEST_TIMEOUT_SECONDS="5": must be at least TEAMCHAT_HEADERS_TIMEOUT_SECONDS (10)'],
  ])('refuses %j', (env, message) => {
    expect(() => loadSettings(env)).toThrow(message);
  });

  it('writes nothing while checking', () => {
    const dir = join(dataDir(), 'not-yet');
    loadSettings({ TEAMCHAT_DATA_DIR: dir });
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses a data directory it cannot create or write in one line naming it and the variable', () => {
    // A file where the directory should be fails for root too (which ignores permission bits).
    const file = join(dataDir(), 'file');
    writeFileSync(file, '');
    expect(() => loadConfig({ TEAMCHAT_DATA_DIR: join(file, 'data') })).toThrow(
      expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringMatching(/^data directory .*: .* is not a directory: set TEAMCHAT_DATA_DIR to another directory$/) }),
    );
    if (process.getuid?.() === 0) return; // root writes anywhere
    const parent = dataDir();
    chmodSync(parent, 0o500);
    try {
      expect(() => loadConfig({ TEAMCHAT_DATA_DIR: join(parent, 'data') })).toThrow(
        expect.objectContaining({ code: 'CONFIGURATION', message: expect.stringMatching(/^data directory .*: permission denied on .*TEAMCHAT_DATA_DIR/) }),
      );
    } finally {
      chmodSync(parent, 0o700);
    }
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
    const settings = loadHttpSettings({ TEAMCHAT_HEADERS_TIMEOUT_SECONDS: '40', TEAMCHAT_REQUEST_TIMEOUT_SECONDS: '40' }, 'development', 2);
    expect([settings.headersTimeoutMs, settings.requestTimeoutMs, settings.idleTimeoutMs]).toEqual([40_000, 40_000, 32_000]);
    // A request limit below the headers' is refused, not raised behind the operator's back.
    expect(() => loadHttpSettings({ TEAMCHAT_HEADERS_TIMEOUT_SECONDS: '40', TEAMCHAT_REQUEST_TIMEOUT_SECONDS: '20' }, 'development', 2)).toThrow(
      'TEAMCHAT_REQUEST_TIMEOUT_SECONDS="20": must be at least TEAMCHAT_HEADERS_TIMEOUT_SECONDS (40)',
    );
  });
});
