/**
 * The logged-in page: header (connection status, logout), the sidebar (views, channels
 * with their recent topics, direct messages, each with unread counts), the feed of the
 * narrow in the address bar's hash, and the compose box.
 */
import { narrowKey, topicKey, type Narrow } from '@teamchat/client-model';
import { hrefOf, narrowTitle, parseLocation } from './links';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, describeError, type Session } from './api';
import { Compose } from './compose';
import { Feed } from './feed';
import { ShortcutsDialog, useShortcuts } from './keyboard';
import { PeopleButtons, PeopleDialogs, PeoplePanel, usePeople } from './people-layer';
import { ScreenLinks, ScreenView, screenTitle, useScreen, useSidebarMenus, type Screen } from './screens';
import { SearchBox } from './search';
import { ClientStore } from './store';

function useHashNarrow(): { narrow: Narrow; near?: number } {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    window.addEventListener('hashchange', on);
    return () => window.removeEventListener('hashchange', on);
  }, []);
  return useMemo(() => parseLocation(hash), [hash]);
}

export function App({ session, onLoggedOut }: { session: Session; onLoggedOut: () => void }) {
  const store = useMemo(() => new ClientStore(session), [session]);
  const [, setVersion] = useState(0);
  const [menuOpen, setMenuOpen] = useState(false);
  const [logoutError, setLogoutError] = useState('');
  const menuButton = useRef<HTMLButtonElement>(null);
  const { narrow, near } = useHashNarrow();
  const [helpOpen, setHelpOpen] = useState(false);
  const helpShown = useRef(false);
  helpShown.current = helpOpen;
  useShortcuts(store, narrow, { open: () => setHelpOpen(true), isOpen: () => helpShown.current });
  const people = usePeople(store);
  const screen = useScreen();

  // Esc closes the open sidebar menu (narrow screens) and gives focus back to its button.
  // (Always listening, reading the state from the page, so an Esc right after opening is not missed.)
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || menuButton.current?.getAttribute('aria-expanded') !== 'true') return;
      setMenuOpen(false);
      menuButton.current.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  useEffect(() => {
    const off = store.subscribe(() => setVersion(store.version));
    store.start();
    return () => {
      off();
      store.stop();
    };
  }, [store]);

  useEffect(() => {
    setMenuOpen(false);
    if (!screen) document.title = `${narrowTitle(store, narrow)} – Team chat`;
    if (narrow.kind === 'channel' || narrow.kind === 'topic') void store.loadTopics(narrow.streamId);
  }, [narrowKey(narrow), store.ready, screen?.kind]);

  const openMenu = () => {
    setMenuOpen(!menuOpen);
    // The open channel may sort far down a long list: shown where it is.
    if (!menuOpen) requestAnimationFrame(() => document.querySelector('#sidebar [aria-current="page"]')?.scrollIntoView({ block: 'nearest' }));
  };

  const logout = async () => {
    setLogoutError('');
    try {
      await api.logout();
      store.stop();
      onLoggedOut();
    } catch (e) {
      setLogoutError(`Logging out failed: ${describeError(e)}`);
    }
  };

  return (
    <div class={`layout${menuOpen ? ' menu-open' : ''}${people.listOpen ? ' people-open' : ''}`}>
      <header class="top">
        <button type="button" class="menu-button" ref={menuButton} aria-expanded={menuOpen} aria-controls="sidebar" onClick={openMenu}>
          <span aria-hidden="true">☰</span>
          <span class="visually-hidden">Channels and conversations</span>
        </button>
        <h1 class="title">{screen ? screenTitle(screen) : store.ready ? narrowTitle(store, narrow) : 'Team chat'}</h1>
        <SearchBox store={store} narrow={narrow} />
        <button type="button" class="help-button" aria-label="Keyboard shortcuts" aria-haspopup="dialog" onClick={() => setHelpOpen(true)}>
          ?
        </button>
        <PeopleButtons people={people} />
        <span class="me">{store.ready ? store.userName(store.self) : session.full_name}</span>
        <button type="button" class="logout" onClick={logout}>
          Log out
        </button>
      </header>
      <ConnectionBanner store={store} />
      {logoutError && (
        <p class="banner error" role="alert">
          {logoutError}
        </p>
      )}
      <Sidebar store={store} narrow={narrow} screen={screen} />
      <ShortcutsDialog open={helpOpen} onClose={() => setHelpOpen(false)} />
      <PeoplePanel store={store} people={people} />
      <PeopleDialogs store={store} people={people} />
      <main class="main" aria-label={screen ? screenTitle(screen) : store.ready ? narrowTitle(store, narrow) : 'Messages'}>
        {screen ? (
          <ScreenView store={store} screen={screen} />
        ) : store.ready ? (
          <>
            <Feed key={`${narrowKey(narrow)}@${near ?? ''}`} store={store} narrow={narrow} near={near} />
            <Compose store={store} narrow={narrow} />
          </>
        ) : (
          <>
            <p class="loading" role="status">
              Loading your messages…
            </p>
            <Compose store={store} narrow={narrow} />
          </>
        )}
      </main>
    </div>
  );
}

