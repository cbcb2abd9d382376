/**
 * One's own status: a text and an emoji, set or cleared with POST /users/me/status. A few
 * common statuses fill both in one click (as Zulip offers); the emoji picker chooses any
 * other. A refusal (a text too long, an unknown emoji) is shown under the field, and what
 * was typed stays.
 */
import type { ComponentType } from 'preact';
import { useState } from 'preact/hooks';
import { describeError, json } from './api';
import type { Emoji } from './message-api';
import { Modal } from './message-dialogs';
import { statusOfUser, StatusEmoji } from './people';
import type { ClientStore } from './store';

const COMMON: { text: string; emoji: Emoji }[] = [
  { text: 'In a meeting', emoji: { emoji_name: 'calendar', emoji_code: '1f4c6', reaction_type: 'unicode_emoji' } },
  { text: 'Commuting', emoji: { emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' } },
  { text: 'Out sick', emoji: { emoji_name: 'face_with_thermometer', emoji_code: '1f912', reaction_type: 'unicode_emoji' } },
  { text: 'Vacationing', emoji: { emoji_name: 'palm_tree', emoji_code: '1f334', reaction_type: 'unicode_emoji' } },
  { text: 'Working remotely', emoji: { emoji_name: 'house', emoji_code: '1f3e0', reaction_type: 'unicode_emoji' } },
];

type PickerProps = { store: ClientStore; onPick: (emoji: Emoji) => void; onClose: () => void; label?: string };
/** The emoji picker is its own chunk, loaded when first opened (the first load carries none of it). */
let Picker: ComponentType<PickerProps> | undefined;

export const setOwnStatus = (status: { status_text: string; emoji_name: string; emoji_code?: string; reaction_type?: string }) => json<unknown>('POST', '/users/me/status', status);

export function StatusDialog({ store, onClose }: { store: ClientStore; onClose: () => void }) {
  const current = statusOfUser(store, store.self);
  const [text, setText] = useState(current.status_text ?? '');
  const [emoji, setEmoji] = useState<Emoji | undefined>(current.emoji_name && current.emoji_code && current.reaction_type ? (current as Emoji) : undefined);
  const [picking, setPicking] = useState(false);
  const openPicker = async () => {
    if (picking) return setPicking(false);
    try {
      Picker ??= (await import('./emoji-picker')).EmojiPicker;
      setPicking(true);
    } catch (e) {
      setError(`The emoji could not be loaded: ${describeError(e)}`);
    }
  };
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const save = async (status: { status_text: string; emoji?: Emoji }) => {
    setBusy(true);
    setError('');
    try {
      await setOwnStatus({ status_text: status.status_text, ...(status.emoji ? { ...status.emoji } : { emoji_name: '' }) });
      onClose();
    } catch (e) {
      setError(`Your status was not saved: ${describeError(e)}`);
      setBusy(false);
    }
  };

  return (
    <Modal title="Your status" onClose={onClose}>
      <form
        class="status-form"
        onSubmit={(e) => {
          e.preventDefault();
          void save({ status_text: text.trim(), emoji });
        }}
      >
        <div class="status-row">
          <button type="button" class="status-emoji-button" aria-label={emoji ? `Emoji: ${emoji.emoji_name}. Choose another` : 'Choose an emoji'} aria-expanded={picking} onClick={() => void openPicker()}>
            {emoji ? <StatusEmoji store={store} status={emoji} /> : <span aria-hidden="true">☺</span>}
          </button>
          <input id="status-text" type="text" aria-label="Status text" placeholder="What are you up to?" value={text} aria-invalid={error ? true : undefined} aria-describedby="status-error" onInput={(e) => setText(e.currentTarget.value)} />
        </div>
        {picking && Picker && (
          <Picker
            store={store}
            label="Status emoji"
            onPick={(e) => {
              setEmoji(e);
              setPicking(false);
            }}
            onClose={() => setPicking(false)}
          />
        )}
        <p id="status-error" class="error" role="alert">
          {error}
        </p>
        <ul class="common-statuses" aria-label="Common statuses">
          {COMMON.map((c) => (
            <li key={c.text}>
              <button
                type="button"
                onClick={() => {
                  setText(c.text);
                  setEmoji(c.emoji);
                }}
              >
                <StatusEmoji store={store} status={c.emoji} /> {c.text}
              </button>
            </li>
          ))}
        </ul>
        <div class="dialog-buttons">
          <button type="button" disabled={busy || (!current.status_text && !current.emoji_name)} onClick={() => void save({ status_text: '' })}>
            Clear status
          </button>
          {emoji && (
            <button type="button" onClick={() => setEmoji(undefined)}>
              Remove emoji
            </button>
          )}
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" class="primary" disabled={busy}>
            Save status
          </button>
        </div>
      </form>
    </Modal>
  );
}
