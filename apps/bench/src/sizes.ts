/**
 * `BENCH_SIZES=<messages> npm run bench`: the read models' size against the event store's
 * at 1,000 users (issue 40 item 2). Seeds, through the services' bus endpoints, 1,000
 * users, 200 channels from one of 1,000 subscribers down to a dozen (messages favour the
 * big ones, a tenth go to direct messages, one in fifty mentions someone), then 20 users
 * mark everything read and 20 star a few messages. Stops the server and reads each SQLite
 * file's pages per table and index (dbstat): the event store, messaging's per-user state
 * (receipts, read marks and flag rows), and every other read model, in one run. (The rows
 * per recipient it replaced took 36.8 KB per message at this size.)
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { endpoints, type Actor, type UpdateFlagsForNarrowParams } from '@teamchat/contracts';
import { callContract, createLogger, loadConfig } from '@teamchat/platform';
import { startEmbeddedServer, type EmbeddedServer } from '@teamchat/server';
import { settle } from './settle';

const USERS = 1_000;
const CHANNELS = 200;
const CONCURRENCY = 32;
const READERS = 20;
const STARRERS = 20;

async function pool(count: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    for (let i = next++; i < count; i = next++) await work(i);
  }));
}

/** Deterministic: the same organization and messages every run. */
function generator(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function seedOrganization(server: EmbeddedServer, messages: number) {
  const random = generator(40);
  const actors: Actor[] = [];
  await pool(USERS, async (i) => {
    const email = `size-${i}@example.com`;
    const full_name = `Size User ${i}`;
    const { value } = await callContract(server.bus, endpoints.accounts.createUser, { params: { email, full_name, role: 400 } });
    actors[i] = { user_id: value.user_id, email, full_name, role: 400, is_bot: false, client: 'bench' };
  });
  // Channel i has about 1000/(i+1) subscribers (at least 12), each a different slice of people.
  const channels: { name: string; members: Actor[] }[] = [];
  let after = 0;
  for (let i = 0; i < CHANNELS; i++) {
    const size = Math.min(USERS, Math.max(12, Math.floor(USERS / (i + 1))));
    const members = Array.from({ length: size }, (_, k) => actors[(i * 37 + k) % USERS]!);
    const name = `size-${i}`;
    const { position } = await callContract(server.bus, endpoints.channels.createChannel, { params: { name, subscribers: members.map((m) => m.user_id) } });
    after = Math.max(after, position ?? 0);
    channels.push({ name, members });
  }
  // Channel i is picked with weight 1/(i+1)^0.5: a few busy channels, a long quiet tail
  // (about 90 recipients a message on average, a direct message 2).
  const weights = channels.map((_, i) => 1 / (i + 1) ** 0.5);
  const total = weights.reduce((a, b) => a + b, 0);
  const pickChannel = () => {
    let x = random() * total;
    for (let i = 0; i < weights.length; i++) if ((x -= weights[i]!) <= 0) return channels[i]!;
    return channels.at(-1)!;
  };
  const plan = Array.from({ length: messages }, () => {
    if (random() < 0.1) {
      const sender = actors[Math.floor(random() * USERS)]!;
      return { sender, params: { type: 'direct' as const, to: [actors[Math.floor(random() * USERS)]!.email], content: 'a direct word' } };
    }
    const channel = pickChannel();
    const sender = channel.members[Math.floor(random() * channel.members.length)]!;
    const mention = random() < 0.02 ? `@**${channel.members[Math.floor(random() * channel.members.length)]!.full_name}** ` : '';
    const topic = `topic-${Math.floor(random() * 20)}`;
    return { sender, params: { type: 'stream' as const, to: channel.name, topic, content: `${mention}words about ${topic}`, read_by_sender: true } };
  });
  const started = Date.now();
  await pool(messages, async (i) => {
    const { sender, params } = plan[i]!;
    await callContract(server.bus, endpoints.messaging.sendMessage, { actor: sender, after, params }, { timeoutMs: 120_000 });
  });
  const rate = (messages / (Date.now() - started)) * 1000;
  // Readers catch up on everything; others star a few messages of the busiest channel.
  for (const reader of actors.slice(0, READERS)) {
    let anchor: number | string = 'oldest';
    for (;;) {
      const params: UpdateFlagsForNarrowParams = { anchor, include_anchor: true, num_before: 0, num_after: 5000, narrow: [], op: 'add', flag: 'read' };
      const reply = await callContract(server.bus, endpoints.messaging.updateFlagsForNarrow, { actor: reader, params }, { timeoutMs: 120_000 });
      const last: number | null = reply.value.last_processed_id;
      if (reply.value.found_newest || last === null) break;
      anchor = last + 1;
    }
  }
  for (const starrer of actors.slice(READERS, READERS + STARRERS)) {
    await callContract(server.bus, endpoints.messaging.updateFlagsForNarrow, {
      actor: starrer,
      params: { anchor: 'newest', num_before: 20, num_after: 0, narrow: [{ operator: 'channel', operand: channels[0]!.name }], op: 'add' as const, flag: 'starred' },
    });
  }
  return rate;
}

/** Bytes per table or index (its name), per file. */
function pagesByName(file: string): Map<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    const rows = db.prepare('SELECT name, SUM(pgsize) AS bytes FROM dbstat GROUP BY name').all() as { name: string; bytes: number }[];
    return new Map(rows.map((r) => [r.name, r.bytes]));
  } finally {
    db.close();
  }
}

