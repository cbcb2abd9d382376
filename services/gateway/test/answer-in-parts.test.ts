/**
 * POST /register through the gateway when the service sends parts of its reply ahead of it
 * (the contract's `inParts`): the answer starts with the first part and is one object at
 * the end; a failure after a part cuts the connection; a gateway that checks replies, or a
 * bus that copies them, gets everything in the reply and answers as before.
 */
import { afterEach, describe, expect, it } from '@jest/globals';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError, endpoints, ROLE } from '@teamchat/contracts';
import { DirectoryBlobStore, InProcessBus, loadHttpSettings, loadUploadSettings, serveContract } from '@teamchat/platform';
import pino from 'pino';
import { buildGateway } from '../src/server';

const log = pino({ level: 'silent' });
const actor = { user_id: 9, email: 'm@example.com', full_name: 'M', role: ROLE.member, is_bot: false, client: 'test' };
const authorization = `Basic ${Buffer.from('m@example.com:k').toString('base64')}`;
const users = Buffer.from('{"realm_users":[{"user_id":9,"full_name":"M ✔"}]}');
const unread = Buffer.from('{"unread_msgs":{"count":0}}');
const whole = { result: 'success', msg: '', realm_users: [{ user_id: 9, full_name: 'M ✔' }], unread_msgs: { count: 0 }, queue_id: 'q1', last_event_id: -1 };

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

/**
 * A gateway before an events service that sends the users as a part when it can, then
 * waits for `release` and answers with the rest, or fails.
 */
async function gateway(options: { copyReplies?: boolean; checkReplies?: boolean; fail?: boolean } = {}) {
  const bus = new InProcessBus({ copyReplies: options.copyReplies ?? false });
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let sentPart = false;
  await serveContract({ bus, log }, endpoints.accounts.authenticate, async () => ({ value: { actor } }));
  await serveContract({ bus, log }, endpoints.events.register, async (_params, { sendPart }) => {
    sentPart = sendPart !== undefined;
    sendPart?.(users);
    await released;
    if (options.fail) throw new ApiError('GATEWAY_TIMEOUT', 'The service behind messaging.register_state did not answer in time', 504);
    return { value: { queue_id: 'q1', last_event_id: -1 } as never, json: sentPart ? unread : [users, unread] };
  });
  const app = await buildGateway({
    bus,
    log,
    heartbeatSeconds: 1,
    checkReplies: options.checkReplies ?? false,
    http: loadHttpSettings({}, 'development', 1),
    blobs: new DirectoryBlobStore(join(tmpdir(), 'teamchat-answer-in-parts-test')),
    uploads: loadUploadSettings({}),
  });
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  closers.push(async () => (await app.close(), await bus.close()));
  const register = () => fetch(`${url}/api/v1/register`, { method: 'POST', headers: { authorization } });
  return { register, release, sentPart: () => sentPart };
}

/** Reads a body until `text` is in it (the answer has not ended, so this is what came first). */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, chunks: Buffer[], text: string): Promise<void> {
  while (!Buffer.concat(chunks).includes(text)) {
    const chunk = await reader.read();
    if (chunk.done) throw new Error(`the answer ended before ${text}`);
    chunks.push(Buffer.from(chunk.value));
  }
}

describe('POST /register answered in parts', () => {
  it('writes the first part before the reply exists, and the whole object at the end', async () => {
    const { register, release, sentPart } = await gateway();
    const response = await register();
    expect(response.status).toBe(200);
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    const reader = response.body!.getReader();
    const chunks: Buffer[] = [];
    await readUntil(reader, chunks, '"realm_users"');
    expect(sentPart()).toBe(true);
    release();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) chunks.push(Buffer.from(chunk.value));
    expect(JSON.parse(Buffer.concat(chunks).toString())).toEqual(whole);
  });

  it('cuts the connection when the reply fails after a part: never a short object taken for the answer', async () => {
    const { register, release } = await gateway({ fail: true });
    const response = await register();
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    await readUntil(reader, [], '"realm_users"');
    release();
    await expect((async () => {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read());
    })()).rejects.toThrow();
  });

  it('is answered whole where the bus copies replies (as NATS carries them): its length, and a clear error on failure', async () => {
    const ok = await gateway({ copyReplies: true });
    const answering = ok.register();
    ok.release();
    const response = await answering;
    const text = await response.text();
    expect(ok.sentPart()).toBe(false);
    expect(response.status).toBe(200);
    expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text)).toEqual(whole);

    const failing = await gateway({ copyReplies: true, fail: true });
    const refused = failing.register();
    failing.release();
    const error = await refused;
    expect(error.status).toBe(504);
    expect(await error.json()).toMatchObject({ result: 'error', code: 'GATEWAY_TIMEOUT' });
  });

  it('takes no parts where the gateway checks replies: parts are not checked, the whole reply is', async () => {
    const checking = await gateway({ checkReplies: true });
    const answering = checking.register();
    checking.release();
    const response = await answering;
    await response.text();
    expect(checking.sentPart()).toBe(false);
    // Checked, and refused: this stand-in's reply lacks most of the contract's members.
    expect(response.status).toBe(500);
    expect(response.headers.get('transfer-encoding')).toBeNull();
  });
});
