/**
 * docker-compose.yml and the Dockerfile, checked where no Docker engine runs (a broken
 * compose file fails CI): the YAML parses, holds every service the deployment needs with
 * its health check, restart policy and configuration, and that configuration passes the
 * services' own validation. Where a Docker engine answers, the HTTP suite also runs
 * against the whole stack built and started from the file (testcontainers' compose
 * support); elsewhere that suite is skipped with one printed line.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { z } from 'zod';
import { DockerComposeEnvironment, Wait, type StartedDockerComposeEnvironment } from 'testcontainers';
import { loadEngineSettings, loadEventQueueSettings, loadHttpSettings, loadSettings } from '@teamchat/platform';
import { describeWithDocker } from '@teamchat/platform/testing';
import { apiSuite } from './api-suite';

const root = join(__dirname, '..', '..', '..');
/** What the operator exports before `docker compose up` (README, Docker Compose). */
const OPERATOR_ENV = { TEAMCHAT_SECRET: 'x'.repeat(64), TEAMCHAT_REALM_URI: 'https://chat.acme.test' };
const APP_SERVICES = ['accounts', 'channels', 'messaging', 'events', 'gateway'] as const;
const RESTART = z.enum(['no', 'always', 'on-failure', 'unless-stopped']);

const HealthCheck = z.union([
  z.object({ disable: z.literal(true) }).strict(),
  z
    .object({
      test: z.array(z.string()).min(2).refine((test) => test[0] === 'CMD' || test[0] === 'CMD-SHELL', 'test starts with CMD or CMD-SHELL'),
      interval: z.string().regex(/^\d+(ms|s|m)$/),
      timeout: z.string().regex(/^\d+(ms|s|m)$/),
      retries: z.number().int().positive(),
      start_period: z.string().regex(/^\d+(ms|s|m)$/).optional(),
    })
    .strict(),
]);

const Service = z
  .object({
    image: z.string().min(1).optional(),
    build: z.string().optional(),
    command: z.array(z.string()).optional(),
    restart: RESTART,
    environment: z.record(z.string(), z.string()).optional(),
    healthcheck: HealthCheck,
    depends_on: z.record(z.string(), z.object({ condition: z.enum(['service_started', 'service_healthy', 'service_completed_successfully']) }).strict()).optional(),
    ports: z.array(z.string()).optional(),
    volumes: z.array(z.string()).optional(),
    profiles: z.array(z.string()).optional(),
  })
  .strict()
  .refine((service) => service.image !== undefined || service.build !== undefined, 'a service needs an image or a build');

const Compose = z
  .object({
    services: z.record(z.string(), Service),
    volumes: z.record(z.string(), z.null()).optional(),
  })
  .passthrough();

type ComposeFile = z.infer<typeof Compose>;

/** Compose's interpolation: ${VAR}, ${VAR:-default}, ${VAR:?message}, from `env` or the default. */
export function interpolate(text: string, env: Record<string, string>): string {
  return text.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (_match, name: string, op: string | undefined, arg: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
    if (op?.endsWith('?')) throw new Error(`${name} is required: ${arg}`);
    return arg ?? '';
  });
}

function loadCompose(): ComposeFile {
  const document: unknown = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true });
  return Compose.parse(document);
}

