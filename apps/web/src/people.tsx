/**
 * People: the user list (right of the feed on wide screens, a panel behind the People
 * button on narrow ones) with each person's presence and status, and the user card a
 * click on a person opens (name, role, status, local time, profile fields, and a button
 * that starts a direct message).
 *
 * With thousands of people the list shows the first matches of its filter only: the
 * page stays quick to render, and the filter finds anyone.
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { timeOfDay } from './clock';
import { Avatar } from './feed';
import { COMPOSE_EVENT, type ComposeRequest } from './keyboard';
import { hrefOf } from './links';
import { Modal } from './message-dialogs';
import type { Emoji } from './message-api';
import type { PresenceStatus } from '@teamchat/client-model';
import type { PresenceReporter } from './presence';
import { EmojiGlyph } from './reactions';
import type { ClientStore, User } from './store';

const SHOWN = 150;
const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });
const ORDER: Record<PresenceStatus, number> = { active: 0, idle: 1, offline: 2 };
export const PRESENCE_WORDS: Record<PresenceStatus, string> = { active: 'Active', idle: 'Idle', offline: 'Offline' };

export interface UserStatus {
  status_text?: string;
  emoji_name?: string;
  emoji_code?: string;
  reaction_type?: Emoji['reaction_type'];
}

export function statusOfUser(store: ClientStore, userId: number): UserStatus {
  return ((store.state.user_status ?? {}) as Record<string, UserStatus>)[String(userId)] ?? {};
}

export function StatusEmoji({ store, status }: { store: ClientStore; status: UserStatus }) {
  if (!status.emoji_name || !status.emoji_code || !status.reaction_type) return null;
  return (
    <span class="status-emoji" title={`:${status.emoji_name}:`}>
      <EmojiGlyph store={store} emoji={status as Emoji} />
    </span>
  );
}

/** A status in words, for screen readers and titles ("busy, :car:"). */
function statusWords(status: UserStatus): string {
  return [status.status_text, status.emoji_name && `:${status.emoji_name}:`].filter(Boolean).join(' ');
}

interface FullUser extends User {
  role?: number;
  timezone?: string;
  profile_data?: Record<string, { value: string; rendered_value?: string }>;
}

export function UserList({ store, presence, onOpen, onSetStatus }: { store: ClientStore; presence: PresenceReporter; onOpen: (userId: number) => void; onSetStatus: () => void }) {
  const [filter, setFilter] = useState('');
  const q = filter.trim().toLowerCase();
  // Sorted when presence changes, filtered per keystroke: sorting 10,000 people by name on every key cost tens of ms.
  const sorted = useMemo(() => {
    const all = [...store.users.values()].filter((u) => u.is_active !== false && !u.is_bot);
    const withStatus = all.map((u) => ({ user: u, status: presence.statusOfUser(u.user_id), text: `${u.full_name}\u0000${u.email}`.toLowerCase() }));
    withStatus.sort((a, b) => Number(b.user.user_id === store.self) - Number(a.user.user_id === store.self) || ORDER[a.status] - ORDER[b.status] || collator.compare(a.user.full_name, b.user.full_name));
    return withStatus;
  }, [presence.version, store.users.size]);
  const people = useMemo(() => (q === '' ? sorted : sorted.filter((p) => p.text.includes(q))), [sorted, q]);
  const own = statusOfUser(store, store.self);
  return (
    <>
      <div class="people-head">
        <h2 id="people-heading">People</h2>
        <button type="button" class="set-status" onClick={onSetStatus}>
          {own.status_text || own.emoji_name ? 'Change your status' : 'Set your status'}
        </button>
      </div>
      <input type="search" class="people-filter" aria-label="Filter people" placeholder="Filter people" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      <ul aria-labelledby="people-heading" class="people-list">
        {people.slice(0, SHOWN).map(({ user, status }) => {
          const userStatus = statusOfUser(store, user.user_id);
          const words = statusWords(userStatus);
          return (
            <li key={user.user_id}>
              <button type="button" class="person" data-user-id={user.user_id} data-presence={status} onClick={() => onOpen(user.user_id)}>
                <span class={`presence-dot ${status}`} aria-hidden="true" />
                <span class="name">
                  {user.full_name}
                  {user.user_id === store.self && <span class="you"> (you)</span>}
                </span>
                <StatusEmoji store={store} status={userStatus} />
                <span class="visually-hidden">
                  , {PRESENCE_WORDS[status].toLowerCase()}
                  {words && `, status: ${words}`}
                </span>
                {userStatus.status_text && (
                  <span class="status-text" aria-hidden="true">
                    {userStatus.status_text}
                  </span>
                )}
              </button>
            </li>
          );
        })}
      </ul>
      {people.length > SHOWN && <p class="muted more">and {people.length - SHOWN} more: filter to find them.</p>}
      {people.length === 0 && <p class="muted more">Nobody matches “{filter}”.</p>}
    </>
  );
}

