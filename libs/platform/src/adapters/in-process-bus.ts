import {
  BusError,
  type Bus,
  type BusSubscription,
  type Json,
  type MessageHandler,
  type PartHandler,
  type RequestHandler,
} from '../ports/bus';
import { releaseLent } from '../kit/reply-arena';

/**
 * NATS's default `max_payload` (1 MiB). The in-process bus enforces it too, so that a reply
 * that would not fit through NATS fails in embedded mode and in tests, not only once
 * deployed distributed.
 */
export const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/** How long close() waits for running handlers before giving up on them. */
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;

export interface InProcessBusOptions {
  maxPayload?: number;
  /**
   * Replies are copied through JSON by default, as over the wire. A process whose
   * handlers build a fresh reply per request and never touch it again (the embedded
   * server) may hand replies over as they are: a large GET /messages reply would
   * otherwise be serialized and parsed once more for nothing.
   */
  copyReplies?: boolean;
  drainTimeoutMs?: number;
  /** Where handler failures go (they never reach the requester, as over NATS). */
  onHandlerError?: (err: unknown, subject: string) => void;
}

/** A reply as JSON text (copied) or as the handler's own value (handed over). */
type Answer = { json: string } | { value: Json };

/**
 * A request waiting for its first reply, as one object: with a thousand clients
 * long-polling, every request waits for minutes, and closures over the request's scope
 * would keep its payload and recipients alive with it.
 */
class PendingRequest {
  private settled = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pending: Set<PendingRequest>,
    private readonly subject: string,
    timeoutMs: number,
    private readonly resolve: (value: Json) => void,
    private readonly reject: (err: BusError) => void,
    private readonly onPart?: PartHandler,
  ) {
    this.timer = setTimeout(expire, timeoutMs, this, timeoutMs);
    pending.add(this);
  }

  /** For the handler: sends a part ahead of the reply, if the requester takes parts. */
  partSender(): PartHandler | undefined {
    return this.onPart ? (part) => this.part(part) : undefined;
  }

  private part(part: Json): void {
    // After the reply (or the timeout) nobody reads it; borrowed bytes go back.
    if (this.settled) releaseLent(part);
    else this.onPart!(part);
  }

  answer(answer: Answer): void {
    if (!this.settle()) {
      // A late or second reply is dropped; bytes it borrowed from a thread's arena go back.
      if ('value' in answer) releaseLent((answer.value as { json?: unknown } | null)?.json);
      return;
    }
    this.resolve('json' in answer ? (JSON.parse(answer.json) as Json) : answer.value);
  }

  fail(err: BusError): void {
    if (this.settle()) this.reject(err);
  }

  timedOut(timeoutMs: number): void {
    this.fail(new BusError('TIMEOUT', `no reply on ${this.subject} within ${timeoutMs} ms`));
  }

  /** Whether this is the first reply (or failure); later ones are dropped, as over NATS. */
  private settle(): boolean {
    if (this.settled) return false;
    this.settled = true;
    clearTimeout(this.timer);
    this.pending.delete(this);
    return true;
  }
}

function expire(request: PendingRequest, timeoutMs: number): void {
  request.timedOut(timeoutMs);
}

interface Subscription {
  readonly pattern: string;
  /** Set only for patterns with `*` or `>`; exact subjects are found through a Map. */
  readonly tokens: readonly string[] | undefined;
  readonly queueGroup: string | undefined;
  /** A returned promise keeps the bus busy (for close()) until it settles. */
  readonly deliver: (json: string, subject: string, reply: PendingRequest | undefined) => Promise<void> | void;
  active: boolean;
}

const NO_SUBSCRIPTIONS: readonly Subscription[] = [];

/**
 * The bus of the embedded mode. It behaves as NATS core does, so that code that works here
 * works distributed: payloads cross as JSON text (each receiver gets its own copy, Dates
 * arrive as strings, undefined fields vanish), delivery is asynchronous and in publication
 * order, a request goes to every plain subscriber and one member of each queue group and
 * the first reply wins, and NO_RESPONDERS means that no subscription matched at all.
 */
