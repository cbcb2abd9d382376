/**
 * The sidebar's menus for a topic (mute, unmute, follow, unfollow: POST /user_topics) and
 * for a channel (its settings dialog, leaving it). A menu button opens a WAI-ARIA menu
 * (arrows, Home, End, Esc); a refusal is said under the entry it was asked from.
 */
import { useState } from 'preact/hooks';
import { describeError } from './api';
import { MenuButton, type MenuItem } from './menu-button';
import { channelApi, topicMuted, topicPolicy, VISIBILITY } from './channel-api';
import type { ClientStore } from './store';

/** A menu button and its menu; `label` names the button (each entry's own, for screen readers and tests). */
export function OptionsMenu({ label, items, icon = '⋮' }: { label: string; items: MenuItem[]; icon?: string }) {
  return <MenuButton label={label} items={items} icon={icon} kind="options" />;
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