/** The collection a table or index belongs to (`c_name`, `m_name`, `ix:name:…`), or the name itself. */
const collectionOf = (name: string) => /^(?:c_|m_)([^:]+)|^ix:([^:]+):/.exec(name)?.slice(1).find(Boolean) ?? name;

const NEW_STATE = ['user_flags', 'read_marks', 'receipts'];

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

export async function measureSizes(messages: number): Promise<number> {
  const dataDir = mkdtempSync(join(tmpdir(), 'teamchat-sizes-'));
  process.env.LOG_LEVEL = 'warn';
  const config = loadConfig({ ...process.env, TEAMCHAT_DATA_DIR: dataDir, TEAMCHAT_MODE: 'development', LOG_LEVEL: 'warn' });
  const server = await startEmbeddedServer(config, createLogger('bench'), { host: '127.0.0.1', port: 0 });
  try {
    console.log(`seeding ${USERS} users, ${CHANNELS} channels, ${messages} messages…`);
    const rate = await seedOrganization(server, messages);
    console.log(`${rate.toFixed(0)} messages/s; settled in ${((await settle()) / 1000).toFixed(1)} s`);
  } finally {
    await server.stop();
  }
  try {
    const files = readdirSync(dataDir).filter((f) => f.endsWith('.sqlite'));
    const events = [...pagesByName(join(dataDir, 'events.sqlite')).values()].reduce((a, b) => a + b, 0);
    const byCollection = new Map<string, number>();
    for (const file of files.filter((f) => f !== 'events.sqlite')) {
      for (const [name, bytes] of pagesByName(join(dataDir, file))) {
        const key = `${file.replace('.read-models.sqlite', '')}/${collectionOf(name)}`;
        byCollection.set(key, (byCollection.get(key) ?? 0) + bytes);
      }
    }
    const sum = (pick: (key: string) => boolean) => [...byCollection].filter(([k]) => pick(k)).reduce((a, [, b]) => a + b, 0);
    const isIn = (names: string[]) => (key: string) => key.startsWith('messaging/') && names.includes(key.slice('messaging/'.length));
    const newState = sum(isIn(NEW_STATE));
    const others = sum((k) => !isIn(NEW_STATE)(k));
    console.log(`\nread-model sizes at ${USERS} users × ${messages} messages (dbstat pages):`);
    for (const [key, bytes] of [...byCollection].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${key.padEnd(40)} ${mb(bytes)}`);
    console.log(`  event store                              ${mb(events)} (${(events / messages).toFixed(0)} B per message)`);
    console.log(`  per-user state, receipts+marks+flag rows  ${mb(newState)} (${(newState / messages).toFixed(0)} B per message)`);
    console.log(`  every other read model                    ${mb(others)}`);
    const db = new Database(join(dataDir, 'messaging.read-models.sqlite'), { readonly: true });
    try {
      for (const name of NEW_STATE) {
        const { n } = db.prepare(`SELECT COUNT(*) AS n FROM "c_${name}"`).get() as { n: number };
        const bytes = byCollection.get(`messaging/${name}`) ?? 0;
        console.log(`  messaging/${name.padEnd(14)} ${String(n).padStart(10)} documents, ${n ? (bytes / n).toFixed(0) : '-'} B each with its indexes`);
      }
    } finally {
      db.close();
    }
    console.log(`  read models / event store: ${((others + newState) / events).toFixed(2)}×`);
    return 0;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
