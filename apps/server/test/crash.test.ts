/**
 * kill -9 while many clients send: the whole embedded server, and the messaging process
 * of the distributed mode. After each restart every acknowledged message must be there
 * with the id and content it was acknowledged with, nothing twice, and the ids given
 * after the restart must be larger than every id given before (ARCHITECTURE.md,
 * invariant 1).
 */
import { describe, expect, it } from '@jest/globals';
import { describeWithNats } from '@teamchat/platform/testing';
import { Client, startDistributed, startEmbeddedProcess, type ServerProcess } from './harness';
import { scratchDataDirs } from './suite-kit';

const USERS = ['member@example.com', 'member2@example.com', 'admin@example.com', 'owner@example.com'];
/** Clients sending at once, each one message at a time. */
const SENDERS = 24;
/** Acknowledged sends between crashes. */
const SENDS_PER_CYCLE = 300;
/** Long enough for a send under load, short enough not to wait out the gateway's 10 s bus timeout. */
const SEND_TIMEOUT_MS = 1500;

type Outcome = 'pending' | 'acked' | 'refused' | 'unknown';

interface Send {
  content: string;
  sender: string;
  client: number;
  seq: number;
  /**
   * The server incarnation that was up when the send began, and when it was acknowledged;
   * undefined while none was. A send begun after a restart is stored by the new
   * incarnation if at all; one acknowledged before a kill was stored by the old one. (One
   * begun before a kill may still reach the next incarnation in the distributed mode, if
   * the gateway forwards it late.)
   */
  startedIn: number | undefined;
  ackedIn?: number | undefined;
  outcome: Outcome;
  id?: number;
  status?: number;
}

/** What every send asked for and what it was told. */
class Ledger {
  readonly sends = new Map<string, Send>();
  /** Which incarnation is serving; undefined between a kill and the restart's readiness. */
  life: number | undefined = 0;
  acked = 0;
  refused = 0;
  private waiters: { count: number; kind: 'acked' | 'refused'; resolve: () => void }[] = [];

  begin(send: Omit<Send, 'startedIn' | 'outcome'>): Send {
    const entry: Send = { ...send, startedIn: this.life, outcome: 'pending' };
    this.sends.set(send.content, entry);
    return entry;
  }

  settle(send: Send, outcome: Exclude<Outcome, 'pending'>, detail: { id?: number; status?: number } = {}): void {
    Object.assign(send, { outcome, ...detail });
    if (outcome === 'acked') send.ackedIn = this.life;
    if (outcome === 'acked') this.acked++;
    if (outcome === 'refused') this.refused++;
    this.waiters = this.waiters.filter((w) => {
      const reached = (w.kind === 'acked' ? this.acked : this.refused) >= w.count;
      if (reached) w.resolve();
      return !reached;
    });
  }