export class InProcessBus implements Bus {
  private readonly exact = new Map<string, readonly Subscription[]>();
  private wildcards: readonly Subscription[] = [];
  private readonly nextMember = new Map<string, number>();
  private readonly pending = new Set<PendingRequest>();
  readonly maxPayload: number;
  private readonly copyReplies: boolean;
  readonly carriesBytes: boolean;
  private readonly drainTimeoutMs: number;
  private readonly onHandlerError: (err: unknown, subject: string) => void;
  private busy = 0;
  private idleWaiters: (() => void)[] = [];
  private closing: Promise<void> | undefined;

  constructor(options: InProcessBusOptions = {}) {
    this.maxPayload = options.maxPayload ?? DEFAULT_MAX_PAYLOAD;
    this.copyReplies = options.copyReplies ?? true;
    this.carriesBytes = !this.copyReplies;
    this.drainTimeoutMs = options.drainTimeoutMs ?? DEFAULT_DRAIN_TIMEOUT_MS;
    this.onHandlerError = options.onHandlerError ?? reportToStderr;
  }

  /** Parts are carried only where replies are handed over as they are (`copyReplies` false). */
  request(subject: string, payload: Json, timeoutMs: number, onPart?: PartHandler): Promise<Json> {
    if (this.closing) return Promise.reject(closedError());
    let json: string;
    try {
      json = this.encode(payload);
    } catch (err) {
      return Promise.reject(err);
    }
    const recipients = this.recipients(subject);
    if (recipients.length === 0) {
      return Promise.reject(new BusError('NO_RESPONDERS', `no responders for ${subject}`));
    }
    return new Promise<Json>((resolve, reject) => {
      const request = new PendingRequest(this.pending, subject, timeoutMs, resolve, reject, this.copyReplies ? undefined : onPart);
      for (const sub of recipients) this.dispatch(sub, json, subject, request);
    });
  }

  serve(subject: string, handler: RequestHandler, queueGroup?: string): Promise<BusSubscription> {
    return this.add(subject, queueGroup, async (json, actual, reply) => {
      try {
        const result = await handler(JSON.parse(json) as Json, actual, reply?.partSender());
        // A publication on a served subject runs the handler with nobody to reply to, as on NATS.
        reply?.answer(this.copyReplies ? { json: this.encode(result) } : { value: result });
      } catch (err) {
        // As over NATS: the requester is not told and times out.
        this.onHandlerError(err, actual);
      }
    });
  }

  publish(subject: string, payload: Json): void {
    if (this.closing) throw closedError();
    const json = this.encode(payload);
    for (const sub of this.recipients(subject)) this.dispatch(sub, json, subject, undefined);
  }

  subscribe(subject: string, handler: MessageHandler, queueGroup?: string): Promise<BusSubscription> {
    return this.add(subject, queueGroup, (json, actual) => {
      try {
        handler(JSON.parse(json) as Json, actual);
      } catch (err) {
        this.onHandlerError(err, actual);
      }
    });
  }

  flush(): Promise<void> {
    return this.closing ? Promise.reject(closedError()) : Promise.resolve();
  }

