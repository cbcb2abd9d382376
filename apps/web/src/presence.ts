/**
 * Presence: what the page reports of its own person, and how it reads everyone else's.
 *
 * The page pings POST /users/me/presence every `server_presence_ping_interval_seconds`
 * (Zulip's interval, 60 s), and at once when its own status changes: `active` while the
 * page is visible and focused and the person did something (key, pointer, wheel, touch)
 * in the last five minutes (Zulip's idle timeout), `idle` otherwise. Each ping asks for
 * what changed since the last answer (`last_update_id`), which fills in what no event
 * brought; presence events do the rest.
 *
 * A person's status is the client model's presenceStatus (as Zulip's clients read the
 * modern format); their timestamps are the server's clock, so the page keeps its clock's
 * offset from the server's.
 */
import { IDLE_AFTER_MS, ownPresence, presenceStatus, type PresenceStatus, type RawPresence } from '@teamchat/client-model';
import { json } from './api';
import type { ClientStore } from './store';

const DEFAULT_PING_SECONDS = 60;
const DEFAULT_OFFLINE_SECONDS = 140;

interface PresenceReply {
  presences?: Record<string, RawPresence>;
  server_timestamp?: number;
  presence_last_update_id?: number;
}

const PEOPLE_EVENTS = new Set(['presence', 'realm_user', 'realm_bot', 'user_status', 'custom_profile_fields']);
const INPUT_EVENTS = ['keydown', 'pointerdown', 'wheel', 'touchstart', 'mousemove'] as const;

export class PresenceReporter {
  /**
   * Bumped by whatever changes what the user list shows (people, presence, statuses, a
   * ping's answer), so that the list is sorted again for those only, not for every message.
   */
  version = 0;
  private offEvents: (() => void) | undefined;
  /** What this page last reported (the list shows it for the person's own entry). */
  reported: 'active' | 'idle' | undefined;
  /** Server clock minus this page's clock, in seconds. */
  private offset = 0;
  private lastInput = Date.now();
  private inputSincePing = true;
  private timer: ReturnType<typeof setInterval> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private registration: unknown;
  private sending = false;
  private offStore: (() => void) | undefined;

  constructor(private readonly store: ClientStore) {}

  get offlineSeconds(): number {
    return (this.store.state.server_presence_offline_threshold_seconds as number | undefined) ?? DEFAULT_OFFLINE_SECONDS;
  }

  /** Now on the server's clock, in seconds. */
  serverNow(): number {
    return Date.now() / 1000 + this.offset;
  }

  statusOfUser(userId: number): PresenceStatus {
    if (userId === this.store.self && this.reported) return this.reported;
    const raw = (this.store.state.presences as Record<string, RawPresence> | undefined)?.[String(userId)];
    return presenceStatus(raw, this.serverNow(), this.offlineSeconds);
  }

  start(): void {
    for (const name of INPUT_EVENTS) window.addEventListener(name, this.onInput, { capture: true, passive: true });
    window.addEventListener('focus', this.onChange);
    window.addEventListener('blur', this.onChange);
    document.addEventListener('visibilitychange', this.onChange);
    this.offEvents = this.store.onEvent((event) => {
      if (PEOPLE_EVENTS.has(event.type)) this.version++;
    });
    // The first ping waits for the registration (its interval and the presence cursor come from it).
    this.offStore = this.store.subscribe(() => {
      if (this.store.registration === this.registration || !this.store.registration) return;
      this.registration = this.store.registration;
      this.version++;
      const server = this.store.state.server_timestamp as number | undefined;
      if (server !== undefined) this.offset = server - Date.now() / 1000;
      this.restartTimer();
      void this.ping();
    });
  }

  stop(): void {
    for (const name of INPUT_EVENTS) window.removeEventListener(name, this.onInput, { capture: true });
    window.removeEventListener('focus', this.onChange);
    window.removeEventListener('blur', this.onChange);
    document.removeEventListener('visibilitychange', this.onChange);
    this.offStore?.();
    this.offEvents?.();
    clearInterval(this.timer);
    clearTimeout(this.idleTimer);
  }

  private restartTimer(): void {
    clearInterval(this.timer);
    const seconds = (this.store.state.server_presence_ping_interval_seconds as number | undefined) ?? DEFAULT_PING_SECONDS;
    this.timer = setInterval(() => void this.ping(), seconds * 1000);
  }

  private current(): 'active' | 'idle' {
    return ownPresence({ visible: document.visibilityState === 'visible', focused: document.hasFocus(), msSinceInput: Date.now() - this.lastInput });
  }

  private readonly onInput = (): void => {
    this.lastInput = Date.now();
    this.inputSincePing = true;
    // Going idle needs no input to notice it: a timer does.
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(this.onChange, IDLE_AFTER_MS + 1000);
    if (this.reported === 'idle') this.onChange();
  };

  /** A change of what the page would report is sent at once, not at the next interval. */
  private readonly onChange = (): void => {
    if (!this.registration) return;
    if (this.current() !== this.reported) void this.ping();
  };

  private async ping(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    const status = this.current();
    const newInput = this.inputSincePing;
    this.inputSincePing = false;
    let sent = false;
    try {
      const reply = await json<PresenceReply>('POST', '/users/me/presence', {
        status,
        new_user_input: newInput,
        slim_presence: true,
        last_update_id: (this.store.state.presence_last_update_id as number | undefined) ?? -1,
      });
      this.reported = status;
      sent = true;
      if (reply.server_timestamp !== undefined) this.offset = reply.server_timestamp - Date.now() / 1000;
      const presences = (this.store.state.presences ??= {}) as Record<string, RawPresence>;
      Object.assign(presences, reply.presences ?? {});
      if (reply.presence_last_update_id !== undefined) this.store.state.presence_last_update_id = reply.presence_last_update_id;
    } catch (e) {
      // Presence is best effort: the next interval tries again.
      console.warn('presence ping failed', e);
    } finally {
      this.sending = false;
      this.version++;
      // Even with nothing new, statuses age (active turns idle, then offline): the list re-renders.
      this.store.refresh();
    }
    // The page's status changed while the ping was under way (after a failure, the interval retries).
    if (sent && this.current() !== this.reported) setTimeout(this.onChange, 0);
  }
}