  /** Resolves in the same turn as the settle that reaches the count, so a kill lands mid-stream. */
  when(kind: 'acked' | 'refused', count: number, timeoutMs = 20_000): Promise<void> {
    if ((kind === 'acked' ? this.acked : this.refused) >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${count} ${kind} sends (${this.acked} acked, ${this.refused} refused)`)), timeoutMs);
      this.waiters.push({ count, kind, resolve: () => (clearTimeout(timer), resolve()) });
    });
  }
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Many clients sending until stopped; channel and direct messages, every content unique. */
function startSenders(api: string, clients: Map<string, Client>, ledger: Ledger, firstClient: number) {
  let stopped = false;
  const loop = async (n: number) => {
    const email = USERS[n % USERS.length]!;
    const client = clients.get(email)!;
    const peer = USERS[(n + 1) % USERS.length]!;
    const authorization = `Basic ${Buffer.from(`${email}:${client.apiKey}`).toString('base64')}`;
    for (let seq = 0; !stopped; seq++) {
      const content = `crash ${email} client ${n} send ${seq}`;
      const params: Record<string, string> =
        seq % 3 === 2 ? { type: 'direct', to: JSON.stringify([peer]), content } : { type: 'stream', to: 'general', topic: `crash ${n % 5}`, content };
      const send = ledger.begin({ content, sender: email, client: n, seq });
      try {
        const res = await fetch(`${api}/messages`, {
          method: 'POST',
          headers: { authorization },
          body: new URLSearchParams(params),
          signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        });
        const body = (await res.json()) as { result?: string; id?: unknown };
        if (res.status === 200 && body.result === 'success' && typeof body.id === 'number') {
          ledger.settle(send, 'acked', { id: body.id });
        } else {
          // An error reply: the server says the message was not sent (a 504 only that it may not have been).
          ledger.settle(send, res.status === 504 ? 'unknown' : 'refused', { status: res.status });
          await pause(20);
        }
      } catch {
        // Reset, refused or timed out: it may or may not have been stored.
        ledger.settle(send, 'unknown');
        await pause(20);
      }
    }
  };
  const loops = Array.from({ length: SENDERS }, (_, i) => loop(firstClient + i));
  return async () => {
    stopped = true;
    await Promise.all(loops);
  };
}

interface Stored {
  id: number;
  content: string;
}

/** Everything a user sent, oldest first, as GET /messages returns it page by page. */
async function sentBy(client: Client): Promise<Stored[]> {
  const messages: Stored[] = [];
  let anchor: number | string = 'oldest';
  for (;;) {
    const { status, body } = await client.get('/messages', {
      anchor,
      include_anchor: anchor === 'oldest',
      num_before: 0,
      num_after: 500,
      narrow: [{ operator: 'sender', operand: client.email }],
      apply_markdown: false,
    });
    if (status !== 200) throw new Error(`GET /messages answered ${status}: ${JSON.stringify(body)}`);
    messages.push(...body.messages.map((m: Stored) => ({ id: m.id, content: m.content })));
    if (body.found_newest || body.messages.length === 0) return messages;
    anchor = messages.at(-1)!.id;
  }
}

/**
 * Reads back every user's messages and lists what breaks the guarantees; returns the
 * largest id read.
 */
async function verify(api: string, clients: Map<string, Client>, ledger: Ledger): Promise<{ problems: string[]; maxId: number }> {
  const problems: string[] = [];
  const read = await Promise.all(USERS.map((email) => sentBy(new Client(api, email, clients.get(email)!.apiKey))));
  const byContent = new Map<string, Stored>();
  const ids = new Set<number>();
  read.forEach((messages, u) => {
    messages.forEach((m, i) => {
      if (i > 0 && m.id <= messages[i - 1]!.id) problems.push(`${USERS[u]}: id ${m.id} read after ${messages[i - 1]!.id}`);
      if (ids.has(m.id)) problems.push(`id ${m.id} appears twice`);
      ids.add(m.id);
      if (byContent.has(m.content)) problems.push(`"${m.content}" stored twice (ids ${byContent.get(m.content)!.id} and ${m.id})`);
      byContent.set(m.content, m);
      const send = ledger.sends.get(m.content);
      if (!send || send.sender !== USERS[u]) problems.push(`id ${m.id}: "${m.content}" was never sent by ${USERS[u]}`);
    });
  });

  const lastOfClient = new Map<number, number>();
  /** Per incarnation: the largest id it acknowledged, the smallest it stored of sends begun under it. */
  const largestAcked = new Map<number, number>();
  const smallestStarted = new Map<number, number>();
  for (const send of ledger.sends.values()) {
    const stored = byContent.get(send.content);
    if (send.outcome === 'acked') {
      if (!stored) problems.push(`acknowledged id ${send.id} ("${send.content}") is missing`);
      else if (stored.id !== send.id) problems.push(`"${send.content}" was acknowledged as id ${send.id} but reads as id ${stored.id}`);
      // One client sends one message at a time: each is committed after the one before.
      const previous = lastOfClient.get(send.client);
      if (previous !== undefined && send.id! <= previous) problems.push(`client ${send.client}: id ${send.id} acknowledged after ${previous}`);
      lastOfClient.set(send.client, send.id!);
      if (send.ackedIn !== undefined) largestAcked.set(send.ackedIn, Math.max(send.id!, largestAcked.get(send.ackedIn) ?? 0));
    }
    if (send.outcome === 'pending') problems.push(`"${send.content}" never settled`);
    if (stored && send.startedIn !== undefined) {
      smallestStarted.set(send.startedIn, Math.min(stored.id, smallestStarted.get(send.startedIn) ?? Infinity));
    }
  }
  // What a later incarnation stores comes after all that an earlier one acknowledged.
  for (const [life, smallest] of smallestStarted) {
    for (const [earlier, largest] of largestAcked) {
      if (earlier < life && smallest <= largest) {
        problems.push(`incarnation ${life} stored id ${smallest}, not above ${largest} acknowledged by incarnation ${earlier}`);
      }
    }
  }
  return { problems, maxId: Math.max(0, ...ids) };
}

/** After a restart, a new message gets an id above every id seen before. */
async function expectNewIdAbove(api: string, clients: Map<string, Client>, ledger: Ledger, maxId: number): Promise<void> {
  const member = clients.get(USERS[0]!)!;
  const content = `probe above ${maxId}`;
  // In the ledger as any send, so that later verifications know it (client -1: no sender loop).
  const send = ledger.begin({ content, sender: member.email!, client: -1, seq: 0 });
  const probe = await new Client(api, member.email, member.apiKey).post('/messages', { type: 'stream', to: 'general', topic: 'after the crash', content });
  expect(probe.status).toBe(200);
  ledger.settle(send, 'acked', { id: probe.body.id });
  expect(probe.body.id).toBeGreaterThan(maxId);
}

async function login(api: string): Promise<Map<string, Client>> {
  return new Map(await Promise.all(USERS.map(async (email) => [email, await Client.login(api, email)] as const)));
}

function statusesOf(ledger: Ledger): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const send of ledger.sends.values()) {
    if (send.outcome === 'refused') counts[send.status!] = (counts[send.status!] ?? 0) + 1;
  }
  return counts;
}

const unknownCount = (ledger: Ledger) => [...ledger.sends.values()].filter((s) => s.outcome === 'unknown').length;

const newDataDir = scratchDataDirs();

describe('crash (embedded): kill -9 of the server while clients send', () => {
  it('keeps every acknowledged message, with its id, once, and gives larger ids after each restart', async () => {
    const dataDir = newDataDir();
    const ledger = new Ledger();
    let server: ServerProcess = await startEmbeddedProcess(dataDir);
    try {
      const clients = await login(server.api);
      for (let cycle = 0; cycle < 2; cycle++) {
        const stopSenders = startSenders(server.api, clients, ledger, cycle * SENDERS);
        await ledger.when('acked', ledger.acked + SENDS_PER_CYCLE);
        const unknownBefore = unknownCount(ledger);
        await server.kill();
        ledger.life = undefined;
        await stopSenders();
        // Sends were in flight when the process died: the kill landed mid-stream.
        expect(unknownCount(ledger)).toBeGreaterThan(unknownBefore);

        server = await startEmbeddedProcess(dataDir);
        ledger.life = cycle + 1;
        const { problems, maxId } = await verify(server.api, clients, ledger);
        expect(problems).toEqual([]);
        await expectNewIdAbove(server.api, clients, ledger, maxId);
      }
      // While the server lived, it answered every send with success.
      expect(statusesOf(ledger)).toEqual({});
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describeWithNats('crash (distributed): kill -9 of the messaging process while clients send', () => {
  it('keeps every acknowledged message, with its id, once, and gives larger ids after each restart', async () => {
    const server = await startDistributed();
    try {
      const clients = await login(server.api);
      const ledger = new Ledger();
      const stopSenders = startSenders(server.api, clients, ledger, 0);
      try {
        for (let cycle = 0; cycle < 2; cycle++) {
          await ledger.when('acked', ledger.acked + SENDS_PER_CYCLE);
          await server.kill('messaging');
          ledger.life = undefined;
          // The senders go on: the gateway must refuse them while no messaging process is up.
          await ledger.when('refused', ledger.refused + 10);
          await server.restart('messaging');
          ledger.life = cycle + 1;
        }
        await ledger.when('acked', ledger.acked + SENDS_PER_CYCLE);
      } finally {
        await stopSenders();
      }
      // Refused only for want of a messaging process (503); never for what was sent.
      expect(Object.keys(statusesOf(ledger))).toEqual(['503']);
      const { problems, maxId } = await verify(server.api, clients, ledger);
      expect(problems).toEqual([]);
      await expectNewIdAbove(server.api, clients, ledger, maxId);
    } finally {
      await server.stop();
    }
  }, 90_000);
});
