/** What the fan-out hands the queues: recipients, and the event each queue sees. */
import type { ClientEvent, NamedAudience } from '@teamchat/contracts';
import type { QueueOptions } from '../domain/event-queue';
import type { Roster } from './roster';

export interface Delivery {
  user_ids: number[];
  /**
   * A named audience (audiences.ts): besides `user_ids`, every user with a queue for whom
   * this holds. The registry asks it for each user it has queues of, so the delivery costs
   * what the queues do, not what the organization's size does.
   */
  everyone?: (userId: number) => boolean;
  /**
   * The event as this queue should see it (formats and echo ids differ per queue), or
   * null when the queue's narrow leaves it out.
   */
  eventFor: (queue: { readonly id: string; readonly options: QueueOptions }) => ClientEvent | null;
}

/** Who a delivery goes to: listed users, and a named audience's resolution. */
export type Recipients = Pick<Delivery, 'user_ids' | 'everyone'>;

/** The same event for every queue (no per-queue format, narrow or echo). */
export const same = (event: ClientEvent): Delivery['eventFor'] => () => event;

/**
 * The recipients a fact records: its named audience (and `also`, e.g. the person it is
 * about, active or not), or the list stored before audiences were named; undefined when
 * there is nobody (facts stored before they carried audiences).
 */
export function factRecipients(
  fact: { audience?: NamedAudience | undefined; audience_user_ids?: number[] | undefined },
  roster: Roster | undefined,
  also: number[] = [],
): Recipients | undefined {
  if (fact.audience === 'active_users') return { user_ids: also, everyone: roster ? (id) => roster.isActive(id) : () => true };
  return fact.audience_user_ids?.length ? { user_ids: fact.audience_user_ids } : undefined;
}

/** Whether `userId` is among the recipients. */
export const reaches = (recipients: Recipients | undefined, userId: number): boolean =>
  recipients !== undefined && (recipients.user_ids.includes(userId) || (recipients.everyone?.(userId) ?? false));

/** What a fan-out case needs to resolve a named audience (FanOutContext has it). */
export interface AudienceContext {
  /** Absent (tests): every user with a queue is taken as active. */
  roster?: Roster | undefined;
}

/**
 * A fact told to the whole organization (contracts' OrganizationAudience), as one
 * delivery: to every active user when named, to its list when stored before.
 */
export function toOrganization(
  fact: { audience?: NamedAudience | undefined; audience_user_ids?: number[] | undefined },
  ctx: AudienceContext,
  eventFor: Delivery['eventFor'],
): Delivery[] {
  return [{ ...(factRecipients(fact, ctx.roster) ?? { user_ids: [] }), eventFor }];
}
