import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isEngineUnavailable, loadEngineSettings, maskUrl } from '../src/kit/engines';

describe('engine settings', () => {
  it('default to NATS on localhost and the SQLite files (the embedded engines)', () => {
    const settings = loadEngineSettings('messaging', { TEAMCHAT_INSTANCE: 'a1' });
    expect(settings).toEqual({
      natsUrl: 'nats://127.0.0.1:4222',
      instance: 'a1',
      eventStore: { kind: 'sqlite', file: undefined },
      readModels: { kind: 'sqlite', file: undefined },
    });
  });

  it('choose EventStoreDB and MongoDB by their URLs, one database per service instance', () => {
    const settings = loadEngineSettings('events', {
      NATS_URL: 'nats://nats:4222',
      TEAMCHAT_EVENTSTOREDB_URL: 'esdb://eventstoredb:2113?tls=false',
      TEAMCHAT_MONGODB_URL: 'mongodb://mongodb:27017/?replicaSet=rs0',
      TEAMCHAT_INSTANCE: 'events-2',
      TEAMCHAT_MONGODB_TRANSACTIONS: 'off',
    });
    expect(settings.eventStore).toEqual({ kind: 'eventstoredb', url: 'esdb://eventstoredb:2113?tls=false' });
    expect(settings.readModels).toEqual({ kind: 'mongodb', url: 'mongodb://mongodb:27017/?replicaSet=rs0', database: 'teamchat_events_events-2', transactions: 'off' });
    expect(loadEngineSettings('events', { TEAMCHAT_MONGODB_URL: 'mongodb://m', TEAMCHAT_MONGODB_DATABASE: 'mine' }).readModels).toMatchObject({ database: 'mine' });
  });

  it('read empty variables as unset', () => {
    expect(loadEngineSettings('accounts', { NATS_URL: '', TEAMCHAT_EVENTSTOREDB_URL: '', TEAMCHAT_INSTANCE: 'x' }).eventStore.kind).toBe('sqlite');
  });

  it.each([
    ['NATS_URL', 'http://nats:4222'],
    ['NATS_URL', 'not a url'],
    ['TEAMCHAT_EVENTSTOREDB_URL', 'http://eventstoredb:2113'],
    ['TEAMCHAT_MONGODB_URL', 'postgres://db'],
    ['TEAMCHAT_MONGODB_DATABASE', 'has space'],
    ['TEAMCHAT_MONGODB_TRANSACTIONS', 'maybe'],
    ['TEAMCHAT_INSTANCE', 'a/b'],
  ])('refuse %s=%s with a message naming the variable', (variable, value) => {
    expect(() => loadEngineSettings('accounts', { [variable]: value })).toThrow(new RegExp(`^${variable}`));
  });

  it('mask passwords in URLs shown in messages', () => {
    expect(maskUrl('mongodb://admin:s3cret@mongo:27017/')).toBe('mongodb://admin:***@mongo:27017/');
    expect(maskUrl('nats://nats:4222')).toBe('nats://nats:4222');
    expect(() => loadEngineSettings('x', { TEAMCHAT_MONGODB_URL: 'redis://u:s3cret@h' })).toThrow(/u:\*\*\*@h/);
  });
});

describe('isEngineUnavailable', () => {
  it('recognises the engines\' "out of reach" errors, which answer 503', () => {
    expect(isEngineUnavailable(Object.assign(new Error('14 UNAVAILABLE'), { type: 'unavailable' }))).toBe(true);
    expect(isEngineUnavailable(Object.assign(new Error('deadline'), { type: 'deadline-exceeded' }))).toBe(true);
    expect(isEngineUnavailable(Object.assign(new Error('x'), { name: 'MongoServerSelectionError' }))).toBe(true);
    expect(isEngineUnavailable(Object.assign(new Error('x'), { name: 'MongoNetworkError' }))).toBe(true);
    expect(isEngineUnavailable(Object.assign(new Error('dup'), { name: 'MongoServerError', code: 11000 }))).toBe(false);
    expect(isEngineUnavailable(Object.assign(new Error('wrong'), { type: 'wrong-expected-version' }))).toBe(false);
    expect(isEngineUnavailable(new Error('bug'))).toBe(false);
    expect(isEngineUnavailable(null)).toBe(false);
  });
});

describe('a service process started against an engine that does not answer', () => {
  const main = join(__dirname, '../../../services/accounts/dist/main.js');
  const run = (env: Record<string, string>) =>
    spawnSync(process.execPath, [main], {
      env: { ...process.env, TEAMCHAT_DATA_DIR: mkdtempSync(join(tmpdir(), 'teamchat-engines-')), LOG_LEVEL: 'silent', ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });

  it('exits with one line naming NATS and its URL, password masked, no stack trace', () => {
    const result = run({ NATS_URL: 'nats://user:hunter2@127.0.0.1:1' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe('accounts: cannot start: cannot reach NATS at nats://user:***@127.0.0.1:1: CONNECTION_REFUSED');
  });

  it('exits with one line naming a bad variable', () => {
    const result = run({ TEAMCHAT_EVENTSTOREDB_URL: 'http://eventstoredb:2113' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/^accounts: cannot start: TEAMCHAT_EVENTSTOREDB_URL must be a URL starting with esdb:\/\//);
  });
});
