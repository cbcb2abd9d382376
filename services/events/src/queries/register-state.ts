/**
 * POST /register with its initial state. The queue is created at the fan-out's position P,
 * each owner of a requested section answers from its read models at its position Ps >= P
 * (the request carries `after: P`), and the queue then leaves out the events of that
 * owner's types up to Ps: every change is in the state or in the queue, never both,
 * never neither.
 */
import {
  endpoints,
  EVENT_TYPE_OWNERS,
  wantsState,
  ZULIP_VERSION,
  type AccountsState,
  type Actor,
  type ChannelsState,
  type MessagingState,
  type PresencesReply,
  type RegisterParams,
  type SerializedMembers,
  type ServiceName,
  type StateParams,
} from '@teamchat/contracts';
import { callContract, isPieces, releaseLent, type Bus } from '@teamchat/platform';
import type { Cutoffs } from '../domain/state-cutoffs';
import type { QueueRegistry } from './queues';

export interface RegisterDeps {
  bus: Bus;
  queues: Pick<QueueRegistry, 'register' | 'holdForState' | 'releaseWithState' | 'delete'>;
  /** The fan-out's projector: a snapshot there is a point between two facts' deliveries. */
  fanOut: { snapshot<T>(read: () => T | Promise<T>): Promise<{ value: T; position: number }> };
  /**
   * The presence section, which this service keeps itself (ephemeral, not facts): read
   * after the queue exists, so a change in between reaches both, which presence, a
   * latest-value-wins record, tolerates.
   */
  presences?: (options: { slim: boolean; history_limit_days?: number }) => Promise<PresencesReply>;
  /**
   * Check the owners' sections against their contracts (ServerConfig.checkReplies, as the
   * gateway does): off by default, since at 10,000 users that costs a quarter of a
   * registration (about 27 ms of 150, checking every user's and channel's object).
   */
  checkReplies?: boolean;
}

type OwnerName = Exclude<ServiceName, 'events'>;
const OWNERS: readonly OwnerName[] = ['accounts', 'channels', 'messaging'];

/** The event types whose sections each owner builds (the rest are filled here, empty). */
export const typesOwnedBy = (owner: OwnerName): string[] =>
  Object.entries(EVENT_TYPE_OWNERS)
    .filter(([, o]) => o === owner)
    .map(([type]) => type);

/**
 * Zulip's rule: without fetch_event_types, the state follows event_types; without either,
 * everything. A type this server does not know is ignored, as Zulip ignores it: a newer
 * client names types an older server lacks (zulip-terminal even asks for `zulip_version`)
 * and must still start; such a type matches no section and no event.
 */
export function stateParamsOf(params: RegisterParams): StateParams {
  return {
    fetch_event_types: params.fetch_event_types ?? params.event_types ?? null,
    include_subscribers: params.include_subscribers ?? false,
    client_gravatar: params.client_gravatar ?? true,
    archived_channels: params.client_capabilities?.archived_channels === true,
    ...(params.client_capabilities?.include_deactivated_groups === true ? { include_deactivated_groups: true } : {}),
  };
}

/** Which owners to ask: those owning at least one wanted section. */
export const ownersToAsk = (state: StateParams): OwnerName[] =>
  OWNERS.filter((owner) => typesOwnedBy(owner).some((type) => wantsState(state, type)));

/**
 * Per client event type, the position up to which the state holds its changes: only for
 * types whose section was fetched (events of other types all go to the queue).
 */
export function cutoffsOf(state: StateParams, positions: ReadonlyMap<OwnerName, number>): Cutoffs {
  const cutoffs = new Map<string, number>();
  for (const [owner, position] of positions) {
    for (const type of typesOwnedBy(owner)) if (wantsState(state, type)) cutoffs.set(type, position);
  }
  return cutoffs;
}

