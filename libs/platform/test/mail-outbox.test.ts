/**
 * The durable mail outbox (kit/mail-outbox.ts) over a real SQLite read-model store, with
 * a fake clock and a scripted transport: a mail is stored before any attempt, delivered
 * in the background, retried with doubling waits, given up after its attempts or at once
 * on a permanent refusal, bounded by a timeout, held by a lease while an attempt runs,
 * resumed after a restart, and its body (which may hold a link's key) blanked once done
 * and never logged.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from '@jest/globals';
import {
  afterAttempt,
  MailOutbox,
  SqliteReadModelStore,
  type Mailer,
  type MailRetryPolicy,
  type OutboxClock,
  type OutboxRecord,
  type OutgoingEmail,
} from '@teamchat/platform';
import pino from 'pino';

const LINK = 'http://chat.example.org/join/secret-key-0123456789/';
const email: OutgoingEmail = { to: 'newcomer@example.org', subject: 'You are invited', text: `Join here: ${LINK}\n` };
const policy: MailRetryPolicy = { attempts: 3, retryDelayMs: 1000, attemptTimeoutMs: 5000 };

/** Time moves only when told; timers fire in order of their due time. */
class FakeClock implements OutboxClock {
  private time = 1_700_000_000_000;
  private timers = new Map<number, { at: number; run: () => void }>();
  private next = 1;
  now = () => this.time;
  setTimeout = (run: () => void, ms: number) => {
    const id = this.next++;
    this.timers.set(id, { at: this.time + ms, run });
    return id;
  };
  clearTimeout = (handle: unknown) => void this.timers.delete(handle as number);
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      const due = [...this.timers].filter(([, t]) => t.at <= until).sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].run();
    }
    this.time = until;
  }
}

/** A transport that answers each call as `script` says (by call number, from 1). */
class ScriptedTransport implements Mailer {
  calls: OutgoingEmail[] = [];
  constructor(private readonly script: (call: number) => 'ok' | 'hang' | { code?: number; message: string } = () => 'ok') {}
  send(mail: OutgoingEmail): Promise<void> {
    this.calls.push(mail);
    const answer = this.script(this.calls.length);
    if (answer === 'ok') return Promise.resolve();
    if (answer === 'hang') return new Promise(() => undefined);
    return Promise.reject(Object.assign(new Error(answer.message), answer.code === undefined ? {} : { responseCode: answer.code }));
  }
}

const dirs: string[] = [];
const stores: SqliteReadModelStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function openStore(file?: string): { store: SqliteReadModelStore; file: string } {
  const path = file ?? join(dirs[dirs.push(mkdtempSync(join(tmpdir(), 'teamchat-outbox-'))) - 1]!, 'read-models.sqlite');
  const store = SqliteReadModelStore.open(path);
  stores.push(store);
  return { store, file: path };
}