  /**
   * Refuses new work at once, then waits (up to the drain timeout) for deliveries already
   * queued and handlers already running, so that their replies still reach their requesters.
   * Requests still unanswered after that are rejected with CLOSED.
   */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      this.idle(),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.drainTimeoutMs);
      }),
    ]);
    clearTimeout(timer);
    for (const subs of this.exact.values()) for (const sub of subs) sub.active = false;
    for (const sub of this.wildcards) sub.active = false;
    this.exact.clear();
    this.wildcards = [];
    for (const request of [...this.pending]) request.fail(closedError());
  }

  private idle(): Promise<void> {
    if (this.busy === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private readonly done = (): void => {
    if (--this.busy > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const wake of waiters) wake();
  };

  private dispatch(sub: Subscription, json: string, subject: string, reply: PendingRequest | undefined): void {
    this.busy++;
    queueMicrotask(() => {
      // Unsubscribed between publication and delivery: NATS would not deliver either.
      const running = sub.active ? sub.deliver(json, subject, reply) : undefined;
      if (running) void running.then(this.done);
      else this.done();
    });
  }

  /** Every plain subscriber, plus one member (in turn) of each queue group. */
  private recipients(subject: string): readonly Subscription[] {
    const matched = this.match(subject);
    if (matched.length <= 1) return matched;
    const chosen: Subscription[] = [];
    let groups: Map<string, Subscription[]> | undefined;
    for (const sub of matched) {
      if (sub.queueGroup === undefined) {
        chosen.push(sub);
        continue;
      }
      groups ??= new Map();
      const members = groups.get(sub.queueGroup);
      if (members) members.push(sub);
      else groups.set(sub.queueGroup, [sub]);
    }
    if (groups) {
      for (const [group, members] of groups) {
        const turn = this.nextMember.get(group) ?? 0;
        this.nextMember.set(group, turn + 1);
        chosen.push(members[turn % members.length]);
      }
    }
    return chosen;
  }

  private match(subject: string): readonly Subscription[] {
    const exact = this.exact.get(subject) ?? NO_SUBSCRIPTIONS;
    if (this.wildcards.length === 0) return exact;
    const tokens = subject.split('.');
    const matched = [...exact];
    for (const sub of this.wildcards) if (matchesTokens(sub.tokens!, tokens)) matched.push(sub);
    return matched;
  }

  private add(
    pattern: string,
    queueGroup: string | undefined,
    deliver: Subscription['deliver'],
  ): Promise<BusSubscription> {
    if (this.closing) return Promise.reject(closedError());
    const tokens = pattern.split('.');
    if (tokens.some((t, i) => t === '' || (t === '>' && i !== tokens.length - 1))) {
      return Promise.reject(new Error(`invalid subject pattern: ${pattern}`));
    }
    const wildcard = tokens.some((t) => t === '*' || t === '>');
    const sub: Subscription = { pattern, tokens: wildcard ? tokens : undefined, queueGroup, deliver, active: true };
    // Lists are replaced, never mutated, so a list being iterated is never changed under it.
    if (wildcard) this.wildcards = [...this.wildcards, sub];
    else this.exact.set(pattern, [...(this.exact.get(pattern) ?? NO_SUBSCRIPTIONS), sub]);
    return Promise.resolve({ unsubscribe: () => this.remove(sub) });
  }

  private remove(sub: Subscription): Promise<void> {
    if (!sub.active) return Promise.resolve();
    sub.active = false;
    if (sub.tokens) {
      this.wildcards = this.wildcards.filter((s) => s !== sub);
    } else {
      const rest = (this.exact.get(sub.pattern) ?? NO_SUBSCRIPTIONS).filter((s) => s !== sub);
      if (rest.length > 0) this.exact.set(sub.pattern, rest);
      else this.exact.delete(sub.pattern);
    }
    return Promise.resolve();
  }

  private encode(value: Json): string {
    // JSON.stringify(undefined) is undefined; the wire has no such value, only null.
    const json = JSON.stringify(value) ?? 'null';
    // UTF-8 never takes fewer bytes than UTF-16 code units, nor more than three per unit,
    // so the byte count is only needed near the limit.
    if (json.length * 3 > this.maxPayload && Buffer.byteLength(json) > this.maxPayload) {
      throw Object.assign(new Error(`payload exceeds the ${this.maxPayload}-byte maximum`), {
        // The code nats.js gives the same failure.
        code: 'MAX_PAYLOAD_EXCEEDED',
      });
    }
    return json;
  }
}

/** NATS subject matching: `*` is any one token, a final `>` is one or more tokens. */
function matchesTokens(pattern: readonly string[], subject: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const token = pattern[i];
    if (token === '>') return subject.length > i;
    if (i >= subject.length || (token !== '*' && token !== subject[i])) return false;
  }
  return pattern.length === subject.length;
}

function closedError(): BusError {
  return new BusError('CLOSED', 'the bus is closed');
}

function reportToStderr(err: unknown, subject: string): void {
  console.error(`bus handler on ${subject} failed:`, err);
}
