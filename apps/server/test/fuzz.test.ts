/**
 * Property test: random parameter values thrown at POST /messages and GET /messages (and
 * the other message and channel endpoints) get a success or a clear error envelope —
 * never a 5xx, never a non-JSON reply, never a crash.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { CHANNEL_GROUP_SETTINGS } from '@teamchat/contracts';
import fc from 'fast-check';
import { Client, startEmbedded, type RunningServer } from './harness';

/** Wire values: what a client can put in a form field. */
const wireValue = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 80 }),
  fc.integer().map(String),
  fc.constantFrom('true', 'false', 'null', '[]', '{}', '""', 'newest', 'oldest', 'first_unread', 'date', '-1', '1e309', 'NaN', '\u0000'),
  fc.json().map((j) => j),
  fc.array(fc.oneof(fc.integer(), fc.string()), { maxLength: 5 }).map((a) => JSON.stringify(a)),
  fc.constant('x'.repeat(20000)),
  fc.array(
    fc.record({ operator: fc.constantFrom('channel', 'topic', 'dm', 'sender', 'search', 'is', 'has', 'id', 'near', 'bogus'), operand: fc.oneof(fc.string(), fc.integer(), fc.array(fc.integer())) }, { requiredKeys: [] }),
    { maxLength: 3 },
  ).map((n) => JSON.stringify(n)),
  // Group-settings and their update objects, well- and ill-formed.
  fc
    .oneof(
      fc.integer({ min: -2, max: 12 }),
      fc.record({ direct_members: fc.array(fc.oneof(fc.integer({ min: -1, max: 20 }), fc.string()), { maxLength: 3 }), direct_subgroups: fc.array(fc.integer({ min: -1, max: 12 }), { maxLength: 3 }) }, { requiredKeys: [] }),
    )
    .chain((value) => fc.oneof(fc.constant(value), fc.record({ new: fc.constant(value), old: fc.oneof(fc.integer({ min: 0, max: 10 }), fc.constant(value)) }, { requiredKeys: [] })))
    .map((v) => JSON.stringify(v)),
  fc.array(fc.record({ name: fc.string({ maxLength: 70 }), description: fc.string({ maxLength: 30 }) }, { requiredKeys: [] }), { maxLength: 3 }).map((a) => JSON.stringify(a)),
);

const params = (keys: string[]) =>
  fc.dictionary(fc.oneof(fc.constantFrom(...keys), fc.string({ maxLength: 8 })), wireValue, { maxKeys: 8 });

const SEND_KEYS = ['type', 'to', 'content', 'topic', 'subject', 'queue_id', 'local_id', 'read_by_sender'];
const GET_KEYS = ['anchor', 'anchor_date', 'include_anchor', 'num_before', 'num_after', 'narrow', 'client_gravatar', 'apply_markdown', 'message_ids', 'allow_empty_topic_name', 'use_first_unread_anchor'];
const FLAG_KEYS = ['messages', 'op', 'flag', 'anchor', 'num_before', 'num_after', 'narrow', 'include_anchor'];
const EDIT_KEYS = ['content', 'topic', 'stream_id', 'propagate_mode', 'emoji_name', 'emoji_code', 'reaction_type'];
const SUBSCRIBE_KEYS = ['subscriptions', 'principals', 'authorization_errors_fatal', 'announce', 'invite_only', 'is_web_public', 'is_default_stream', 'history_public_to_subscribers', 'message_retention_days', 'topics_policy', ...CHANNEL_GROUP_SETTINGS];
const CHANNEL_KEYS = ['description', 'new_name', 'is_private', 'is_web_public', 'history_public_to_subscribers', 'is_default_stream', 'message_retention_days', 'is_archived', 'folder_id', 'topics_policy', ...CHANNEL_GROUP_SETTINGS];

describe('fuzzing the message and channel endpoints', () => {
  let server: RunningServer;
  let member: Client;
  let owner: Client;
  let messageId: number;
  let channelId: number;

  beforeAll(async () => {
    server = await startEmbedded();
    member = await Client.login(server.api, 'member@example.com');
    owner = await Client.login(server.api, 'owner@example.com');
    await owner.post('/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'fuzzed' }]) });
    const first = (await owner.post('/messages', { type: 'stream', to: 'fuzzed', topic: 'fuzz', content: 'first' })).body.id;
    channelId = (await owner.get(`/messages/${first}`)).body.message.stream_id;
    expect(typeof channelId).toBe('number');
    messageId = (await member.post('/messages', { type: 'stream', to: 'general', topic: 'fuzz', content: 'target' })).body.id;
  }, 30_000);

  afterAll(async () => {
    await server?.stop();
  });

  const checkEnvelope = (res: { status: number; body: Record<string, unknown> }) => {
    expect(res.status).toBeLessThan(500);
    expect(['success', 'error']).toContain(res.body.result);
    expect(typeof res.body.msg).toBe('string');
    if (res.body.result === 'error') {
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(typeof res.body.code).toBe('string');
    }
  };

  const property = (method: string, path: () => string, keys: string[], options: { query?: boolean; as?: Client } = {}) =>
    fc.assert(
      fc.asyncProperty(params(keys), async (p) => {
        checkEnvelope(await (options.as ?? member).request(method, path(), p, options));
      }),
      { numRuns: 150 },
    );

  it('POST /messages answers every input with a clear envelope', () => property('POST', () => '/messages', SEND_KEYS), 60_000);
  it('GET /messages answers every input with a clear envelope', () => property('GET', () => '/messages', GET_KEYS), 60_000);
  it('POST /messages/flags and /messages/flags/narrow answer every input clearly', async () => {
    await property('POST', () => '/messages/flags', FLAG_KEYS);
    await property('POST', () => '/messages/flags/narrow', FLAG_KEYS);
  }, 60_000);
  it('PATCH /messages/{id} and reactions answer every input clearly', async () => {
    await property('PATCH', () => `/messages/${messageId}`, EDIT_KEYS, { query: false });
    await property('POST', () => `/messages/${messageId}/reactions`, EDIT_KEYS);
  }, 60_000);

  it('POST /users/me/subscriptions answers every input clearly', () => property('POST', () => '/users/me/subscriptions', SUBSCRIBE_KEYS), 60_000);
  it('PATCH /streams/{id} answers every input clearly, from an owner (past the permission check) and a member', async () => {
    await property('PATCH', () => `/streams/${channelId}`, CHANNEL_KEYS, { query: false, as: owner });
    await property('PATCH', () => `/streams/${channelId}`, CHANNEL_KEYS, { query: false });
  }, 90_000);

  it('still serves normal requests afterwards', async () => {
    const res = await member.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0 });
    expect(res.body.result).toBe('success');
  });
});
