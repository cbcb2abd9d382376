import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ReplyArena } from '@teamchat/platform';
import Fastify from 'fastify';
import { AnswerInParts, joinMembers, lendUntilDone, memberChunks, sendMemberPieces } from '../src/http/response';

const body = { result: 'success', msg: '', found_newest: true };
const members = '{"messages":[{"id":1,"content":"ünï ✔ \\"quoted\\""}],"history_limited":false}';
const expected = { ...body, ...(JSON.parse(members) as object) };

const parse = (payload: string | Buffer) => JSON.parse(typeof payload === 'string' ? payload : payload.toString('utf8')) as unknown;

describe('joinMembers', () => {
  it('joins the gateway’s members and pre-serialized text into one object', () => {
    const joined = joinMembers(body, members);
    expect(typeof joined).toBe('string');
    expect(parse(joined)).toEqual(expected);
  });

  it('joins pre-serialized UTF-8 bytes into one buffer, whitespace around the braces allowed', () => {
    for (const text of [members, ` \n${members}\n`, `{ ${members.slice(1)}`]) {
      const joined = joinMembers(body, new TextEncoder().encode(text));
      expect(Buffer.isBuffer(joined)).toBe(true);
      expect(parse(joined)).toEqual(expected);
    }
  });

  it('adds nothing for an empty object, as text or bytes', () => {
    for (const empty of ['{}', '{ }']) {
      expect(parse(joinMembers(body, empty))).toEqual(body);
      expect(parse(joinMembers(body, new TextEncoder().encode(empty)))).toEqual(body);
    }
  });

  it('refuses bytes that are not an object, rather than send broken JSON', () => {
    expect(() => joinMembers(body, new TextEncoder().encode('[1]'))).toThrow('not a JSON object');
    expect(() => joinMembers(body, new Uint8Array())).toThrow('not a JSON object');
  });
});

describe('memberChunks', () => {
  const pieces = () => [Buffer.from('{"realm_users":[{"full_name":"Zoë ✔"}]}'), Buffer.from('{}'), Buffer.from('{"unread_msgs":{"count":2},"recent_private_conversations":[]}')];
  const whole = { ...body, realm_users: [{ full_name: 'Zoë ✔' }], unread_msgs: { count: 2 }, recent_private_conversations: [] };

  it('writes the gateway’s members and several objects’ members as one object, the pieces’ bytes not copied', () => {
    const given = pieces();
    const chunks = memberChunks(body, given);
    expect(parse(Buffer.concat(chunks))).toEqual(whole);
    // The first piece's members are its own memory: a byte changed there is changed in the chunk.
    const inner = chunks.find((chunk) => chunk.includes('realm_users'))!;
    given[0]![given[0]!.indexOf('Z')] = 0x5a + 1;
    expect(inner.toString()).toContain('[{"full_name":"[oë ✔"}]');
  });

  it('adds nothing for empty objects, and refuses a piece that is not a compact object', () => {
    expect(parse(Buffer.concat(memberChunks(body, [Buffer.from('{}'), Buffer.from('{}')])))).toEqual(body);
    expect(parse(Buffer.concat(memberChunks(body, [])))).toEqual(body);
    for (const bad of [' {"a":1}', '{"a":1} ', '[1]', '']) {
      expect(() => memberChunks(body, [Buffer.from('{"b":2}'), Buffer.from(bad)])).toThrow('not a compact JSON object');
    }
  });

  it('are sent as one object with its length, and the headers set before it', async () => {
    const app = Fastify();
    app.get('/', async (_request, reply) => sendMemberPieces(reply.header('x-ratelimit-remaining', 7), body, pieces()));
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const response = await fetch(url);
      const raw = Buffer.from(await response.arrayBuffer());
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(Number(response.headers.get('content-length'))).toBe(raw.length);
      expect(response.headers.get('x-ratelimit-remaining')).toBe('7');
      expect(JSON.parse(raw.toString('utf8'))).toEqual(whole);
      // The connection stays usable for the next request (keep-alive).
      expect(JSON.parse(await (await fetch(url)).text())).toEqual(whole);
    } finally {
      await app.close();
    }
  });
});