function outboxWith(transport: Mailer, options: { clock?: FakeClock; file?: string; awaitFirstAttempt?: boolean } = {}) {
  const lines: string[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
  const { store, file } = openStore(options.file);
  const clock = options.clock ?? new FakeClock();
  const outbox = new MailOutbox({ store, transport, policy, log, clock, ...(options.awaitFirstAttempt ? { awaitFirstAttempt: true } : {}) });
  const raw = () => store.collection<OutboxRecord>('mail_outbox').find({});
  return { outbox, clock, lines, raw, file, store };
}

describe('mail outbox', () => {
  it('stores the mail, answers pending at once, delivers it in the background and blanks the body', async () => {
    const transport = new ScriptedTransport();
    const { outbox, raw, lines } = outboxWith(transport);
    outbox.start();
    const receipt = await outbox.enqueue(email, 'invitation');
    expect(receipt.state).toBe('pending');
    await outbox.idle();
    expect(transport.calls).toEqual([email]);
    expect(await outbox.summary(receipt.id)).toMatchObject({ state: 'sent', attempts: 1, last_error: null, to: email.to, purpose: 'invitation' });
    const [stored] = await raw();
    expect(stored!.text).toBe('');
    expect(lines.join('')).toContain('email sent');
    expect(lines.join('')).not.toContain(LINK);
    await outbox.stop();
  });

  it('waits for the first attempt when told to (the development file outbox)', async () => {
    const { outbox } = outboxWith(new ScriptedTransport(), { awaitFirstAttempt: true });
    outbox.start();
    expect((await outbox.enqueue(email, 'welcome')).state).toBe('sent');
    await outbox.stop();
  });

  it('retries a temporary failure after a wait that doubles, then delivers once', async () => {
    const transport = new ScriptedTransport((call) => (call <= 2 ? { message: 'connect ECONNREFUSED 127.0.0.1:25' } : 'ok'));
    const { outbox, clock } = outboxWith(transport);
    outbox.start();
    const { id } = await outbox.enqueue(email, 'invitation');
    await outbox.idle();
    const t0 = clock.now();
    expect(await outbox.summary(id)).toMatchObject({ state: 'pending', attempts: 1, due_at: t0 + 1000, last_error: 'connect ECONNREFUSED 127.0.0.1:25' });
    clock.advance(999);
    await outbox.idle();
    expect(transport.calls).toHaveLength(1);
    clock.advance(1);
    await outbox.idle();
    expect(transport.calls).toHaveLength(2);
    expect(await outbox.summary(id)).toMatchObject({ state: 'pending', attempts: 2, due_at: t0 + 1000 + 2000 });
    clock.advance(2000);
    await outbox.idle();
    expect(transport.calls).toHaveLength(3);
    expect(await outbox.summary(id)).toMatchObject({ state: 'sent', attempts: 3 });
    clock.advance(60_000);
    await outbox.idle();
    expect(transport.calls).toHaveLength(3);
    await outbox.stop();
  });

  it('gives up after the configured attempts, records why, and logs neither body nor link', async () => {
    const transport = new ScriptedTransport(() => ({ code: 451, message: 'Try again later' }));
    const { outbox, clock, raw, lines } = outboxWith(transport);
    outbox.start();
    const { id } = await outbox.enqueue(email, 'email_change');
    for (let i = 0; i < 5; i++) {
      await outbox.idle();
      clock.advance(10_000);
    }
    await outbox.idle();
    expect(transport.calls).toHaveLength(3);
    expect(await outbox.summary(id)).toMatchObject({ state: 'failed', attempts: 3, last_error: 'Try again later', response_code: 451, finished_at: expect.any(Number) });
    expect((await raw())[0]!.text).toBe('');
    const logged = lines.join('');
    expect(logged).toContain('given up');
    expect(logged).not.toContain(LINK);
    expect(await outbox.list({ state: 'failed' })).toEqual([expect.objectContaining({ _id: id })]);
    expect(JSON.stringify(await outbox.list())).not.toContain(LINK);
    await outbox.stop();
  });

  it('does not retry a permanent refusal', async () => {
    const transport = new ScriptedTransport(() => ({ code: 550, message: 'Mailbox unavailable' }));
    const { outbox, clock } = outboxWith(transport);
    outbox.start();
    const { id } = await outbox.enqueue(email, 'invitation');
    await outbox.idle();
    clock.advance(60_000);
    await outbox.idle();
    expect(transport.calls).toHaveLength(1);
    expect(await outbox.summary(id)).toMatchObject({ state: 'failed', attempts: 1, response_code: 550 });
    await outbox.stop();
  });

  it('counts an attempt that never answers as failed once its timeout passes', async () => {
    const transport = new ScriptedTransport((call) => (call === 1 ? 'hang' : 'ok'));
    const { outbox, clock } = outboxWith(transport);
    outbox.start();
    const { id } = await outbox.enqueue(email, 'invitation');
    await new Promise((resolve) => setImmediate(resolve));
    expect(await outbox.summary(id)).toMatchObject({ state: 'pending', attempts: 1, lease_until: expect.any(Number) });
    clock.advance(policy.attemptTimeoutMs);
    await outbox.idle();
    expect(await outbox.summary(id)).toMatchObject({ state: 'pending', attempts: 1, last_error: `no answer within ${policy.attemptTimeoutMs} ms` });
    clock.advance(policy.retryDelayMs);
    await outbox.idle();
    expect(await outbox.summary(id)).toMatchObject({ state: 'sent', attempts: 2 });
    await outbox.stop();
  });

  it('resumes pending mail after a restart, and leaves a mail claimed by an attempt alone until its lease ends', async () => {
    const down = new ScriptedTransport(() => ({ message: 'connect ECONNREFUSED' }));
    const first = outboxWith(down);
    first.outbox.start();
    const { id } = await first.outbox.enqueue(email, 'invitation');
    await first.outbox.idle();
    await first.outbox.stop();
    await first.store.close();
    stores.splice(stores.indexOf(first.store), 1);

    // A process that died mid-attempt left its claim: the restarted outbox waits for the lease.
    const up = new ScriptedTransport();
    const clock = new FakeClock();
    const again = outboxWith(up, { file: first.file, clock });
    const records = again.store.collection<OutboxRecord>('mail_outbox');
    const stored = (await records.get(id))!;
    await again.store.batch(() => records.put({ ...stored, due_at: 0, lease_until: clock.now() + 30_000 }));
    again.outbox.start();
    await again.outbox.idle();
    expect(up.calls).toHaveLength(0);
    clock.advance(30_000);
    await again.outbox.idle();
    expect(up.calls).toEqual([email]);
    expect(await again.outbox.summary(id)).toMatchObject({ state: 'sent', attempts: 2 });
    await again.outbox.stop();
  });

  it('afterAttempt: the pure step from an attempt to the next record', () => {
    const base: OutboxRecord = {
      _id: 'm', purpose: 'invitation', to: 'a@example.org', subject: 's', text: 'body', state: 'pending', attempts: 2,
      due_at: 0, lease_until: 99, last_error: null, response_code: null, created_at: 0, finished_at: null,
    };
    expect(afterAttempt(base, { ok: true }, 10, policy)).toMatchObject({ state: 'sent', text: '', lease_until: 0, finished_at: 10 });
    expect(afterAttempt(base, { ok: false, reason: 'x', responseCode: 421, permanent: false }, 10, policy)).toMatchObject({ state: 'pending', text: 'body', due_at: 10 + 2000, last_error: 'x', response_code: 421 });
    expect(afterAttempt({ ...base, attempts: 3 }, { ok: false, reason: 'x', responseCode: undefined, permanent: false }, 10, policy)).toMatchObject({ state: 'failed', text: '' });
    expect(afterAttempt({ ...base, attempts: 1 }, { ok: false, reason: 'no', responseCode: 550, permanent: true }, 10, policy)).toMatchObject({ state: 'failed', response_code: 550 });
  });
});
