import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { replyFrame, WireClient, wireRequest } from '../src/wire-client';

describe('the bench wire client', () => {
  let server: Server;
  let base: URL;
  const seen: { method?: string; url?: string; body: string; authorization?: string }[] = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        seen.push({ method: request.method, url: request.url, body, authorization: request.headers.authorization });
        if (request.url === '/slow') {
          // The head and the body in separate packets: the client must wait for both.
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': 14 });
          response.flushHeaders();
          setTimeout(() => response.end('{"late":"yes"}'), 20);
        } else if (request.url === '/chunked') {
          // No Content-Length: Node frames the body in chunks, which the client does not read.
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end('{}');
        } else if (request.url === '/close') {
          request.socket.destroy();
        } else {
          const reply = JSON.stringify({ result: 'success', echo: body, chars: 'é' });
          response.writeHead(request.url === '/missing' ? 404 : 200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(reply) });
          response.end(reply);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`);
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends requests one after another on one connection and reads each reply whole', async () => {
    const client = await WireClient.connect(base);
    const first = await client.request(wireRequest(base, 'POST', '/one', { authorization: 'Basic x' }, 'a=1&b=ü'));
    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({ result: 'success', echo: 'a=1&b=ü', chars: 'é' });
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/one', body: 'a=1&b=ü', authorization: 'Basic x' });
    const second = await client.request(wireRequest(base, 'GET', '/missing'));
    expect(second.status).toBe(404);
    const slow = await client.request(wireRequest(base, 'GET', '/slow'));
    expect(slow).toEqual({ status: 200, body: '{"late":"yes"}' });
    await expect(client.request(wireRequest(base, 'GET', '/one'))).resolves.toMatchObject({ status: 200 });
    client.close();
  });

  it('refuses a second request while one is waiting, and fails when the server closes the connection', async () => {
    const client = await WireClient.connect(base);
    const closing = client.request(wireRequest(base, 'GET', '/close'));
    await expect(client.request(wireRequest(base, 'GET', '/one'))).rejects.toThrow('one request at a time');
    await expect(closing).rejects.toThrow('closed');
    await expect(client.request(wireRequest(base, 'GET', '/one'))).rejects.toThrow('closed');
  });

  it('fails a reply without Content-Length rather than guessing where it ends', async () => {
    const client = await WireClient.connect(base);
    await expect(client.request(wireRequest(base, 'GET', '/chunked'))).rejects.toThrow('a reply without content-length');
    client.close();
  });

  it('frames a reply: status and body bounds once the headers are in', () => {
    const reply = Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nab');
    expect(replyFrame(reply.subarray(0, 20))).toBeUndefined();
    const frame = replyFrame(reply);
    expect(frame).toEqual({ status: 404, bodyStart: reply.indexOf('ab'), bodyEnd: reply.indexOf('ab') + 5 });
  });
});