describe('docker-compose.yml', () => {
  const compose = loadCompose();
  const services = compose.services;

  it('holds the engines, every service and the seed', () => {
    expect(Object.keys(services).sort()).toEqual(['accounts', 'channels', 'events', 'eventstoredb', 'gateway', 'messaging', 'mongodb', 'nats', 'seed']);
  });

  it('gives every long-running service a health check and a restart policy', () => {
    for (const [name, service] of Object.entries(services)) {
      if (name === 'seed') continue;
      expect({ name, healthcheck: 'test' in service.healthcheck }).toEqual({ name, healthcheck: true });
      expect({ name, restart: service.restart }).toEqual({ name, restart: 'unless-stopped' });
    }
  });

  it('runs each application service from the one image, with an entry point that exists', () => {
    for (const name of [...APP_SERVICES, 'seed']) {
      const service = services[name]!;
      expect(service.build).toBe('.');
      const script = service.command?.[1] ?? '';
      expect(service.command?.[0]).toBe('node');
      expect(existsSync(join(root, script.replace('/dist/', '/src/').replace(/\.js$/, '.ts')))).toBe(true);
    }
    expect(services.gateway!.command).toEqual(['node', 'services/gateway/dist/main.js']);
  });

  it('publishes the gateway on port 9991 and starts it after the services are healthy', () => {
    expect(services.gateway!.ports?.map((port) => interpolate(port, {}))).toEqual(['9991:9991']);
    for (const name of ['accounts', 'channels', 'messaging', 'events']) {
      expect(services.gateway!.depends_on?.[name]).toEqual({ condition: 'service_healthy' });
    }
  });

  it('keeps the seed behind a profile and runs it once', () => {
    expect(services.seed!.profiles).toEqual(['seed']);
    expect(services.seed!.restart).toBe('no');
  });

  it('runs MongoDB as a replica set and EventStoreDB in insecure single-node mode', () => {
    expect(services.mongodb!.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    expect(services.eventstoredb!.environment).toMatchObject({ EVENTSTORE_INSECURE: 'true', EVENTSTORE_CLUSTER_SIZE: '1' });
  });

  it("configures every application service with values its own validation accepts", () => {
    for (const name of [...APP_SERVICES, 'seed']) {
      const env = Object.fromEntries(
        Object.entries(services[name]!.environment ?? {}).map(([key, value]) => [key, interpolate(value, OPERATOR_ENV)]),
      );
      // Every setting the process reads passes its own validation (production, the realm address among them).
      expect(() => loadSettings(env)).not.toThrow();
      const settings = loadEngineSettings(name, env);
      expect(settings.natsUrl).toBe('nats://nats:4222');
      expect(settings.eventStore.kind).toBe('eventstoredb');
      expect(settings.readModels.kind).toBe('mongodb');
      expect(() => loadEventQueueSettings(env)).not.toThrow();
      expect(() => loadHttpSettings(env, 'production', 60)).not.toThrow();
      expect(['development', 'production']).toContain(env.TEAMCHAT_MODE);
    }
  });

  it('refuses to start without TEAMCHAT_SECRET (every accounts instance must derive the same keys)', () => {
    expect(() => interpolate(services.accounts!.environment!.TEAMCHAT_SECRET!, {})).toThrow(/TEAMCHAT_SECRET is required/);
  });

  it("runs in production unless told otherwise, and every application service requires the operator's TEAMCHAT_REALM_URI", () => {
    for (const name of APP_SERVICES) {
      const environment = services[name]!.environment!;
      expect({ name, mode: interpolate(environment.TEAMCHAT_MODE!, {}) }).toEqual({ name, mode: 'production' });
      expect(() => interpolate(environment.TEAMCHAT_REALM_URI!, { TEAMCHAT_SECRET: 'x'.repeat(64) })).toThrow(/TEAMCHAT_REALM_URI is required/);
      expect(interpolate(environment.TEAMCHAT_REALM_URI!, OPERATOR_ENV)).toBe('https://chat.acme.test');
    }
  });

  it('shares one mail outbox between the service that sends (accounts) and the gateway, created private in the image', () => {
    for (const name of ['accounts', 'gateway']) expect(services[name]!.volumes).toContain('outbox:/data/outbox');
    expect(Object.keys(compose.volumes ?? {})).toContain('outbox');
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/ENV[^]*TEAMCHAT_DATA_DIR=\/data\b/);
    expect(dockerfile).toMatch(/mkdir -p \/data\/outbox && chown -R node:node \/data && chmod -R 700 \/data/);
  });

  it('keeps the seed for development: with the default mode it refuses to run', () => {
    const env = Object.fromEntries(Object.entries(services.seed!.environment ?? {}).map(([key, value]) => [key, interpolate(value, OPERATOR_ENV)]));
    const script = join(root, services.seed!.command![1]!);
    const result = spawnSync(process.execPath, [script], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 30_000 });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^seed: cannot start: the development seed never runs in production[^\n]*\n$/);
  });

  it('names only services that exist in depends_on', () => {
    for (const service of Object.values(services)) {
      for (const dependency of Object.keys(service.depends_on ?? {})) expect(Object.keys(services)).toContain(dependency);
    }
  });

  it('passes `docker compose config` where the Docker client is installed', () => {
    const version = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
    if (version.status !== 0) {
      process.stderr.write('docker compose config not run: no Docker client with the compose plugin (the structural checks above still ran)\n');
      return;
    }
    const result = spawnSync('docker', ['compose', '-f', join(root, 'docker-compose.yml'), 'config', '-q'], {
      encoding: 'utf8',
      env: { ...process.env, ...OPERATOR_ENV },
    });
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
  });
});

describe('Dockerfile', () => {
  const text = readFileSync(join(root, 'Dockerfile'), 'utf8');

  it('builds in one stage and runs as a non-root user with production dependencies only in another', () => {
    expect(text.match(/^FROM /gm)?.length).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(/npm prune --omit=dev/);
    const runtime = text.slice(text.lastIndexOf('\nFROM '));
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).not.toMatch(/^USER root$/m);
    expect(runtime).toMatch(/COPY --from=build/);
  });

  it('leaves the build context free of local dependencies and data', () => {
    const ignored = readFileSync(join(root, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).toEqual(expect.arrayContaining(['node_modules', '**/dist', 'data', '.git']));
  });
});

describeWithDocker('docker compose stack', () => {
  let environment: StartedDockerComposeEnvironment;
  apiSuite('docker compose', async () => {
    environment = await new DockerComposeEnvironment(root, 'docker-compose.yml')
      .withBuild()
      .withProfiles('seed')
      .withEnvironment({ TEAMCHAT_SECRET: 'compose-test-secret-'.repeat(4), TEAMCHAT_REALM_URI: 'http://localhost:9991', TEAMCHAT_PORT: '0', TEAMCHAT_MODE: 'development' })
      .withWaitStrategy('gateway-1', Wait.forHealthCheck())
      .withStartupTimeout(600_000)
      .up();
    const gateway = environment.getContainer('gateway-1');
    // The seed runs once the services are healthy; the suite logs in as seeded users.
    const api = `http://${gateway.getHost()}:${gateway.getMappedPort(9991)}/api/v1`;
    for (let attempt = 0; attempt < 60; attempt++) {
      const res = await fetch(`${api}/dev_fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'member@example.com' }) }).catch(() => undefined);
      if (res?.ok) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    return { api, stop: () => environment.down().then(() => undefined) };
  });
});
