/**
 * POST /register in the embedded mode, answered in parts (the owners that answer first are
 * written while the others compute: docs/architecture.md, "Initial state"): the same answer
 * as the whole one a gateway checking every reply against its contract gives, which
 * takes no parts, on the same data.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client, startEmbedded, tempDataDir, type RunningServer } from './harness';

const dataDir = tempDataDir();
let server: RunningServer | undefined;
afterAll(async () => server?.stop());

/** What differs between two registrations whatever the answer's form: the queue, the clock, presence. */
const VOLATILE = ['queue_id', 'server_timestamp', 'presences', 'presence_last_update_id'];

async function register(member: Client) {
  const response = await fetch(`${member.api}/register`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${member.email}:${member.apiKey}`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ client_capabilities: JSON.stringify({ notification_settings_null: true }) }),
  });
  const text = await response.text();
  // The two servers listen on different ports: their addresses are the one difference.
  const body = JSON.parse(text.replaceAll(new URL(member.api).origin, 'http://server')) as Record<string, unknown>;
  for (const member of VOLATILE) delete body[member];
  return { status: response.status, chunked: response.headers.get('transfer-encoding') === 'chunked', length: response.headers.get('content-length'), bytes: Buffer.byteLength(text), body };
}

let inParts: Awaited<ReturnType<typeof register>>;
let whole: Awaited<ReturnType<typeof register>>;

beforeAll(async () => {
  server = await startEmbedded(dataDir, { TEAMCHAT_CHECK_REPLIES: '0' });
  let member = await Client.login(server.api, 'member@example.com');
  for (const content of ['first', 'second', 'third']) {
    const sent = await member.post('/messages', { type: 'stream', to: 'general', topic: 'parts', content });
    expect(sent.body).toMatchObject({ result: 'success' });
  }
  const dm = await member.post('/messages', { type: 'direct', to: JSON.stringify(['member2@example.com']), content: 'a direct one' });
  expect(dm.body).toMatchObject({ result: 'success' });
  inParts = await register(member);
  await server.stop();
  server = await startEmbedded(dataDir);
  member = await Client.login(server.api, 'member@example.com');
  whole = await register(member);
}, 120_000);

describe('POST /register answered in parts (embedded)', () => {
  it('is chunked where the gateway takes parts, and whole with its length where it checks replies', () => {
    expect(inParts.status).toBe(200);
    expect(inParts.chunked).toBe(true);
    expect(inParts.length).toBeNull();
    expect(whole.status).toBe(200);
    expect(whole.chunked).toBe(false);
    expect(Number(whole.length)).toBe(whole.bytes);
  });

  it('gives the same answer either way', () => {
    expect(Object.keys(inParts.body).length).toBeGreaterThan(100);
    expect(inParts.body).toHaveProperty('realm_users');
    expect(inParts.body).toHaveProperty('unread_msgs.count');
    expect(inParts.body).toHaveProperty('recent_private_conversations.0.user_ids');
    expect(inParts.body).toEqual(whole.body);
  });
});
