import { endpoints, httpEndpoints } from '@teamchat/contracts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DirectoryBlobStore, InProcessBus, loadHttpSettings, loadUploadSettings, serveContract } from '@teamchat/platform';
import pino from 'pino';
import { buildGateway } from '../src/server';
import { routes } from '../src/routes';

const log = pino({ level: 'silent' });

describe('the route table', () => {
  it('has a route for every HTTP contract and each of its aliases, with fastify path parameters', () => {
    const expected = httpEndpoints.flatMap((e) => [e.http.path, ...(e.http.aliases ?? [])].map((path) => `${e.http.method} ${path}`));
    const actual = routes.map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}')}`);
    expect(actual).toEqual(expected);
    expect(routes.find((r) => r.endpoint === endpoints.messaging.getMessage)?.url).toBe('/messages/:message_id');
    expect(routes.filter((r) => r.endpoint === endpoints.accounts.devFetchApiKey).map((r) => r.url)).toEqual([
      '/dev_fetch_api_key',
      '/fetch_api_key/dev',
    ]);
  });

  it('never routes an internal endpoint', () => {
    const routed = new Set(routes.map((r) => r.endpoint.subject));
    for (const internal of [endpoints.accounts.authenticate, endpoints.accounts.createUser, endpoints.channels.createChannel]) {
      expect(routed.has(internal.subject)).toBe(false);
    }
  });

  it('gives every contract its own subject', () => {
    const subjects = Object.values(endpoints).flatMap((group) => Object.values(group).map((e) => e.subject));
    expect(new Set(subjects).size).toBe(subjects.length);
  });
});

describe('reply checks at the gateway', () => {
  /** A service whose server_settings reply lacks most of its contract's members. */
  async function gatewayWithDriftedService(checkReplies: boolean) {
    const bus = new InProcessBus();
    await serveContract({ bus, log }, endpoints.accounts.serverSettings, async () => ({
      value: { zulip_version: 'x' } as never,
    }));
    const app = await buildGateway({
      bus,
      log,
      heartbeatSeconds: 1,
      checkReplies,
      http: loadHttpSettings({}, 'development', 1),
      blobs: new DirectoryBlobStore(join(tmpdir(), 'teamchat-routes-test')),
      uploads: loadUploadSettings({}),
    });
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    const get = async (path: string) => {
      const response = await fetch(`${url}/api/v1${path}`);
      return { statusCode: response.status, body: (await response.json()) as unknown };
    };
    return { app, bus, get };
  }

  it('answers 500 with the envelope when a reply does not match its contract', async () => {
    const { app, bus, get } = await gatewayWithDriftedService(true);
    const response = await get('/server_settings');
    expect(response.statusCode).toBe(500);
    expect(response.body).toEqual({ result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
    await app.close();
    await bus.close();
  });

  it('forwards replies unchecked unless configured to check', async () => {
    const { app, bus, get } = await gatewayWithDriftedService(false);
    const response = await get('/server_settings');
    expect(response.statusCode).toBe(200);
    expect(response.body).toEqual({ result: 'success', msg: '', zulip_version: 'x' });
    await app.close();
    await bus.close();
  });
});
