/**
 * Delivers scheduled messages and reminders when they are due. Every messaging instance
 * runs one: it scans its own read model for due ones and tries to claim each on its
 * stream (domain/scheduled-messages.ts, decideClaim); the claim's exact expected revision
 * lets exactly one instance win, and the others find it taken. The winner sends through
 * the normal send path as the sender stands now (their role, their subscriptions, the
 * channel's settings), into the message stream its claim named, then records the
 * delivery; a refusal is recorded as the scheduled message's failure and the sender told.
 *
 * A crash between claim and record leaves the claim standing: after its lease any instance
 * takes it up again with the same message stream, which the store creates at most once, so
 * the message is stored once and the delivery is recorded with its id.
 *
 * When to scan: at the time the earliest one falls due (the read model's `nextDue`), and at
 * once when this instance's projection records a new or moved one (`wake`), which may be
 * due sooner. Scanning every 100 ms, as before, was most of an idle embedded server's CPU
 * (about 0.4 ms a scan) and delivered up to 100 ms late. A scan at least every
 * `idleScanMs` remains, in case a wake-up is missed.
 */
import { ApiError, badRequest, isApiError, streams, type Actor, type ScheduledSnapshot } from '@teamchat/contracts';
import { isWrongExpectedRevision, newId, type EventStore } from '@teamchat/platform';
import type { Logger } from 'pino';
import {
  decideClaim,
  decideDelivered,
  decideFailed,
  decideNotificationDirectMessage,
  DELIVERY_LEASE_MS,
  failureNotice,
  notificationKey,
  reminderContent,
  tooLate,
} from '../domain/scheduled-messages';
import type { ScheduledDoc } from '../projections/scheduled-messages';
import { accessibleMessage, type AccessDeps } from '../queries/access';
import { remindedMessage, type ScheduledDeps } from './scheduled-messages';
import { recipientIdFor, sendMessage } from './send-message';

export interface DeliveryDeps extends ScheduledDeps, AccessDeps {
  store: EventStore;
  log: Logger;
  /** What a sent message does after it is stored (the files it links are claimed), as for POST /messages. */
  afterSend?: (message: { id: number; sender_id: number; content: string; date_sent: number }) => Promise<unknown>;
}

export interface DeliveryOptions {
  /** The longest wait between two scans. */
  idleScanMs: number;
  /**
   * The wait before looking again at due ones this instance could not take (another
   * instance holds them until its facts reach our read model): no busy loop on them.
   */
  retryMs: number;
  /** Deliveries in flight at once. */
  concurrency: number;
}

export class ScheduledDelivery {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  /** A wake-up came during a scan: scan again right after it. */
  private wokenWhileRunning = false;
  private stopped = false;

  constructor(
    private readonly deps: DeliveryDeps,
    private readonly options: DeliveryOptions = { idleScanMs: 1000, retryMs: 100, concurrency: 16 },
  ) {}

  private now(): number {
    return (this.deps.now ?? Date.now)();
  }

  start(): void {
    this.scanIn(0);
  }

  /** A scheduled message was created or moved: it may be due before the planned scan. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.wokenWhileRunning = true;
    else this.scanIn(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private scanIn(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.tick(), ms);
  }

  private tick(): void {
    if (this.stopped) return;
    this.wokenWhileRunning = false;
    this.running = this.scan()
      .then(() => this.untilNextScan())
      .catch((err: unknown) => {
        this.deps.log.error({ err }, 'scheduled delivery scan failed');
        return this.options.retryMs;
      })
      .then((wait) => {
        this.running = undefined;
        if (!this.stopped) this.scanIn(this.wokenWhileRunning ? 0 : wait);
      });
  }

  /** Until the earliest one falls due (or its claim's lease ends), within `idleScanMs`. */
  private async untilNextScan(): Promise<number> {
    const next = await this.deps.scheduledModel.nextDue(DELIVERY_LEASE_MS);
    if (next === undefined) return this.options.idleScanMs;
    const wait = next - this.now();
    // Still due after a scan: held by another instance, or failed to deliver.
    if (wait <= 0) return this.options.retryMs;
    return Math.min(wait, this.options.idleScanMs);
  }

  /** One pass: every due scheduled message, a few at a time, until none is left. */
  async scan(): Promise<void> {
    for (;;) {
      const now = this.now();
      const due = await this.deps.scheduledModel.due(Math.floor(now / 1000), now - DELIVERY_LEASE_MS, 500);
      if (due.length === 0 || this.stopped) return;
      let next = 0;
      let progressed = false;
      const worker = async () => {
        while (next < due.length && !this.stopped) {
          const doc = due[next++]!;
          if (await this.deliver(doc)) progressed = true;
        }
      };
      await Promise.all(Array.from({ length: this.options.concurrency }, worker));
      // What another instance holds stays in our read model until its facts arrive: no busy loop on it.
      if (!progressed) return;
    }
  }

