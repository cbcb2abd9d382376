/**
 * What a message shows under its sender line, and what can be done to it: the rendered
 * content (or the edit box in its place), the reactions, and a "Message actions" menu
 * (a button shown on hover and on focus, reachable by Tab; arrows move in the menu, Esc
 * closes it): add a reaction, star, quote and reply, copy a link, edit, move, the edit
 * history and delete, each offered as far as the organization's rules allow. A refusal
 * is said in words under the message.
 */
import type { FeedMessage } from '@teamchat/client-model';
import type { ComponentType } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { describeError } from './api';
import { MenuButton } from './menu-button';
import { ConfirmDelete, HistoryDialog } from './message-dialogs';
import { ReminderDialog } from './write-dialogs';
import { EditForm } from './message-edit';
import { allowed, messageApi, messageLink, quoteOf, type Emoji } from './message-api';
import { Reactions } from './reactions';
import type { ClientStore } from './store';

type PickerProps = { store: ClientStore; onPick: (emoji: Emoji) => void; onClose: () => void };
/** The picker's module, loaded on first use. */
let Picker: ComponentType<PickerProps> | undefined;

type Open = 'none' | 'edit' | 'move' | 'delete' | 'history' | 'picker' | 'remind';

export function MessageBody({ store, message }: { store: ClientStore; message: FeedMessage }) {
  const [open, setOpen] = useState<Open>('none');
  const [error, setError] = useState('');
  const [note, setNote] = useState<{ text: string; link?: string } | null>(null);
  const [, setPickerLoaded] = useState(false);
  const menuButton = useRef<HTMLButtonElement>(null);
  const can = allowed(store, message);
  const starred = message.flags.includes('starred');
  const edited = message.last_edit_timestamp !== undefined && message.last_edit_timestamp !== null;

  const act = async (what: string, run: () => Promise<unknown>) => {
    setError('');
    try {
      await run();
    } catch (e) {
      setError(`${what} failed: ${describeError(e)}`);
    }
  };
  const close = () => {
    setOpen('none');
    requestAnimationFrame(() => menuButton.current?.focus());
  };

  const toggle = (emoji: Emoji, mine: boolean) =>
    act(mine ? 'Removing the reaction' : 'Adding the reaction', () => (mine ? messageApi.removeReaction(message.id, emoji) : messageApi.addReaction(message.id, emoji)));

  const openPicker = async () => {
    if (!Picker) {
      try {
        Picker = (await import('./emoji-picker')).EmojiPicker;
      } catch (e) {
        setError(`The emoji picker could not be loaded: ${describeError(e)}`);
        return;
      }
      setPickerLoaded(true);
    }
    setOpen('picker');
  };

  const quote = () =>
    act('Quoting', async () => {
      const raw = await messageApi.raw(message.id);
      store.fillCompose(message, quoteOf(message, raw, messageLink(store, message)));
    });

  const copyLink = async () => {
    const link = messageLink(store, message);
    try {
      await navigator.clipboard.writeText(link);
      setNote({ text: 'Link copied:', link });
    } catch {
      setNote({ text: 'Copy this link:', link });
    }
  };

  const items: { label: string; run: () => void }[] = [
    { label: 'Add reaction', run: () => void openPicker() },
    { label: starred ? 'Unstar' : 'Star', run: () => void act(starred ? 'Unstarring' : 'Starring', () => messageApi.star(message.id, !starred)) },
    { label: 'Quote and reply', run: () => void quote() },
    { label: 'Copy link to message', run: () => void copyLink() },
    { label: 'Remind me', run: () => setOpen('remind') },
    ...(can.editContent ? [{ label: 'Edit', run: () => setOpen('edit') }] : []),
    ...(can.editTopic || can.moveChannel ? [{ label: 'Move', run: () => setOpen('move') }] : []),
    { label: 'Edit history', run: () => setOpen('history') },
    ...(can.remove ? [{ label: 'Delete', run: () => setOpen('delete') }] : []),
  ];

  return (
    <>
      {/* Not while editing: the box takes the message's place, and Save/Cancel are its actions. */}
      {open !== 'edit' && open !== 'move' && <MenuButton label="Message actions" items={items} icon="⋯" kind="actions" buttonRef={menuButton} />}
      {open === 'edit' || open === 'move' ? (
        <EditForm store={store} message={message} can={can} mode={open} onDone={close} />
      ) : (
        // In a search, the server's copy with the matches highlighted.
        <div class="content rendered" dangerouslySetInnerHTML={{ __html: message.match_content ?? message.content }} />
      )}
      {edited && (
        <button type="button" class="edited" onClick={() => setOpen('history')}>
          (edited)
        </button>
      )}
      <Reactions store={store} message={message} onToggle={(emoji, mine) => void toggle(emoji, mine)} />
      {open === 'picker' && Picker && (
        <Picker
          store={store}
          onClose={close}
          onPick={(emoji) => {
            close();
            const mine = message.reactions.some((r) => r.user_id === store.self && r.emoji_code === emoji.emoji_code && r.reaction_type === emoji.reaction_type);
            void toggle(emoji, mine);
          }}
        />
      )}
      {open === 'delete' && <ConfirmDelete messageId={message.id} onDone={close} />}
      {open === 'history' && <HistoryDialog store={store} messageId={message.id} onDone={close} />}
      {open === 'remind' && <ReminderDialog messageId={message.id} onDone={close} />}
      {error && (
        <p class="action-error error" role="alert">
          {error}{' '}
          <button type="button" onClick={() => setError('')}>
            Dismiss
          </button>
        </p>
      )}
      {note && (
        <p class="action-note" role="status">
          {note.text}{' '}
          {note.link && (
            <input class="link" readOnly value={note.link} aria-label="Link to the message" onFocus={(e) => e.currentTarget.select()} />
          )}{' '}
          <button type="button" onClick={() => setNote(null)}>
            Dismiss
          </button>
        </p>
      )}
    </>
  );
}
