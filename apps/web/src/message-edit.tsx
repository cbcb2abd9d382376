/**
 * Editing a message in place: its content (as typed, fetched raw from the server), its
 * topic, and its channel, as far as the person may (see `allowed`). A move asks which
 * messages go along (this one, this and later, the whole topic). Saving sends one
 * PATCH /messages/{id}; a refusal is shown under the box in words and the box keeps what
 * was typed. Ctrl+Enter saves; Esc cancels.
 */
import type { FeedMessage } from '@teamchat/client-model';
import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError } from './api';
import { messageApi, type Allowed } from './message-api';
import type { ClientStore } from './store';

type Propagate = 'change_one' | 'change_later' | 'change_all';

export function EditForm({ store, message, can: offered, mode, onDone }: { store: ClientStore; message: FeedMessage; can: Allowed; mode: 'edit' | 'move'; onDone: () => void }) {
  // What was offered when the box opened: a window closing meanwhile must not take the box (and its text) away; the server answers instead.
  const [can] = useState(offered);
  const editsContent = mode === 'edit' && can.editContent;
  const [content, setContent] = useState<string | null>(editsContent ? null : '');
  const [topic, setTopic] = useState(message.subject);
  const [streamId, setStreamId] = useState(message.stream_id ?? 0);
  const [propagate, setPropagate] = useState<Propagate>('change_one');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLTextAreaElement & HTMLInputElement>(null);
  const id = message.id;

  useEffect(() => {
    if (!editsContent) {
      first.current?.focus();
      return;
    }
    messageApi.raw(id).then(
      (raw) => setContent((now) => now ?? raw),
      (e) => {
        setError(`The message could not be loaded for editing: ${describeError(e)}`);
        setContent((now) => now ?? '');
      },
    );
  }, []);
  useEffect(() => {
    if (content !== null) first.current?.focus();
  }, [content === null]);

  const isChannel = message.type === 'stream';
  const showTopic = isChannel && (mode === 'move' ? can.editTopic || can.moveChannel : can.editTopic);
  const moved = isChannel && (topic !== message.subject || streamId !== message.stream_id);

  const save = async () => {
    if (busy) return;
    const change: Parameters<typeof messageApi.update>[1] = {};
    if (editsContent && content !== null) change.content = content;
    if (isChannel && topic !== message.subject) change.topic = topic;
    if (isChannel && streamId !== message.stream_id) change.stream_id = streamId;
    if (change.topic !== undefined || change.stream_id !== undefined) change.propagate_mode = propagate;
    if (Object.keys(change).length === 0) return onDone();
    setBusy(true);
    setError('');
    try {
      await messageApi.update(id, change);
      onDone();
    } catch (e) {
      // The box stays as typed: the person can fix it and try again.
      setError(`Not saved: ${describeError(e)}`);
      setBusy(false);
    }
  };

  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void save();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      onDone();
    }
  };

  const errorId = `edit-${id}-error`;
  return (
    <form
      class="edit-form"
      aria-label={mode === 'edit' ? 'Edit message' : 'Move message'}
      onKeyDown={onKey}
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      {editsContent && (
        <label class="field">
          <span class="visually-hidden">Message text</span>
          <textarea
            ref={first}
            rows={Math.min(12, Math.max(3, (content ?? '').split('\n').length + 1))}
            value={content ?? ''}
            disabled={content === null}
            placeholder={content === null ? 'Loading…' : undefined}
            aria-describedby={error ? errorId : undefined}
            onInput={(e) => setContent(e.currentTarget.value)}
          />
        </label>
      )}
      {showTopic && (
        <label class="field inline">
          <span>Topic</span>
          <input ref={editsContent ? undefined : first} value={topic} disabled={!can.editTopic} onInput={(e) => setTopic(e.currentTarget.value)} />
        </label>
      )}
      {mode === 'move' && isChannel && can.moveChannel && (
        <label class="field inline">
          <span>Channel</span>
          <select value={String(streamId)} onChange={(e) => setStreamId(Number(e.currentTarget.value))}>
            {store.channels.map((c) => (
              <option key={c.stream_id} value={String(c.stream_id)}>
                #{c.name}
              </option>
            ))}
          </select>
        </label>
      )}
      {moved && (
        <label class="field inline">
          <span>Which messages</span>
          <select value={propagate} onChange={(e) => setPropagate(e.currentTarget.value as Propagate)}>
            <option value="change_one">Only this message</option>
            <option value="change_later">This and later messages in the topic</option>
            <option value="change_all">All messages in the topic</option>
          </select>
        </label>
      )}
      {error && (
        <p class="error" id={errorId} role="alert">
          {error}
        </p>
      )}
      <div class="edit-buttons">
        <button type="submit" disabled={busy || content === null}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}