function ConnectionBanner({ store }: { store: ClientStore }) {
  const status = store.status;
  if (status.kind === 'retrying')
    return (
      <div class="banner warning" role="alert">
        <span>{describeError(status.error)}</span>{' '}
        <button type="button" onClick={() => store.retryNow()}>
          Try again now
        </button>
      </div>
    );
  if (store.notice)
    return (
      <div class="banner info" role="status">
        <span>{store.notice}</span>{' '}
        <button type="button" onClick={() => store.dismissNotice()}>
          Dismiss
        </button>
      </div>
    );
  return null;
}

function Count({ n, label = 'unread' }: { n: number | undefined; label?: string }) {
  if (!n) return null;
  return (
    <span class="count">
      {n}
      <span class="visually-hidden"> {label}</span>
    </span>
  );
}

/**
 * Channels put in the sidebar at first, and added each time the end of the list scrolls
 * near: with 1,000 channels, rendering every row (and its menu) on every event was most of
 * the page's work under live traffic.
 */
const CHANNEL_CHUNK = 80;

/** How many channels the sidebar renders: a chunk more each time its end comes within a screen of the view. */
function useChannelsShown(total: number, needed: number) {
  const [shown, setShown] = useState(CHANNEL_CHUNK);
  const end = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = end.current;
    if (!el) return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) setShown((n) => n + CHANNEL_CHUNK);
    }, { root: el.closest('nav'), rootMargin: '600px 0px' });
    observer.observe(el);
    return () => observer.disconnect();
  }, [shown, total]);
  return { count: Math.max(shown, needed), end, more: shown < total && needed < total };
}

function Sidebar({ store, narrow, screen }: { store: ClientStore; narrow: Narrow; screen: Screen | undefined }) {
  const current = screen ? '' : narrowKey(narrow);
  const openId = narrow.kind === 'channel' || narrow.kind === 'topic' ? narrow.streamId : undefined;
  const channels = store.channels;
  // The open channel is always among those rendered.
  const shown = useChannelsShown(channels.length, openId === undefined ? 0 : channels.findIndex((c) => c.stream_id === openId) + 1);
  const menus = useSidebarMenus(store);
  const unread = store.unread;
  const link = (target: Narrow, label: string, n: number | undefined, extra = '', muted = false, color?: string) => {
    const href = hrefOf(target);
    const active = narrowKey(target) === current;
    return (
      <a href={href} class={`entry${extra}${muted ? ' muted' : ''}${active ? ' active' : ''}`} aria-current={active ? 'page' : undefined}>
        {color && <span class="swatch" style={{ background: color }} aria-hidden="true" />}
        <span class="label">{label}</span>
        {muted && <span class="visually-hidden"> (muted)</span>}
        <Count n={n} />
      </a>
    );
  };
  return (
    <nav id="sidebar" class="sidebar" aria-label="Channels and conversations">
      <ul class="views">
        <li>{link({ kind: 'all' }, 'Combined feed', unread.ids.size === 0 ? undefined : (store.state.unread_msgs?.count as number))}</li>
        <li>{link({ kind: 'mentions' }, 'Mentions', unread.mentions)}</li>
        <li>{link({ kind: 'starred' }, 'Starred messages', undefined)}</li>
      </ul>
      <ScreenLinks store={store} screen={screen} />
      {menus.extras}
      <h2 id="channels-heading">Channels</h2>
      <ul aria-labelledby="channels-heading" class="channels">
        {channels.slice(0, shown.count).map((c) => {
          const topics = (store.topics.get(c.stream_id) ?? []).slice(0, 5);
          const open = (narrow.kind === 'channel' || narrow.kind === 'topic') && narrow.streamId === c.stream_id;
          const shown = open ? (store.topics.get(c.stream_id) ?? []).slice(0, 10) : topics;
          return (
            <li key={c.stream_id} class={c.pin_to_top ? 'pinned' : undefined}>
              <div class="entry-row">
                {link({ kind: 'channel', streamId: c.stream_id }, `#${c.name}`, c.is_muted ? undefined : unread.channels.get(c.stream_id), ' channel', c.is_muted, c.color)}
                {menus.channelMenu(c.stream_id)}
              </div>
              {shown.length > 0 && (
                <ul class="topics" aria-label={`Topics in #${c.name}`}>
                  {shown.map((t) => (
                    <li key={t.name} class="entry-row">
                      {link({ kind: 'topic', streamId: c.stream_id, topic: t.name }, t.name, unread.topics.get(topicKey(c.stream_id, t.name)), ' topic', menus.topicState(c.stream_id, t.name).muted && !c.is_muted)}
                      {menus.topicMenu(c.stream_id, t.name)}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          );
        })}
      </ul>
      {shown.more && <div ref={shown.end} class="channels-end" />}
      <h2 id="dms-heading">Direct messages</h2>
      <ul aria-labelledby="dms-heading" class="dms">
        {store.conversations.slice(0, 20).map((ids) => (
          <li key={ids.join(',')}>{link({ kind: 'dm', userIds: ids }, store.peopleNames(ids), unread.dms.get(ids.join(',')), ' dm')}</li>
        ))}
      </ul>
    </nav>
  );
}
