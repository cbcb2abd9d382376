/**
 * The message dialogs: confirming a deletion, and a message's edit history. Native modal
 * dialogs: focus moves in and is trapped there, Esc closes, and the page behind is inert.
 */
import type { MessageHistoryEntry } from '@teamchat/contracts';
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api';
import { messageApi } from './message-api';
import type { ClientStore } from './store';

const dateFormat = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });

export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useRef(`dialog-${Math.random().toString(36).slice(2)}`).current;
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} class="modal" aria-labelledby={titleId} onClose={onClose} onCancel={onClose}>
      <h2 id={titleId}>{title}</h2>
      {children}
    </dialog>
  );
}

/** A dialog's closing row: its close button ("Close", or "Cancel" where closing gives something up) and, in a form, its submit button. */
export function DialogButtons({ close = 'Close', onClose, submit, busy = false }: { close?: 'Close' | 'Cancel'; onClose: () => void; submit?: string; busy?: boolean }) {
  return (
    <div class="dialog-buttons">
      <button type="button" onClick={onClose}>
        {close}
      </button>
      {submit && (
        <button type="submit" disabled={busy}>
          {submit}
        </button>
      )}
    </div>
  );
}

export function ConfirmDelete({ messageId, onDone }: { messageId: number; onDone: () => void }) {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const remove = async () => {
    setBusy(true);
    setError('');
    try {
      await messageApi.remove(messageId);
      onDone();
    } catch (e) {
      setError(`Not deleted: ${describeError(e)}`);
      setBusy(false);
    }
  };
  return (
    <Modal title="Delete this message?" onClose={onDone}>
      <p>It is removed for everyone. This cannot be undone.</p>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <div class="dialog-buttons">
        <button type="button" onClick={onDone}>
          Cancel
        </button>
        <button type="button" class="danger" disabled={busy} onClick={remove}>
          Delete
        </button>
      </div>
    </Modal>
  );
}

export function HistoryDialog({ store, messageId, onDone }: { store: ClientStore; messageId: number; onDone: () => void }) {
  const [versions, setVersions] = useState<MessageHistoryEntry[] | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    messageApi.history(messageId).then(
      (r) => setVersions(r.message_history),
      (e) => setError(`The history could not be loaded: ${describeError(e)}`),
    );
  }, [messageId]);
  const channelName = (id: number | undefined) => (id === undefined ? '' : `#${store.channel(id)?.name ?? id}`);
  return (
    <Modal title="Edit history" onClose={onDone}>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      {!versions && !error && <p role="status">Loading…</p>}
      {versions && (
        <ol class="history">
          {versions.map((v, i) => {
            const when = new Date(v.timestamp * 1000);
            const who = v.user_id === null ? 'Someone' : store.userName(v.user_id);
            const what = i === 0 ? 'Sent' : [v.prev_content !== undefined && 'Edited', v.prev_topic !== undefined && `Topic changed from “${v.prev_topic}”`, v.prev_stream !== undefined && `Moved from ${channelName(v.prev_stream)}`].filter(Boolean).join('; ') || 'Changed';
            return (
              <li key={i} class="version" aria-label={`Version ${i + 1}`}>
                <p class="meta">
                  <strong>{what}</strong> by {who}, <time dateTime={when.toISOString()}>{dateFormat.format(when)}</time> — topic “{v.topic}”
                </p>
                <div class="content rendered" dangerouslySetInnerHTML={{ __html: v.rendered_content }} />
              </li>
            );
          })}
        </ol>
      )}
      <DialogButtons onClose={onDone} />
    </Modal>
  );
}