/** Sections of features not built yet: present, empty and of their type, as clients expect. */
export function unbuiltSections(state: StateParams) {
  const want = (type: string) => wantsState(state, type);
  return {
    ...(want('presence') ? { presences: {}, server_timestamp: Date.now() / 1000, presence_last_update_id: -1 } : {}),
    ...(want('default_stream_groups') ? { realm_default_stream_groups: [] } : {}),
    ...(want('onboarding_steps') ? { onboarding_steps: [] } : {}),
    ...(want('has_zoom_token') ? { has_zoom_token: false } : {}),
  };
}

/**
 * The personal settings, only as `user_settings`, whatever `user_settings_object` says:
 * Zulip gave clients without that capability top-level copies (and the
 * `update_display_settings` / `update_global_notifications` events) until feature level
 * 439, and at the level this server claims the capability has no effect.
 */
function settingsSection(state: StateParams, settings: AccountsState['user_settings']) {
  return settings && wantsState(state, 'user_settings') ? { user_settings: settings } : {};
}

/**
 * Linkifiers as the client can read them (linkifier-fan-out.ts): the list only for a
 * client with the `linkifier_url_template` capability, and the legacy `realm_filters`
 * always empty, as Zulip answers since feature level 176.
 */
export function linkifierSections(params: RegisterParams, sections: Pick<AccountsState, 'realm_linkifiers' | 'realm_filters'>) {
  return {
    ...(sections.realm_linkifiers && params.client_capabilities?.linkifier_url_template !== true ? { realm_linkifiers: [] } : {}),
    ...(sections.realm_filters ? { realm_filters: [] } : {}),
  };
}

/** Each channel's notification setting and the user's default it falls back to when null. */
const STREAM_NOTIFICATION_DEFAULTS = {
  desktop_notifications: 'enable_stream_desktop_notifications',
  audible_notifications: 'enable_stream_audible_notifications',
  push_notifications: 'enable_stream_push_notifications',
  email_notifications: 'enable_stream_email_notifications',
} as const;

/** Whether the subscriptions are wanted in the form before Zulip 2.1 (no nulls). */
export const wantsNotificationDefaults = (state: StateParams, params: RegisterParams): boolean =>
  params.client_capabilities?.notification_settings_null !== true && wantsState(state, 'subscription');

/**
 * What accounts is asked: for subscriptions without nulls, the user's settings too (their
 * defaults fill the nulls), even when the client did not ask for them.
 */
export const accountsParamsOf = (state: StateParams, params: RegisterParams): StateParams =>
  wantsNotificationDefaults(state, params) && !wantsState(state, 'user_settings') ? { ...state, fetch_event_types: [...(state.fetch_event_types ?? []), 'user_settings'] } : state;

/**
 * Zulip's form for clients without the `notification_settings_null` capability
 * (handle_stream_notifications_compatibility): a channel's notification setting left to
 * the user's default (null) is sent as that default, in `subscriptions` and
 * `unsubscribed`. As in Zulip, only registration changes: events carry null either way,
 * and such a client keeps the default it registered with until it registers again.
 */
export function withNotificationDefaults(channels: ChannelsState, settings: AccountsState['user_settings']): ChannelsState {
  if (!settings) return channels;
  const resolve = <T extends object>(list: T[] | undefined): T[] | undefined =>
    list?.map((entry) => {
      const copy = { ...entry } as Record<string, unknown>;
      for (const [property, setting] of Object.entries(STREAM_NOTIFICATION_DEFAULTS)) {
        if (property in copy && copy[property] === null) copy[property] = (settings as Record<string, unknown>)[setting];
      }
      return copy as T;
    });
  return {
    ...channels,
    ...(channels.subscriptions ? { subscriptions: resolve(channels.subscriptions) } : {}),
    ...(channels.unsubscribed ? { unsubscribed: resolve(channels.unsubscribed) } : {}),
  };
}

interface OwnerStates {
  accounts?: AccountsState;
  channels?: ChannelsState;
  messaging?: MessagingState;
}

/**
 * `sendPart` (RequestContext): where the caller takes parts, each owner's serialized
 * members but the last to answer go to it as they come, so that the gateway writes them
 * (6 MB of users at 10,000 users) while the others still compute; the last owner's go
 * in the reply, with the members assembled here.
 */