  /** Claims and delivers one; false when another attempt holds it or it is not due after all. */
  async deliver(doc: ScheduledDoc): Promise<boolean> {
    const ref = { scheduled_message_id: doc._id, user_id: doc.user_id, kind: doc.kind };
    const { result: claim } = await this.deps.scheduledStreams.execute(doc.stream, (state) =>
      decideClaim(state, { ...ref, now: this.now(), message_stream: streams.message(newId()) }),
    );
    if (!claim.claimed) return false;
    let outcome: { message_id: number } | { failure: string };
    try {
      outcome = { message_id: await this.send(claim.scheduled, claim.message_stream) };
    } catch (err) {
      if (!isApiError(err)) {
        // Not a refusal (the store or the bus failed): the claim stands, and its lease lets a later attempt retry.
        this.deps.log.error({ err, scheduled_message_id: doc._id }, 'scheduled delivery failed; retried after the lease');
        return false;
      }
      outcome = { failure: err.msg };
    }
    if ('message_id' in outcome) {
      await this.deps.scheduledStreams.execute(doc.stream, (state) => ({ facts: decideDelivered(state, { ...ref, message_id: outcome.message_id }), result: undefined }));
      // A scheduled message's files are claimed by the message it became, so that its
      // readers may download them (reminders are the notification bot's, linking none of the user's).
      if (claim.scheduled.kind === 'scheduled' && this.deps.afterSend) {
        const sent = { id: outcome.message_id, sender_id: claim.scheduled.user_id, content: claim.scheduled.content, date_sent: Math.floor(this.now() / 1000) };
        await this.deps.afterSend(sent).catch((err: unknown) => this.deps.log.error({ err, scheduled_message_id: doc._id }, 'files of a delivered scheduled message not claimed'));
      }
      return true;
    }
    const failure = outcome.failure;
    await this.deps.scheduledStreams.execute(doc.stream, (state) => ({ facts: decideFailed(state, { ...ref, failure_message: failure }), result: undefined }));
    this.deps.log.info({ scheduled_message_id: doc._id, failure }, 'scheduled message not sent');
    if (claim.scheduled.kind === 'scheduled') await this.tellSender(claim.scheduled, failure).catch((err: unknown) => this.deps.log.error({ err }, 'failure notice not sent'));
    return true;
  }

  /** Stores the message in `messageStream`; when an earlier attempt already did, its id. */
  private async send(s: ScheduledSnapshot, messageStream: string): Promise<number> {
    const existing = await this.deps.store.readStream(messageStream);
    if (existing.length > 0) return existing[0]!.position;
    try {
      return s.kind === 'reminder' ? await this.sendReminder(s, messageStream) : await this.sendScheduled(s, messageStream);
    } catch (err) {
      if (!isWrongExpectedRevision(err)) throw err;
      const stored = await this.deps.store.readStream(messageStream);
      if (stored.length === 0) throw err;
      return stored[0]!.position;
    }
  }

  /** The sender as they stand now; a deactivated one sends nothing. */
  private async actorOf(s: ScheduledSnapshot): Promise<Actor> {
    const user = await this.deps.directory.userById(s.user_id);
    if (!user || !user.is_active) throw new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401);
    return { user_id: user._id, email: user.email, full_name: user.full_name, role: user.role, is_bot: user.is_bot, client: s.client };
  }

  private async sendScheduled(s: ScheduledSnapshot, messageStream: string): Promise<number> {
    const late = tooLate(s, this.now());
    if (late) throw badRequest(late);
    const actor = await this.actorOf(s);
    const params =
      s.recipient.type === 'channel'
        ? { type: 'channel' as const, to: s.recipient.channel_id, topic: s.recipient.topic, content: s.content }
        : { type: 'direct' as const, to: s.recipient.user_ids, content: s.content };
    const { id } = await sendMessage(this.deps, actor, { ...params, ...(s.read_by_sender === null ? {} : { read_by_sender: s.read_by_sender }) }, messageStream);
    return id;
  }

  private async sendReminder(s: ScheduledSnapshot, messageStream: string): Promise<number> {
    const actor = await this.actorOf(s);
    let content = s.content;
    try {
      // The message as it reads now, if the user may still see it; else as it read when the reminder was set.
      const { message } = await accessibleMessage(this.deps, actor, s.reminder_target_message_id ?? 0);
      content = reminderContent(remindedMessage(message), s.reminder_note ?? null, this.deps.realmUri);
    } catch (err) {
      if (!isApiError(err)) throw err;
    }
    return this.notify(actor, content, messageStream);
  }

  private async tellSender(s: ScheduledSnapshot, failure: string): Promise<void> {
    const user = await this.deps.directory.userById(s.user_id);
    if (!user || !user.is_active) return;
    await this.notify({ user_id: user._id, email: user.email, full_name: user.full_name }, failureNotice(s, failure), streams.message(newId()));
  }

  private async notify(user: Pick<Actor, 'user_id' | 'email' | 'full_name'>, content: string, messageStream: string): Promise<number> {
    const rendered = await this.deps.renderer.render(content, { sender_id: user.user_id, recipient_user_ids: [user.user_id], topic_participant_ids: [], preview: true });
    const fact = decideNotificationDirectMessage({
      user: { id: user.user_id, email: user.email, full_name: user.full_name },
      content,
      rendered_content: rendered.html,
      recipient_id: await recipientIdFor(this.deps, notificationKey(user.user_id)),
      now: this.now(),
    });
    const { positions } = await this.deps.messages.create(messageStream, [fact]);
    return positions[0]!;
  }
}
