/**
 * The sidebar's menus for a topic (mute, unmute, follow, unfollow: POST /user_topics) and
 * for a channel (its settings dialog, leaving it). A menu button opens a WAI-ARIA menu
 * (arrows, Home, End, Esc); a refusal is said under the entry it was asked from.
 */
import { useRef, useState } from 'preact/hooks';
import { describeError } from './api';
import { channelApi, topicMuted, topicPolicy, VISIBILITY } from './channel-api';
import type { ClientStore } from './store';

export interface MenuItem {
  label: string;
  run: () => void;
}

/** A menu button and its menu; `label` names the button (each entry's own, for screen readers and tests). */
export function OptionsMenu({ label, items, icon = '⋮' }: { label: string; items: MenuItem[]; icon?: string }) {
  const [expanded, setExpanded] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLUListElement>(null);
  const menuId = useRef(`menu-${Math.random().toString(36).slice(2)}`).current;
  const focusItem = (i: number) => {
    const all = menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]');
    if (all && all.length > 0) all[(i + all.length) % all.length]!.focus();
  };
  const open = (at: number) => {
    setExpanded(true);
    requestAnimationFrame(() => focusItem(at));
  };
  const close = (refocus: boolean) => {
    setExpanded(false);
    if (refocus) button.current?.focus();
  };
  const onMenuKey = (e: KeyboardEvent) => {
    const all = [...(menu.current?.querySelectorAll<HTMLButtonElement>('[role="menuitem"]') ?? [])];
    const at = all.indexOf(document.activeElement as HTMLButtonElement);
    const keys: Record<string, () => void> = {
      ArrowDown: () => focusItem(at + 1),
      ArrowUp: () => focusItem(at - 1),
      Home: () => focusItem(0),
      End: () => focusItem(all.length - 1),
      Escape: () => close(true),
      Tab: () => close(false),
    };
    const handler = keys[e.key];
    if (!handler) return;
    if (e.key !== 'Tab') e.preventDefault();
    e.stopPropagation();
    handler();
  };
  return (
    <div
      class="options"
      onFocusOut={(e) => {
        const next = e.relatedTarget as Node | null;
        if (expanded && next && !(e.currentTarget as HTMLElement).contains(next)) setExpanded(false);
      }}
    >
      <button
        type="button"
        class="options-button"
        ref={button}
        aria-label={label}
        aria-haspopup="menu"
        aria-expanded={expanded}
        aria-controls={expanded ? menuId : undefined}
        onClick={() => (expanded ? close(false) : open(0))}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
            e.preventDefault();
            open(e.key === 'ArrowDown' ? 0 : items.length - 1);
          }
        }}
      >
        <span aria-hidden="true">{icon}</span>
      </button>
      {expanded && (
        <ul class="menu" role="menu" id={menuId} aria-label={label} ref={menu} onKeyDown={onMenuKey}>
          {items.map((item) => (
            <li key={item.label} role="none">
              <button
                type="button"
                role="menuitem"
                tabIndex={-1}
                onClick={() => {
                  close(true);
                  item.run();
                }}
              >
                {item.label}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A topic's entry in the sidebar beside its link: the menu, and what the server said to its last request. */
export function TopicMenu({ store, streamId, topic, onError }: { store: ClientStore; streamId: number; topic: string; onError: (message: string) => void }) {
  const policy = topicPolicy(store, streamId, topic);
  const muted = topicMuted(store, streamId, topic);
  const channelMuted = store.channel(streamId)?.is_muted === true;
  const set = (next: number, what: string) => async () => {
    onError('');
    try {
      await channelApi.setTopicVisibility(streamId, topic, next);
    } catch (e) {
      onError(`Could not ${what} “${topic}”: ${describeError(e)}`);
    }
  };
  const items: MenuItem[] = [];
  // In a muted channel a topic is shown by unmuting it; elsewhere, muting hides it.
  if (muted) items.push({ label: 'Unmute topic', run: set(channelMuted ? VISIBILITY.unmuted : VISIBILITY.inherit, 'unmute') });
  else items.push({ label: 'Mute topic', run: set(VISIBILITY.muted, 'mute') });
  if (policy === VISIBILITY.followed) items.push({ label: 'Unfollow topic', run: set(VISIBILITY.inherit, 'unfollow') });
  else items.push({ label: 'Follow topic', run: set(VISIBILITY.followed, 'follow') });
  return <OptionsMenu label={`Options for topic ${topic}`} items={items} />;
}

/** A channel's entry menu: its settings, muting, leaving. */
export function ChannelMenu({ store, streamId, onSettings, onError }: { store: ClientStore; streamId: number; onSettings: () => void; onError: (message: string) => void }) {
  const channel = store.channel(streamId);
  if (!channel) return null;
  const act = (what: string, request: () => Promise<unknown>) => async () => {
    onError('');
    try {
      await request();
    } catch (e) {
      onError(`Could not ${what} #${channel.name}: ${describeError(e)}`);
    }
  };
  const items: MenuItem[] = [
    { label: 'Channel settings', run: onSettings },
    channel.is_muted ? { label: 'Unmute channel', run: act('unmute', () => channelApi.setProperty(streamId, 'is_muted', false)) } : { label: 'Mute channel', run: act('mute', () => channelApi.setProperty(streamId, 'is_muted', true)) },
    channel.pin_to_top ? { label: 'Unpin channel', run: act('unpin', () => channelApi.setProperty(streamId, 'pin_to_top', false)) } : { label: 'Pin channel to top', run: act('pin', () => channelApi.setProperty(streamId, 'pin_to_top', true)) },
    { label: 'Leave channel', run: act('leave', () => channelApi.leave(channel.name)) },
  ];
  return <OptionsMenu label={`Options for channel #${channel.name}`} items={items} />;
}

/** The same topic menu in the feed's conversation header, with its refusal said beside it. */
export function FeedTopicMenu({ store, streamId, topic }: { store: ClientStore; streamId: number; topic: string }) {
  const [error, setError] = useState('');
  return (
    <>
      <TopicMenu store={store} streamId={streamId} topic={topic} onError={setError} />
      {error && (
        <span class="error topic-error" role="alert">
          {error}
        </span>
      )}
    </>
  );
}
