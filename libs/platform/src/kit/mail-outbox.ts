/**
 * The durable mail outbox: what a request wants mailed is stored here once its facts are
 * stored, and a background sender delivers it, so that no request waits on a mail server
 * and none is half applied because one is down, slow or refusing. The request's change
 * stays; the mail is `pending` until it is `sent` or, after its attempts, `failed`.
 *
 * Where: a collection of the service's own read-model store (SQLite in the embedded mode,
 * MongoDB or the instance's SQLite file in the distributed one). Each instance has its
 * own store, so a mail belongs to the instance that queued it and only that instance
 * sends it: no two instances race for one. Inside the process an attempt first claims its
 * record (a lease, written before the send), so the sender and a request's first attempt
 * never send one mail twice, and a process that dies mid-attempt leaves a lease that
 * expires: the next start tries again. Delivery is at least once: a crash between the
 * server's acceptance and the record's update sends the mail again after a restart.
 *
 * The body may hold a credential (an invitation link, an email-change key): it is on disk
 * only while the mail is pending, blanked once it is sent or given up, and never logged;
 * the record keeps the recipient, the subject, the attempts and the last error.
 *
 * Gaps taken knowingly: the record is written after the facts, not with them (the event
 * store and the read models are different engines), so a crash in between loses the mail
 * but never the change; and rebuilding the read models from scratch drops pending mail.
 */
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { Mailer, OutgoingEmail } from '../ports/mailer';
import type { Collection, Doc, ReadModelStore } from '../ports/read-models';

export type MailState = 'pending' | 'sent' | 'failed';

/** What an operator sees of a queued mail: everything but its body. */
export interface OutboxSummary {
  _id: string;
  /** What the mail is for (`invitation`, `email_change`, `welcome`): for operators and logs. */
  purpose: string;
  to: string;
  subject: string;
  state: MailState;
  /** Attempts started so far. */
  attempts: number;
  /** While pending: when the next attempt is due (ms since the epoch). */
  due_at: number;
  /** An attempt under way holds the record until then (ms since the epoch; 0: free). */
  lease_until: number;
  /** The last failed attempt's reason (the server's answer, never the body). */
  last_error: string | null;
  /** The SMTP reply code of the last failed attempt, when the server answered. */
  response_code: number | null;
  created_at: number;
  /** When it was sent or given up. */
  finished_at: number | null;
}

/** One queued mail, as stored. */
export interface OutboxRecord extends OutboxSummary, Doc {
  _id: string;
  /** The body: blanked once the mail is sent or given up (it may hold a link's key). */
  text: string;
  html?: string;
}

export interface MailRetryPolicy {
  /** Attempts in all before a mail is given up (at least 1). */
  attempts: number;
  /** The wait before the second attempt; each later wait is twice the one before. */
  retryDelayMs: number;
  /** The longest an attempt may take before it counts as failed (the transport has its own timeouts too). */
  attemptTimeoutMs: number;
}

/** How one attempt ended. */
export type AttemptOutcome =
  | { ok: true }
  | { ok: false; reason: string; responseCode: number | undefined; permanent: boolean };

/**
 * The record after an attempt (pure): sent; failed for good (a permanent refusal, or no
 * attempt left); or pending again after a wait that doubles with each attempt. A finished
 * record loses its body.
 */
export function afterAttempt(record: OutboxRecord, outcome: AttemptOutcome, now: number, policy: MailRetryPolicy): OutboxRecord {
  const { text: _text, html: _html, ...rest } = record;
  const finished = { ...rest, text: '', lease_until: 0, finished_at: now };
  if (outcome.ok) return { ...finished, state: 'sent' };
  const failure = { last_error: outcome.reason, response_code: outcome.responseCode ?? null };
  if (outcome.permanent || record.attempts >= policy.attempts) return { ...finished, ...failure, state: 'failed' };
  return { ...record, ...failure, state: 'pending', lease_until: 0, due_at: now + policy.retryDelayMs * 2 ** (record.attempts - 1) };
}

/** Whether a record may be attempted now: pending, due, and not held by an attempt under way. */
export function isDue(record: OutboxRecord, now: number): boolean {
  return record.state === 'pending' && record.due_at <= now && record.lease_until <= now;
}