export async function registerWithState(deps: RegisterDeps, actor: Actor, params: RegisterParams, sendPart?: (json: SerializedMembers) => void) {
  const state = stateParamsOf(params);
  const { value: queue, position: after } = await deps.fanOut.snapshot(async () => {
    const registered = await deps.queues.register(actor, params);
    deps.queues.holdForState(registered.queue_id);
    return registered;
  });
  const states: OwnerStates = {};
  const positions = new Map<OwnerName, number>();
  // Members owners sent already serialized (accounts' users lists, messaging's sections),
  // passed on as they are.
  const serialized: (string | Uint8Array)[] = [];
  /** The first owner's failure, once there is one (the reply is then that error). */
  let failed: unknown;
  const asked = { accounts: accountsParamsOf(state, params), channels: state, messaging: state };
  const owners = ownersToAsk(asked.accounts);
  let unanswered = owners.length;
  try {
    await Promise.all(
      owners.map(async (owner) => {
        let reply;
        try {
          reply = await callContract(deps.bus, endpoints[owner].registerState, { actor, after, params: asked[owner] }, { checkReply: deps.checkReplies ?? false });
        } catch (err) {
          failed ??= err;
          throw err;
        }
        // An owner always answers at or after `after`; without a position nothing could be left out safely.
        positions.set(owner, reply.position ?? after);
        (states as Record<OwnerName, unknown>)[owner] = reply.value.state;
        unanswered--;
        if (reply.json === undefined) return;
        // Another owner failed: the reply is that error, and nobody writes these.
        if (failed !== undefined) return releaseLent(reply.json);
        if (sendPart && unanswered > 0) sendPart(reply.json);
        else serialized.push(...(isPieces(reply.json) ? reply.json : [reply.json]));
      }),
    );
  } catch (err) {
    // The client is told of the failure, not of the removal: a queue whose removal a crash
    // undid has an id nobody knows, and expires.
    deps.queues.delete(actor, queue.queue_id).catch(() => undefined);
    serialized.forEach(releaseLent);
    throw err;
  }
  deps.queues.releaseWithState(queue.queue_id, cutoffsOf(state, positions));
  const { realm, me, user_settings, ...accountSections } = states.accounts ?? {};
  const value = {
    ...realm,
    ...me,
    ...accountSections,
    ...linkifierSections(params, accountSections),
    ...settingsSection(state, user_settings),
    ...(states.channels && wantsNotificationDefaults(state, params) ? withNotificationDefaults(states.channels, user_settings) : states.channels),
    ...states.messaging,
    ...unbuiltSections(state),
    ...(deps.presences && wantsState(state, 'presence')
      ? await deps.presences({
          // Keyed by user id (Zulip's modern form) for slim clients and those taking simplified events.
          slim: params.slim_presence === true || params.client_capabilities?.simplified_presence_events === true,
          ...(params.presence_history_limit_days !== undefined ? { history_limit_days: params.presence_history_limit_days } : {}),
        })
      : {}),
    ...queue,
    zulip_merge_base: ZULIP_VERSION,
  };
  const json = joinedMembers(serialized);
  return { value, ...(json === undefined ? {} : { json }) };
}

/**
 * Several owners' serialized members as the reply's (one alone goes as it came, bytes or
 * text): each owner's object as its UTF-8 bytes, as they answered, not joined here. At
 * 10,000 users the answer is about 7 MB: joining it as text cost the main thread about
 * 20 ms per registration (decoding a service thread's bytes, then encoding the whole text
 * again to write it), and copying the bytes into one buffer 4 ms at p50 and 7-14 ms in a
 * process's first registrations, on the critical path since messaging answers last. The
 * gateway writes the pieces one after another (a bus without bytes joins them as text).
 */
export function joinedMembers(pieces: readonly (string | Uint8Array)[]): SerializedMembers | undefined {
  if (pieces.length <= 1) return pieces[0];
  return pieces.map((piece) => (typeof piece === 'string' ? Buffer.from(piece) : piece));
}
