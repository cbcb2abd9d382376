/**
 * The screens that take the feed's place: browsing channels (`#channels`) and
 * administration (`#admin/<section>`), each an address a person can bookmark. The
 * sidebar's links to them, and its channel and topic menus with the channel settings
 * dialog they open, live here too so that app.tsx only places them.
 */
import { useEffect, useState } from 'preact/hooks';
import { AdminScreen } from './admin/admin';
import { adminRights, anyAdminRight, topicMuted, topicPolicy, VISIBILITY } from './channel-api';
import { BrowseChannels } from './browse-channels';
import { ChannelSettingsDialog } from './channel-settings';
import type { ClientStore } from './store';
import { ChannelMenu, TopicMenu } from './topic-menu';
import './screens.css';

export type Screen = { kind: 'channels' } | { kind: 'admin'; section: string };

export function screenOf(hash: string): Screen | undefined {
  const key = hash.replace(/^#/, '');
  if (key === 'channels') return { kind: 'channels' };
  const admin = /^admin(?:\/([a-z-]+))?$/.exec(key);
  if (admin) return { kind: 'admin', section: admin[1] ?? '' };
  return undefined;
}

export function useScreen(): Screen | undefined {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return screenOf(hash);
}

export const screenTitle = (screen: Screen) => (screen.kind === 'channels' ? 'All channels' : 'Administration');

export function ScreenView({ store, screen }: { store: ClientStore; screen: Screen }) {
  useEffect(() => {
    document.title = `${screenTitle(screen)} – Team chat`;
  }, [screen.kind]);
  if (!store.ready)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  return <div class="screen-scroll">{screen.kind === 'channels' ? <BrowseChannels store={store} /> : <AdminScreen store={store} section={screen.section} />}</div>;
}

/** The sidebar's links to the screens; Administration only for those with a right there. */
export function ScreenLinks({ store, screen }: { store: ClientStore; screen: Screen | undefined }) {
  const admin = store.ready && anyAdminRight(adminRights(store));
    return (
    <ul class="screen-links">
      <li>
        <a href="#channels" class={`entry${screen?.kind === 'channels' ? ' active' : ''}`} aria-current={screen?.kind === 'channels' ? 'page' : undefined}>
          <span class="label">Browse channels</span>
        </a>
      </li>
      {admin && (
        <li>
          <a href="#admin" class={`entry${screen?.kind === 'admin' ? ' active' : ''}`} aria-current={screen?.kind === 'admin' ? 'page' : undefined}>
            <span class="label">Administration</span>
          </a>
        </li>
      )}
    </ul>
  );
}

/** The sidebar's channel and topic menus: what they need beside the entries (a refusal's words, the settings dialog). */
export function useSidebarMenus(store: ClientStore) {
  const [error, setError] = useState('');
  const [settingsFor, setSettingsFor] = useState<number | undefined>();
  return {
    channelMenu: (streamId: number) => <ChannelMenu store={store} streamId={streamId} onSettings={() => setSettingsFor(streamId)} onError={setError} />,
    topicMenu: (streamId: number, topic: string) => <TopicMenu store={store} streamId={streamId} topic={topic} onError={setError} />,
    topicState: (streamId: number, topic: string) => ({ muted: topicMuted(store, streamId, topic), followed: topicPolicy(store, streamId, topic) === VISIBILITY.followed }),
    extras: (
      <>
        {error && (
          <p class="error sidebar-error" role="alert">
            {error}{' '}
            <button type="button" onClick={() => setError('')}>
              Dismiss
            </button>
          </p>
        )}
        {settingsFor !== undefined && <ChannelSettingsDialog store={store} streamId={settingsFor} onClose={() => setSettingsFor(undefined)} />}
      </>
    ),
  };
}
