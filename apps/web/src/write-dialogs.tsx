/**
 * The compose box's dialogs: the drafts kept on the server (open one, delete one), saved
 * snippets (insert, create, delete), "send later" (a time for the box's message), and the
 * scheduled messages and reminders (edit, delete). Lists follow the registration, which
 * the server's events keep current; a refusal is said in words in the dialog, and the
 * box's text is untouched by any of it until a request succeeded.
 */
import type { StoredDraft } from '@teamchat/contracts';
import { useState } from 'preact/hooks';
import { describeError } from './api';
import { resolveTarget, type Box } from './compose-box';
import { DialogButtons, Modal } from './message-dialogs';
import type { ClientStore } from './store';
import { writeApi, type Reminder, type SavedSnippet, type ScheduledMessage } from './write-api';

const when = new Intl.DateTimeFormat(undefined, { weekday: 'short', day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
const at = (seconds: number) => when.format(new Date(seconds * 1000));
const excerpt = (text: string) => (text.length > 140 ? `${text.slice(0, 140)}…` : text);

/** A datetime-local input's value for a time (local, to the minute). */
function localValue(ms: number): string {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
const secondsOf = (value: string) => Math.floor(new Date(value).getTime() / 1000);

function recipientOf(store: ClientStore, type: string, to: number | number[], topic?: string): string {
  if (type === 'stream') return `#${store.channel(Array.isArray(to) ? to[0]! : to)?.name ?? 'unknown channel'} > ${topic ?? ''}`;
  if (type === 'private') return store.peopleNames((Array.isArray(to) ? to : [to]).filter((id) => id !== store.self));
  return 'No recipient yet';
}

function useAction() {
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const act = async (what: string, run: () => Promise<unknown>): Promise<boolean> => {
    setBusy(true);
    setError('');
    try {
      await run();
      return true;
    } catch (e) {
      setError(`${what}: ${describeError(e)}`);
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { error, busy, act };
}

const Failure = ({ error }: { error: string }) => (
  <p class="error" role="alert">
    {error}
  </p>
);

export function DraftsDialog({ store, onRestore, onDone }: { store: ClientStore; onRestore: (draft: StoredDraft) => void; onDone: () => void }) {
  const { error, act } = useAction();
  const drafts = ((store.state.drafts ?? []) as StoredDraft[]).slice().sort((a, b) => b.timestamp - a.timestamp);
  return (
    <Modal title="Drafts" onClose={onDone}>
      {drafts.length === 0 && <p class="muted">No drafts. What you type in the message box is saved here until you send it.</p>}
      <ul class="write-list" aria-label="Drafts">
        {drafts.map((d) => {
          const to = recipientOf(store, d.type, d.to, d.topic);
          return (
            <li key={d.id}>
              <p class="meta">
                <strong>{to}</strong> · <time dateTime={new Date(d.timestamp * 1000).toISOString()}>{at(d.timestamp)}</time>
              </p>
              <p class="text">{excerpt(d.content)}</p>
              <div class="row-buttons">
                <button type="button" aria-label={`Restore the draft to ${to}`} onClick={() => { onRestore(d); onDone(); }}>
                  Restore
                </button>
                <button type="button" class="danger" aria-label={`Delete the draft to ${to}`} onClick={() => void act('The draft was not deleted', () => writeApi.deleteDraft(d.id))}>
                  Delete
                </button>
              </div>
            </li>
          );
        })}
      </ul>
      <Failure error={error} />
      <DialogButtons onClose={onDone} />
    </Modal>
  );
}

export function SnippetsDialog({ store, content, onInsert, onDone }: { store: ClientStore; content: string; onInsert: (text: string) => void; onDone: () => void }) {
  const { error, busy, act } = useAction();
  const [title, setTitle] = useState('');
  const [text, setText] = useState(content);
  const snippets = (store.state.saved_snippets ?? []) as SavedSnippet[];
  const create = async (e: Event) => {
    e.preventDefault();
    if (await act('The snippet was not saved', () => writeApi.createSnippet(title, text))) setTitle('');
  };
  return (
    <Modal title="Saved snippets" onClose={onDone}>
      {snippets.length === 0 && <p class="muted">No saved snippets yet.</p>}
      <ul class="write-list" aria-label="Saved snippets">
        {snippets.map((s) => (
          <li key={s.id}>
            <p class="meta">
              <strong>{s.title}</strong>
            </p>
            <p class="text">{excerpt(s.content)}</p>
            <div class="row-buttons">
              <button type="button" aria-label={`Insert “${s.title}”`} onClick={() => { onInsert(s.content); onDone(); }}>
                Insert
              </button>
              <button type="button" class="danger" aria-label={`Delete “${s.title}”`} onClick={() => void act('The snippet was not deleted', () => writeApi.deleteSnippet(s.id))}>
                Delete
              </button>
            </div>
          </li>
        ))}
      </ul>
      <form class="write-form" onSubmit={create} aria-label="New snippet">
        <h3>New snippet</h3>
        <label for="snippet-title">Title</label>
        <input id="snippet-title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        <label for="snippet-content">Text</label>
        <textarea id="snippet-content" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
        <Failure error={error} />
        <DialogButtons onClose={onDone} submit="Save snippet" busy={busy} />
      </form>
    </Modal>
  );
}

export function SendLaterDialog({ store, box, onDone }: { store: ClientStore; box: Box; onDone: () => void }) {
  const { error, busy, act } = useAction();
  const [value, setValue] = useState(() => localValue(Math.ceil((Date.now() + 3_600_000) / 300_000) * 300_000));
  const [problem, setProblem] = useState('');
  const schedule = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    const resolved = resolveTarget(store, box.to, box.topic);
    if ('error' in resolved) return setProblem(resolved.error);
    if (box.content.trim() === '') return setProblem('Type a message first.');
    if (!value || Number.isNaN(secondsOf(value))) return setProblem('Choose a date and time.');
    const content = box.content;
    const target = resolved.target;
    if (await act('The message was not scheduled', () => writeApi.schedule(target, content, secondsOf(value)))) {
      // Only the text scheduled leaves the box; anything typed meanwhile stays.
      box.setContent((now) => (now === content ? '' : now));
      onDone();
    }
  };
  return (
    <Modal title="Send later" onClose={onDone}>
      <form class="write-form" onSubmit={schedule}>
        <p class="muted">To {box.to.trim() || 'nobody yet'}{box.to.trim().startsWith('#') ? ` > ${box.topic}` : ''}</p>
        <label for="send-later-at">Send at</label>
        <input id="send-later-at" type="datetime-local" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        <Failure error={problem || error} />
        <DialogButtons close="Cancel" onClose={onDone} submit="Schedule" busy={busy} />
      </form>
    </Modal>
  );
}

/** "Remind me" from a message's menu: the server sends the person a direct message about it at the chosen time. */
export function ReminderDialog({ messageId, onDone }: { messageId: number; onDone: () => void }) {
  const { error, busy, act } = useAction();
  const [value, setValue] = useState(() => localValue(Math.ceil((Date.now() + 3_600_000) / 300_000) * 300_000));
  const [note, setNote] = useState('');
  const remind = async (e: Event) => {
    e.preventDefault();
    if (await act('No reminder was set', () => writeApi.remind(messageId, secondsOf(value), note.trim() || undefined))) onDone();
  };
  return (
    <Modal title="Remind me about this message" onClose={onDone}>
      <form class="write-form" onSubmit={remind}>
        <label for="remind-at">Remind me at</label>
        <input id="remind-at" type="datetime-local" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        <label for="remind-note">Note (optional)</label>
        <input id="remind-note" value={note} onInput={(e) => setNote(e.currentTarget.value)} />
        <Failure error={error} />
        <DialogButtons close="Cancel" onClose={onDone} submit="Set reminder" busy={busy} />
      </form>
    </Modal>
  );
}

function ScheduledItem({ store, message }: { store: ClientStore; message: ScheduledMessage }) {
  const { error, busy, act } = useAction();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(message.content);
  const [value, setValue] = useState(localValue(message.scheduled_delivery_timestamp * 1000));
  const to = recipientOf(store, message.type, message.to, message.topic);
  const id = message.scheduled_message_id;
  const save = async (e: Event) => {
    e.preventDefault();
    if (await act('Not changed', () => writeApi.editScheduled(id, { content: text, scheduled_delivery_timestamp: secondsOf(value) }))) setEditing(false);
  };
  return (
    <li>
      <p class="meta">
        <strong>{to}</strong> · <time dateTime={new Date(message.scheduled_delivery_timestamp * 1000).toISOString()}>{at(message.scheduled_delivery_timestamp)}</time>
        {message.failed && <span class="error"> — could not be sent</span>}
      </p>
      {editing ? (
        <form class="write-form" onSubmit={save} aria-label={`Edit the message to ${to}`}>
          <label for={`scheduled-text-${id}`}>Message</label>
          <textarea id={`scheduled-text-${id}`} rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          <label for={`scheduled-at-${id}`}>Send at</label>
          <input id={`scheduled-at-${id}`} type="datetime-local" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
          <Failure error={error} />
          <div class="row-buttons">
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
            <button type="submit" disabled={busy}>
              Save
            </button>
          </div>
        </form>
      ) : (
        <>
          <div class="text content rendered" dangerouslySetInnerHTML={{ __html: message.rendered_content }} />
          <Failure error={error} />
          <div class="row-buttons">
            <button type="button" aria-label={`Edit the message to ${to}`} onClick={() => setEditing(true)}>
              Edit
            </button>
            <button type="button" class="danger" aria-label={`Delete the message to ${to}`} onClick={() => void act('Not deleted', () => writeApi.deleteScheduled(id))}>
              Delete
            </button>
          </div>
        </>
      )}
    </li>
  );
}

function ReminderItem({ reminder }: { reminder: Reminder }) {
  const { error, act } = useAction();
  const label = `Reminder about message ${reminder.reminder_target_message_id}`;
  return (
    <li>
      <p class="meta">
        <strong>{label}</strong> · <time dateTime={new Date(reminder.scheduled_delivery_timestamp * 1000).toISOString()}>{at(reminder.scheduled_delivery_timestamp)}</time>
        {reminder.failed && <span class="error"> — could not be sent</span>}
      </p>
      <Failure error={error} />
      <div class="row-buttons">
        <button type="button" class="danger" aria-label={`Delete the ${label.toLowerCase()}`} onClick={() => void act('Not deleted', () => writeApi.deleteReminder(reminder.reminder_id))}>
          Delete
        </button>
      </div>
    </li>
  );
}

export function ScheduledDialog({ store, onDone }: { store: ClientStore; onDone: () => void }) {
  const scheduled = ((store.state.scheduled_messages ?? []) as ScheduledMessage[]).slice().sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp);
  const reminders = ((store.state.reminders ?? []) as Reminder[]).slice().sort((a, b) => a.scheduled_delivery_timestamp - b.scheduled_delivery_timestamp);
  return (
    <Modal title="Scheduled messages" onClose={onDone}>
      {scheduled.length === 0 && <p class="muted">No scheduled messages. “Send later” under the message box schedules one.</p>}
      <ul class="write-list" aria-label="Scheduled messages">
        {scheduled.map((m) => (
          <ScheduledItem key={m.scheduled_message_id} store={store} message={m} />
        ))}
      </ul>
      {reminders.length > 0 && (
        <>
          <h3>Reminders</h3>
          <ul class="write-list" aria-label="Reminders">
            {reminders.map((r) => (
              <ReminderItem key={r.reminder_id} reminder={r} />
            ))}
          </ul>
        </>
      )}
      <DialogButtons onClose={onDone} />
    </Modal>
  );
}
