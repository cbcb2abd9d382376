/**
 * What the People features add to the page, kept out of app.tsx: the presence reporter,
 * the user list's open state (open beside the feed on wide screens; on narrow ones an
 * overlay behind its button, closed by its close button, Esc, picking a person or moving
 * elsewhere), the header's People and Settings buttons, and the dialogs
 * (a user card, one's status, the settings), the theme and the desktop notifications.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { startDesktopNotifications } from './notifications';
import { UserCard, UserList } from './people';
import { PresenceReporter } from './presence';
import { SettingsDialog } from './settings';
import { StatusDialog } from './status';
import { applyColorScheme } from './theme';
import { USER_CARD_EVENT } from './user-card-event';
import type { ClientStore } from './store';

const NARROW_SCREEN = '(max-width: 760px)';

export type Dialog = { kind: 'card'; userId: number } | { kind: 'status' } | { kind: 'settings' } | undefined;

export function usePeople(store: ClientStore) {
  const presence = useMemo(() => new PresenceReporter(store), [store]);
  const [listOpen, setListOpen] = useState(() => !window.matchMedia(NARROW_SCREEN).matches);
  const [dialog, setDialog] = useState<Dialog>(undefined);
  const opener = useRef<HTMLElement | null>(null);
  const listButton = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    presence.start();
    const stopNotifications = startDesktopNotifications(store);
    return () => {
      presence.stop();
      stopNotifications();
    };
  }, [presence]);

  // The theme follows the setting, changed here or on another of the person's pages.
  applyColorScheme((store.state.user_settings as { color_scheme?: number } | undefined)?.color_scheme);

  // On a narrow screen the list covers the feed: Esc closes it, as it does the channel menu.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || e.defaultPrevented || !window.matchMedia(NARROW_SCREEN).matches || listButton.current?.getAttribute('aria-expanded') !== 'true') return;
      if (document.querySelector('dialog[open]')) return;
      setListOpen(false);
      listButton.current.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  // The list follows the width: beside the feed when the window widens, closed when it narrows (it would cover the page).
  useEffect(() => {
    const query = window.matchMedia(NARROW_SCREEN);
    const onChange = () => setListOpen(!query.matches);
    query.addEventListener('change', onChange);
    return () => query.removeEventListener('change', onChange);
  }, []);

  // On a narrow screen the list is an overlay: moving elsewhere in the client closes it.
  useEffect(() => {
    const onNavigate = () => {
      if (window.matchMedia(NARROW_SCREEN).matches) setListOpen(false);
    };
    window.addEventListener('hashchange', onNavigate);
    return () => window.removeEventListener('hashchange', onNavigate);
  }, []);

  const open = (next: Dialog) => {
    opener.current = document.activeElement as HTMLElement | null;
    setDialog(next);
  };
  /** A person picked in the list: their card opens; on a narrow screen the list closes, and the card gives the focus back to the People button. */
  const pick = (userId: number) => {
    if (window.matchMedia(NARROW_SCREEN).matches) {
      setListOpen(false);
      opener.current = listButton.current;
      setDialog({ kind: 'card', userId });
      return;
    }
    open({ kind: 'card', userId });
  };
  const closeList = () => {
    setListOpen(false);
    listButton.current?.focus();
  };
  useEffect(() => {
    const onCard = (e: Event) => open({ kind: 'card', userId: (e as CustomEvent<number>).detail });
    window.addEventListener(USER_CARD_EVENT, onCard);
    return () => window.removeEventListener(USER_CARD_EVENT, onCard);
  }, []);
  const close = () => {
    setDialog(undefined);
    // The focus goes back to what opened the dialog (a dialog's own "send a message" moves it on).
    const back = opener.current;
    requestAnimationFrame(() => {
      if (document.activeElement === document.body || document.activeElement === null) back?.focus?.({ preventScroll: true });
    });
  };
  return { presence, listOpen, setListOpen, listButton, dialog, open, pick, closeList, close };
}

export type People = ReturnType<typeof usePeople>;

export function PeopleButtons({ people }: { people: People }) {
  return (
    <>
      <button type="button" class="people-button" ref={people.listButton} aria-expanded={people.listOpen} aria-controls="people" onClick={() => people.setListOpen(!people.listOpen)}>
        <svg aria-hidden="true" width="18" height="18" viewBox="0 0 24 24" fill="currentColor">
          <circle cx="9" cy="8" r="3.5" />
          <path d="M2 20c0-3.9 3.1-7 7-7s7 3.1 7 7z" />
          <circle cx="17" cy="9" r="2.8" />
          <path d="M17 13.5c2.8 0 5 2.2 5 5V20h-4.5c0-2.5-.9-4.7-2.4-6.3.6-.1 1.2-.2 1.9-.2z" />
        </svg>
        <span class="visually-hidden">People</span>
      </button>
      <button type="button" class="settings-button" aria-haspopup="dialog" onClick={() => people.open({ kind: 'settings' })}>
        <span aria-hidden="true">⚙</span>
        <span class="visually-hidden">Settings</span>
      </button>
    </>
  );
}

export function PeoplePanel({ store, people }: { store: ClientStore; people: People }) {
  // Always in the page (the button controls it), filled only while open: a closed list costs no rendering.
  return (
    <aside id="people" class="people" aria-label="People" hidden={!people.listOpen}>
      {people.listOpen && (
        <div class="people-close-row">
          <button type="button" class="people-close" onClick={people.closeList}>
            <span aria-hidden="true">×</span>
            <span class="visually-hidden">Close the people list</span>
          </button>
        </div>
      )}
      {people.listOpen && store.ready && <UserList store={store} presence={people.presence} onOpen={people.pick} onSetStatus={() => people.open({ kind: 'status' })} />}
    </aside>
  );
}

export function PeopleDialogs({ store, people }: { store: ClientStore; people: People }) {
  const dialog = people.dialog;
  if (!dialog || !store.ready) return null;
  if (dialog.kind === 'card') return <UserCard key={dialog.userId} store={store} presence={people.presence} userId={dialog.userId} onClose={people.close} />;
  if (dialog.kind === 'status') return <StatusDialog store={store} onClose={people.close} />;
  return <SettingsDialog store={store} onClose={people.close} />;
}