describe('lent reply bytes', () => {
  /** Bytes as a service thread lends them: in a slot of its arena, after the head room. */
  function lent(arena: ReplyArena, text: string): Buffer {
    const bytes = arena.lease(Buffer.byteLength(text))!;
    bytes.write(text);
    return bytes;
  }

  it('are joined in place: the gateway’s members go into the room before them, nothing is copied', () => {
    const arena = new ReplyArena({ slots: 2, slotSize: 4096, headRoom: 256 });
    const json = lent(arena, members);
    const joined = joinMembers(body, json) as Buffer;
    expect(parse(joined)).toEqual(expected);
    // One memory: a byte changed in the lent bytes is a byte changed in the body.
    const at = joined.indexOf('"history_limited"');
    json[json.length - (joined.length - at)] = 0x20;
    expect(joined[at]).toBe(0x20);
  });

  it('are copied when the room before them is too small for the members', () => {
    const arena = new ReplyArena({ slots: 2, slotSize: 4096, headRoom: 8 });
    const json = lent(arena, members);
    const joined = joinMembers(body, json) as Buffer;
    expect(parse(joined)).toEqual(expected);
    json[json.length - 2] = 0x20;
    expect(parse(joined)).toEqual(expected);
  });

  it('are sent by Fastify as the bytes they are, not as an object', async () => {
    const arena = new ReplyArena({ slots: 2, slotSize: 4096, headRoom: 256 });
    const app = Fastify();
    app.get('/', async (_request, reply) => reply.type('application/json; charset=utf-8').send(joinMembers(body, lent(arena, members))));
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const response = await fetch(url);
      const raw = Buffer.from(await response.arrayBuffer());
      expect(response.status).toBe(200);
      expect(JSON.parse(raw.toString('utf8'))).toEqual(expected);
      expect(Number(response.headers.get('content-length'))).toBe(raw.length);
    } finally {
      await app.close();
    }
  });

  it('go back to their arena once the response that writes them is done, or at once if it is', async () => {
    const arena = new ReplyArena({ slots: 4, slotSize: 4096, headRoom: 256 });
    const responded: ServerResponse[] = [];
    const server = createServer((_request, response) => {
      const json = lent(arena, members);
      lendUntilDone(response, json);
      responded.push(response);
      expect(arena.lent()).toBe(1);
      response.end(joinMembers(body, json));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const text = await (await fetch(`http://127.0.0.1:${port}/`)).text();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(JSON.parse(text)).toEqual(expected);
    expect(responded).toHaveLength(1);
    expect(arena.lent()).toBe(0);
    // A response already closed (the client left) gives them back at once.
    const json = lent(arena, members);
    lendUntilDone(responded[0]!, json);
    expect(arena.lent()).toBe(0);
    // Bytes not lent are left alone.
    expect(() => lendUntilDone(responded[0]!, Buffer.from(members))).not.toThrow();
  });
});

describe('AnswerInParts', () => {
  const whole = { result: 'success', msg: '', realm_users: [{ full_name: 'Zoë ✔' }], subscriptions: [], unread_msgs: { count: 2 }, queue_id: 'q1' };

  /** A route that writes a part, then (once told) another and the end, or cuts the answer. */
  async function serve(ending: 'finish' | 'cut') {
    let go!: () => void;
    const told = new Promise<void>((resolve) => (go = resolve));
    const app = Fastify();
    app.get('/', async (_request, reply) => {
      const parts = new AnswerInParts(reply.header('x-ratelimit-remaining', 7));
      parts.write(Buffer.from('{"realm_users":[{"full_name":"Zoë ✔"}]}'));
      await told;
      if (ending === 'cut') {
        parts.cut();
        return reply;
      }
      parts.write('{"subscriptions":[]}');
      parts.finish({ queue_id: 'q1' }, [Buffer.from('{}'), Buffer.from('{"unread_msgs":{"count":2}}')]);
      return reply;
    });
    return { url: await app.listen({ host: '127.0.0.1', port: 0 }), go, app };
  }

  it('starts the answer with the first part, and ends it with the reply’s members as one object', async () => {
    const { url, go, app } = await serve('finish');
    try {
      const response = await fetch(url);
      // The status and the first part arrive before the rest exists.
      expect(response.status).toBe(200);
      expect(response.headers.get('x-ratelimit-remaining')).toBe('7');
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('transfer-encoding')).toBe('chunked');
      const reader = response.body!.getReader();
      const chunks: Buffer[] = [];
      while (!Buffer.concat(chunks).includes('"realm_users"')) {
        const chunk = await reader.read();
        expect(chunk.done).toBe(false);
        chunks.push(Buffer.from(chunk.value!));
      }
      go();
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) chunks.push(Buffer.from(chunk.value));
      expect(JSON.parse(Buffer.concat(chunks).toString())).toEqual(whole);
      // The connection serves the next request.
      const next = fetch(url).then((r) => r.text());
      expect(JSON.parse(await next)).toEqual(whole);
    } finally {
      await app.close();
    }
  });

  it('is cut, not ended, when the reply fails after a part: the client sees a broken response', async () => {
    const { url, go, app } = await serve('cut');
    try {
      const response = await fetch(url);
      expect(response.status).toBe(200);
      go();
      await expect(response.text()).rejects.toThrow();
    } finally {
      await app.close();
    }
  });
});