export interface OutboxClock {
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const systemClock: OutboxClock = {
  now: () => Date.now(),
  setTimeout: (run, ms) => {
    const timer = setTimeout(run, ms);
    // A pending retry alone must not keep a process (or a test) alive.
    timer.unref();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface MailOutboxOptions {
  store: ReadModelStore;
  /** One attempt per call (createMailer's transports); the outbox does the retrying. */
  transport: Mailer;
  policy: MailRetryPolicy;
  log: Logger;
  /**
   * Whether `enqueue` waits for the first attempt: for the development file transport,
   * whose delivery is a local write, so that /emails (and a test) shows the mail as soon
   * as the request is answered. Never for SMTP: a request does not wait on a mail server.
   */
  awaitFirstAttempt?: boolean;
  clock?: OutboxClock;
  /** Attempts under way at once (default 4). */
  concurrency?: number;
  /** The collection's name (default `mail_outbox`). */
  collection?: string;
}

export interface MailReceipt {
  id: string;
  /** `pending` unless the first attempt was waited for (awaitFirstAttempt). */
  state: MailState;
}

/** The queue handlers mail through: `enqueue` resolves once the mail is stored, not delivered. */
export interface MailQueue {
  enqueue(email: OutgoingEmail, purpose: string): Promise<MailReceipt>;
}

/** What a failed send says, in a line without secrets (transports redact their password). */
function outcomeOf(err: unknown): AttemptOutcome {
  const failure = err as { message?: string; responseCode?: unknown; permanent?: unknown };
  const responseCode = typeof failure?.responseCode === 'number' ? failure.responseCode : undefined;
  const permanent = failure?.permanent === true || (responseCode !== undefined && responseCode >= 500);
  const reason = String(failure?.message ?? err).slice(0, 500);
  return { ok: false, reason, responseCode, permanent };
}

class AttemptTimeout extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

export class MailOutbox implements MailQueue {
  private readonly records: Collection<OutboxRecord>;
  private readonly clock: OutboxClock;
  private readonly concurrency: number;
  /** Ids with an attempt under way in this process. */
  private readonly inFlight = new Map<string, Promise<MailState>>();
  private timer: unknown;
  private timerDue = Number.POSITIVE_INFINITY;
  private scanning: Promise<void> | undefined;
  private rescan = false;
  private started = false;
  private stopped = false;

  constructor(private readonly options: MailOutboxOptions) {
    this.records = options.store.collection<OutboxRecord>(options.collection ?? 'mail_outbox', [{ fields: ['state', 'due_at'] }]);
    this.clock = options.clock ?? systemClock;
    this.concurrency = Math.max(1, options.concurrency ?? 4);
  }

  /** Starts the sender: mail left pending by an earlier run is tried again now. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.wake();
  }

  /**
   * Stops sending. Attempts under way get `graceMs` to finish; one still running then is
   * abandoned (its lease expires and the next start tries it again).
   */
  async stop(graceMs = 2000): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const running = Promise.allSettled([...this.inFlight.values(), this.scanning]);
    let grace: NodeJS.Timeout | undefined;
    await Promise.race([running, new Promise((resolve) => (grace = setTimeout(resolve, graceMs)))]);
    clearTimeout(grace);
  }

  /**
   * Stores the mail as pending (committed before this resolves) and starts its first
   * attempt. Call it after the request's facts are stored: a refused request mails nothing.
   */
  async enqueue(email: OutgoingEmail, purpose: string): Promise<MailReceipt> {
    const now = this.clock.now();
    const record: OutboxRecord = {
      _id: `${now.toString(36)}-${randomBytes(6).toString('hex')}`,
      purpose,
      to: email.to,
      subject: email.subject,
      text: email.text,
      ...(email.html === undefined ? {} : { html: email.html }),
      state: 'pending',
      attempts: 0,
      due_at: now,
      lease_until: 0,
      last_error: null,
      response_code: null,
      created_at: now,
      finished_at: null,
    };
    await this.options.store.batch(() => this.records.put(record));
    await this.options.store.durable();
    this.options.log.info({ mail_id: record._id, purpose, to: record.to }, 'email queued');
    if (this.stopped || !this.started) return { id: record._id, state: 'pending' };
    const first = this.attempt(record._id);
    if (this.options.awaitFirstAttempt) return { id: record._id, state: await first };
    return { id: record._id, state: 'pending' };
  }

  /** A record without its body, for operators and tests. */
  async summary(id: string): Promise<OutboxSummary | undefined> {
    const record = await this.records.get(id);
    return record && withoutBody(record);
  }

  /** The newest records (at most `limit`), newest first, optionally of one state. */
  async list(options: { state?: MailState; limit?: number } = {}): Promise<OutboxSummary[]> {
    const records = await this.records.find(options.state ? { state: options.state } : {});
    return records
      .sort((a, b) => b.created_at - a.created_at || (a._id < b._id ? 1 : -1))
      .slice(0, options.limit ?? 100)
      .map(withoutBody);
  }

  /** Resolves once no attempt is under way and none is due now (for tests and a clean stop). */
  async idle(): Promise<void> {
    for (;;) {
      await Promise.allSettled([...this.inFlight.values(), this.scanning]);
      if (this.inFlight.size === 0 && this.scanning === undefined) return;
    }
  }

  /** One attempt at a record, unless it is not due or another attempt holds it. */
  private attempt(id: string): Promise<MailState> {
    const running = this.inFlight.get(id);
    if (running) return running;
    const attempt = this.attemptOnce(id).finally(() => {
      this.inFlight.delete(id);
      this.wake();
    });
    this.inFlight.set(id, attempt);
    return attempt;
  }

  private async attemptOnce(id: string): Promise<MailState> {
    const { policy, log } = this.options;
    let claimed: OutboxRecord | undefined;
    try {
      // The claim is written before the send: a crash mid-send leaves a lease that expires.
      claimed = await this.options.store.batch(async () => {
        const current = await this.records.get(id);
        if (!current || !isDue(current, this.clock.now())) return undefined;
        const lease = { ...current, attempts: current.attempts + 1, lease_until: this.clock.now() + policy.attemptTimeoutMs * 2 + 5000 };
        await this.records.put(lease);
        return lease;
      });
    } catch (err) {
      log.warn({ mail_id: id, reason: (err as Error).message }, 'email outbox unreadable; trying again later');
      return 'pending';
    }
    if (!claimed) return (await this.records.get(id).catch(() => undefined))?.state ?? 'pending';
    const outcome = await this.send(claimed);
    const next = afterAttempt(claimed, outcome, this.clock.now(), policy);
    const about = { mail_id: id, purpose: claimed.purpose, to: claimed.to, subject: claimed.subject, attempts: claimed.attempts };
    if (next.state === 'sent') log.info(about, 'email sent');
    else if (next.state === 'failed') log.error({ ...about, reason: next.last_error, responseCode: next.response_code ?? undefined }, 'email could not be delivered; given up');
    else log.warn({ ...about, reason: next.last_error, responseCode: next.response_code ?? undefined, retryInMs: next.due_at - this.clock.now() }, 'email not delivered; trying again');
    try {
      await this.options.store.batch(() => this.records.put(next));
    } catch (err) {
      // Stopped, or the store is failing: the lease expires and the mail is tried again.
      log.warn({ mail_id: id, reason: (err as Error).message }, 'email outcome not recorded');
    }
    return next.state;
  }

  private async send(record: OutboxRecord): Promise<AttemptOutcome> {
    const { transport, policy } = this.options;
    let timer: unknown;
    try {
      const email: OutgoingEmail = { to: record.to, subject: record.subject, text: record.text, ...(record.html === undefined ? {} : { html: record.html }) };
      await Promise.race([
        transport.send(email),
        new Promise<never>((_, reject) => (timer = this.clock.setTimeout(() => reject(new AttemptTimeout(policy.attemptTimeoutMs)), policy.attemptTimeoutMs))),
      ]);
      return { ok: true };
    } catch (err) {
      return outcomeOf(err);
    } finally {
      this.clock.clearTimeout(timer);
    }
  }

  /** Looks for due records, starts what it may, and sets a timer for the next one due. */
  private wake(): void {
    if (!this.started || this.stopped) return;
    if (this.scanning) {
      this.rescan = true;
      return;
    }
    this.scanning = this.scan()
      .catch((err: unknown) => {
        this.options.log.warn({ reason: (err as Error).message }, 'email outbox unreadable; trying again later');
        this.arm(this.clock.now() + Math.max(1000, this.options.policy.retryDelayMs));
      })
      .finally(() => {
        this.scanning = undefined;
        if (this.rescan) {
          this.rescan = false;
          this.wake();
        }
      });
  }

  private async scan(): Promise<void> {
    const pending = await this.records.find({ state: 'pending' }, { sort: ['due_at', 1], limit: 200 });
    const now = this.clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const record of pending) {
      if (this.inFlight.has(record._id)) continue;
      if (isDue(record, now) && this.inFlight.size < this.concurrency) void this.attempt(record._id);
      else next = Math.min(next, Math.max(record.due_at, record.lease_until, now + (isDue(record, now) ? 50 : 0)));
    }
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
  }

  private arm(at: number): void {
    if (this.stopped) return;
    if (this.timer !== undefined && this.timerDue <= at) return;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timerDue = at;
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined;
      this.timerDue = Number.POSITIVE_INFINITY;
      this.wake();
    }, Math.max(0, at - this.clock.now()));
  }
}

function withoutBody(record: OutboxRecord): OutboxSummary {
  const { text: _text, html: _html, ...rest } = record;
  return rest as OutboxSummary;
}