const ROLES: Record<number, string> = { 100: 'Organization owner', 200: 'Organization administrator', 300: 'Moderator', 400: 'Member', 600: 'Guest' };

interface ProfileField {
  id: number;
  type: number;
  name: string;
  field_data?: string;
  order?: number;
}

/** A profile field's value as text: a choice's label, people's names, or the value itself. */
function fieldText(store: ClientStore, field: ProfileField, value: string): string {
  if (field.type === 3) {
    try {
      const options = JSON.parse(field.field_data ?? '{}') as Record<string, { text: string }>;
      return options[value]?.text ?? value;
    } catch {
      return value;
    }
  }
  if (field.type === 6) {
    try {
      return (JSON.parse(value) as number[]).map((id) => store.userName(id)).join(', ');
    } catch {
      return value;
    }
  }
  return value;
}

/**
 * An external account's page: its field's URL pattern (a preset's from the registration's
 * realm_default_external_accounts, a custom one's from field_data) with the username in
 * it; undefined when there is no usable pattern.
 */
function externalAccountUrl(store: ClientStore, field: ProfileField, username: string): string | undefined {
  let data: { subtype?: string; url_pattern?: string };
  try {
    data = JSON.parse(field.field_data || '{}') as typeof data;
  } catch {
    return undefined;
  }
  const presets = (store.state.realm_default_external_accounts ?? {}) as Record<string, { url_pattern?: string } | undefined>;
  const pattern = data.subtype === 'custom' ? data.url_pattern : presets[data.subtype ?? '']?.url_pattern;
  if (typeof pattern !== 'string' || !/^https?:\/\//.test(pattern) || !pattern.includes('%(username)s')) return undefined;
  return pattern.replace('%(username)s', encodeURIComponent(username.trim()));
}

/** A field's value on the card: a link for a link field and an external account, else its text. */
function FieldValue({ store, field, text }: { store: ClientStore; field: ProfileField; text: string }) {
  const href = field.type === 5 && /^https?:\/\//.test(text) ? text : field.type === 7 ? externalAccountUrl(store, field, text) : undefined;
  return href ? (
    <a href={href} target="_blank" rel="noopener noreferrer">
      {text}
    </a>
  ) : (
    <>{text}</>
  );
}

/** Starts a direct message to a person: their conversation opens and the compose box is addressed to them. */
export function messagePerson(store: ClientStore, userId: number): void {
  location.hash = hrefOf({ kind: 'dm', userIds: userId === store.self ? [] : [userId] });
  // After the compose box has followed the new narrow.
  setTimeout(() => {
    window.dispatchEvent(new CustomEvent<ComposeRequest>(COMPOSE_EVENT, { detail: { to: store.userName(userId), focus: 'content' } }));
  }, 50);
}

export function UserCard({ store, presence, userId, onClose }: { store: ClientStore; presence: PresenceReporter; userId: number; onClose: () => void }) {
  const user = store.users.get(userId) as FullUser | undefined;
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const timer = setInterval(() => setNow(new Date()), 30_000);
    return () => clearInterval(timer);
  }, []);
  if (!user) return null;
  const status = statusOfUser(store, userId);
  const state = presence.statusOfUser(userId);
  const localTime = user.timezone ? timeOfDay(store, now, user.timezone) : undefined;
  const fields = ((store.state.custom_profile_fields ?? []) as ProfileField[])
    .slice()
    .sort((a, b) => (a.order ?? 0) - (b.order ?? 0))
    .flatMap((f) => {
      const value = user.profile_data?.[String(f.id)]?.value;
      return value === undefined || value === '' ? [] : [{ field: f, text: fieldText(store, f, value) }];
    });
  return (
    <Modal title={user.full_name} onClose={onClose}>
      <div class="user-card">
        <div class="card-top">
          <Avatar url={user.avatar_url} name={user.full_name} id={user.user_id} />
          <div>
            <p class="presence-line">
              <span class={`presence-dot ${state}`} aria-hidden="true" /> {PRESENCE_WORDS[state]}
            </p>
            <p class="role">{user.is_bot ? 'Bot' : (ROLES[user.role ?? 400] ?? 'Member')}</p>
          </div>
        </div>
        <dl class="card-facts">
          {(status.status_text || status.emoji_name) && (
            <>
              <dt>Status</dt>
              <dd class="card-status">
                <StatusEmoji store={store} status={status} /> {status.status_text}
              </dd>
            </>
          )}
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>Local time</dt>
          <dd class="local-time">{localTime ? `${localTime} (${user.timezone})` : 'Time zone not set'}</dd>
          {fields.map(({ field, text }) => (
            <>
              <dt key={`n${field.id}`}>{field.name}</dt>
              <dd key={`v${field.id}`}>
                <FieldValue store={store} field={field} text={text} />
              </dd>
            </>
          ))}
        </dl>
        <div class="dialog-buttons">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <button
            type="button"
            class="primary"
            onClick={() => {
              onClose();
              messagePerson(store, userId);
            }}
          >
            Send a message
          </button>
        </div>
      </div>
    </Modal>
  );
}
