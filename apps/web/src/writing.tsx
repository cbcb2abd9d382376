/**
 * What the compose box does beyond sending (issue 41 item 3), as one hook the box calls
 * and the toolbar under it:
 *
 * - drafts kept on the server: what is typed is saved (1 s after the last change) as a
 *   draft, edited in place while the box holds it, deleted when the box is emptied or
 *   sent; the Drafts list opens any of them, here or on another device;
 * - typing notifications, paced by `TypingSender` (client-model);
 * - files by picker, paste and drag-and-drop, each uploading with its progress and a
 *   Cancel button, a placeholder in the text replaced by the file's Markdown link;
 * - a preview of the rendered message, and the dialogs for snippets, sending later,
 *   drafts and scheduled messages (write-dialogs.tsx).
 *
 * Failures are said in words under the box; nothing typed is removed by any of them.
 */
import { ApiError, TypingSender, typingTimingsOf, type Narrow, type TypingRequest, type TypingTarget } from '@teamchat/client-model';
import type { DraftInput } from '@teamchat/contracts';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { describeError } from './api';
import { resolveTarget, type Box } from './compose-box';
import type { ClientStore } from './store';
import { DraftsDialog, ScheduledDialog, SendLaterDialog, SnippetsDialog } from './write-dialogs';
import { tooLargeFor, uploadFile, writeApi } from './write-api';
import './writing.css';

/** The compose box as the tools see it. */

const DRAFT_SAVE_MS = 1000;
const draftIdKey = (self: number) => `teamchat-draft-id-${self}`;

/** The box as a server draft: unaddressed (type '') until To names a channel or people. */
function draftOf(store: ClientStore, to: string, topic: string, content: string): DraftInput {
  const resolved = resolveTarget(store, to, topic);
  if ('error' in resolved) return { type: '', to: [], topic: '', content };
  const t = resolved.target;
  return t.type === 'stream' ? { type: 'stream', to: [t.streamId], topic: t.topic, content } : { type: 'private', to: t.to.length ? t.to : [store.self], topic: '', content };
}

function typingTargetOf(store: ClientStore, to: string, topic: string): TypingTarget | undefined {
  const resolved = resolveTarget(store, to, topic);
  if ('error' in resolved) return undefined;
  const t = resolved.target;
  if (t.type === 'stream') return { type: 'stream', streamId: t.streamId, topic: t.topic };
  // Nobody is told one types to oneself.
  return t.to.length ? { type: 'direct', to: t.to } : undefined;
}

/**
 * The box's server draft: saves are chained (one request at a time, in order), so that a
 * create finishes before the edits that follow it use its id.
 */
class DraftSync {
  private chain: Promise<void> = Promise.resolve();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private pending: DraftInput | undefined;
  id: number | undefined;

  constructor(
    private readonly self: number,
    private readonly report: (error: string) => void,
  ) {
    const stored = Number(sessionStorage.getItem(draftIdKey(self)));
    this.id = Number.isInteger(stored) && stored > 0 ? stored : undefined;
  }

  schedule(draft: DraftInput): void {
    clearTimeout(this.timer);
    this.pending = draft;
    this.timer = setTimeout(() => void this.flush(), DRAFT_SAVE_MS);
  }

  /** Saves what waits now; resolves once every save so far is done. */
  flush(): Promise<void> {
    clearTimeout(this.timer);
    const draft = this.pending;
    this.pending = undefined;
    if (draft) this.chain = this.chain.then(() => this.write(draft));
    return this.chain;
  }

  /** The box now holds a draft that exists (restored): later saves edit it. */
  bind(id: number): void {
    clearTimeout(this.timer);
    this.pending = undefined;
    this.setId(id);
  }

  private setId(id: number | undefined): void {
    this.id = id;
    if (id === undefined) sessionStorage.removeItem(draftIdKey(this.self));
    else sessionStorage.setItem(draftIdKey(this.self), String(id));
  }

  private async write(draft: DraftInput): Promise<void> {
    try {
      if (draft.content.trim() === '') {
        const id = this.id;
        if (id === undefined) return;
        this.setId(undefined);
        // Already gone (deleted from the list, or on another device) is what was wanted.
        await writeApi.deleteDraft(id).catch((e: unknown) => {
          if (!(e instanceof ApiError && e.status === 400)) throw e;
        });
      } else {
        let saved = false;
        if (this.id !== undefined) {
          try {
            await writeApi.editDraft(this.id, draft);
            saved = true;
          } catch (e) {
            // Deleted meanwhile: it is written anew.
            if (!(e instanceof ApiError && e.status === 400)) throw e;
          }
        }
        if (!saved) this.setId(await writeApi.createDraft(draft));
      }
      this.report('');
    } catch (e) {
      this.report(`Your draft was not saved on the server: ${describeError(e).replace(/\.$/, '')}. It is kept in this browser.`);
    }
  }
}

interface Uploading {
  key: number;
  name: string;
  sent: number;
  total: number;
  cancel: () => void;
}

let uploadSerial = 0;

export function useWriting(store: ClientStore, box: Box) {
  const latest = useRef(box);
  latest.current = box;
  const [draftError, setDraftError] = useState('');
  const [uploadError, setUploadError] = useState('');
  const [uploads, setUploads] = useState<Uploading[]>([]);
  const drafts = useMemo(() => new DraftSync(store.self, setDraftError), [store]);

  // --- Drafts ---
  const first = useRef(true);
  useEffect(() => {
    // The box as it was left (sessionStorage) is already the draft the stored id names.
    if (first.current) {
      first.current = false;
      return;
    }
    if (!store.ready) return;
    // The person turned draft synchronization off: the box's copy in this browser is all there is.
    const settings = (store.state.user_settings ?? store.state) as { enable_drafts_synchronization?: boolean };
    if (settings.enable_drafts_synchronization === false) return;
    drafts.schedule(draftOf(store, box.to, box.topic, box.content));
  }, [box.to, box.topic, box.content, store.ready]);
  useEffect(() => () => void drafts.flush(), [drafts]);

  const restore = async (draft: { id: number; type: string; to: number[]; topic: string; content: string }) => {
    await drafts.flush();
    drafts.bind(draft.id);
    const to = draft.type === 'stream' ? `#${store.channel(draft.to[0]!)?.name ?? ''}` : draft.type === 'private' ? draft.to.filter((id) => id !== store.self).map((id) => store.userName(id)).join(', ') || store.userName(store.self) : '';
    box.fill(to, draft.type === 'stream' ? draft.topic : '', draft.content);
  };

  // --- Typing ---
  const sender = useMemo(() => new TypingSender(typingTimingsOf(store.state)), [store, store.ready]);
  const typingTimer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // Failing typing notices are not worth the person's attention: the message itself is what matters.
  const run = (requests: TypingRequest[]) => requests.forEach((r) => void writeApi.typing(r.op, r.target).catch(() => undefined));
  const rearm = () => {
    clearTimeout(typingTimer.current);
    const wait = sender.nextCheckIn(Date.now());
    if (wait !== undefined)
      typingTimer.current = setTimeout(() => {
        run(sender.idle(Date.now()));
        rearm();
      }, wait + 20);
  };
  /** The person typed in the message field (`value`: its new text). */
  const typed = (value: string) => {
    const b = latest.current;
    run(sender.input(value.trim() === '' ? undefined : typingTargetOf(store, b.to, b.topic), Date.now()));
    rearm();
  };
  const sent = () => {
    run(sender.stop());
    clearTimeout(typingTimer.current);
  };
  useEffect(() => () => sent(), [sender]);

  // --- Files ---
  /** Puts `text` at the caret (after a space if it would touch a word); returns what was put in. */
  const insert = (text: string): string => {
    const area = latest.current.textarea.current;
    const now = latest.current.content;
    const start = Math.min(area?.selectionStart ?? now.length, now.length);
    const end = Math.min(area?.selectionEnd ?? start, now.length);
    const before = now.slice(0, start);
    const put = `${before === '' || /\s$/.test(before) ? '' : ' '}${text}`;
    latest.current.setContent((current) => (current === now ? `${before}${put}${now.slice(end)}` : `${current}${put}`));
    return put;
  };
  const replace = (placeholder: string, text: string) =>
    latest.current.setContent((now) => (now.includes(placeholder) ? now.replace(placeholder, text) : text === '' ? now : `${now}${now === '' || now.endsWith('\n') ? '' : '\n'}${text.trimStart()}`));

  const upload = (files: File[]) => {
    setUploadError('');
    for (const file of files) {
      // Refused here, in words, rather than after sending it all: the server said its limit.
      const tooLarge = tooLargeFor(file, store.state.max_file_upload_size_mib);
      if (tooLarge) {
        setUploadError(`“${file.name}” was not uploaded: ${tooLarge}`);
        continue;
      }
      const key = ++uploadSerial;
      const put = insert(`[Uploading ${file.name}…]()`);
      const gap = put.startsWith(' ') ? ' ' : '';
      const { done, cancel } = uploadFile(file, (sent, total) => setUploads((list) => list.map((u) => (u.key === key ? { ...u, sent, total } : u))));
      setUploads((list) => [...list, { key, name: file.name, sent: 0, total: file.size, cancel }]);
      done.then(
        ({ url, filename }) => replace(put, `${gap}[${filename}](${url})`),
        (e: unknown) => {
          replace(put, '');
          if (!(e instanceof ApiError && e.code === 'ABORTED')) setUploadError(`“${file.name}” was not uploaded: ${describeError(e)}`);
        },
      ).finally(() => setUploads((list) => list.filter((u) => u.key !== key)));
    }
  };

  const filesOf = (data: DataTransfer | null) => [...(data?.files ?? [])];

  return {
    typed,
    sent,
    restore,
    upload,
    uploads,
    insert,
    errors: [draftError, uploadError].filter(Boolean),
    clearUploadError: () => setUploadError(''),
    onPaste: (e: ClipboardEvent) => {
      const files = filesOf(e.clipboardData);
      if (files.length === 0) return;
      e.preventDefault();
      upload(files);
    },
    onDragOver: (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    },
    onDrop: (e: DragEvent) => {
      const files = filesOf(e.dataTransfer);
      if (files.length === 0) return;
      e.preventDefault();
      upload(files);
    },
  };
}

export type Writing = ReturnType<typeof useWriting>;

type Open = 'drafts' | 'scheduled' | 'later' | 'snippets' | null;

/** The toolbar under the message field, the preview, the uploads under way, and what failed. */
export function WritingTools({ store, box, writing }: { store: ClientStore; box: Box; writing: Writing }) {
  const [previewing, setPreviewing] = useState(false);
  const [rendered, setRendered] = useState('');
  const [previewError, setPreviewError] = useState('');
  const [open, setOpen] = useState<Open>(null);
  const picker = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!previewing) return;
    if (box.content.trim() === '') {
      setRendered('');
      return;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => {
      writeApi.render(box.content, controller.signal).then(
        (html) => {
          setRendered(html);
          setPreviewError('');
        },
        (e: unknown) => {
          if (!controller.signal.aborted) setPreviewError(`The preview failed: ${describeError(e)}`);
        },
      );
    }, 250);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [previewing, box.content]);

  const drafts = (store.state.drafts ?? []) as { id: number }[];
  const scheduled = (store.state.scheduled_messages ?? []) as unknown[];
  const reminders = (store.state.reminders ?? []) as unknown[];

  return (
    <>
      <div class="write-tools" role="toolbar" aria-label="Message tools">
        <button type="button" aria-pressed={previewing} onClick={() => setPreviewing(!previewing)}>
          Preview
        </button>
        <button type="button" onClick={() => picker.current?.click()}>
          Attach files
        </button>
        <input ref={picker} type="file" multiple hidden aria-label="Files to attach" onChange={(e) => {
          writing.upload([...(e.currentTarget.files ?? [])]);
          e.currentTarget.value = '';
        }} />
        <button type="button" aria-haspopup="dialog" onClick={() => setOpen('snippets')}>
          Snippets
        </button>
        <button type="button" aria-haspopup="dialog" onClick={() => setOpen('later')}>
          Send later
        </button>
        <span class="spacer" />
        <button type="button" aria-haspopup="dialog" onClick={() => setOpen('drafts')}>
          Drafts ({drafts.length})
        </button>
        <button type="button" aria-haspopup="dialog" onClick={() => setOpen('scheduled')}>
          Scheduled ({scheduled.length + reminders.length})
        </button>
      </div>
      {writing.uploads.length > 0 && (
        <ul class="uploads" aria-label="Uploads">
          {writing.uploads.map((u) => (
            <li key={u.key}>
              <span class="name">{u.name}</span>
              <progress max={u.total || 1} value={u.sent} aria-label={`Uploading ${u.name}`} />
              <button type="button" onClick={u.cancel} aria-label={`Cancel uploading ${u.name}`}>
                Cancel
              </button>
            </li>
          ))}
        </ul>
      )}
      {previewing && (
        <section class="preview" aria-label="Preview" aria-live="polite">
          {previewError ? (
            <p class="error">{previewError}</p>
          ) : rendered ? (
            <div class="content rendered" dangerouslySetInnerHTML={{ __html: rendered }} />
          ) : (
            <p class="muted">Nothing to preview yet.</p>
          )}
        </section>
      )}
      <p class="error write-errors" role="alert">
        {writing.errors.join(' ')}
      </p>
      {open === 'drafts' && <DraftsDialog store={store} onRestore={(d) => void writing.restore(d)} onDone={() => setOpen(null)} />}
      {open === 'scheduled' && <ScheduledDialog store={store} onDone={() => setOpen(null)} />}
      {open === 'later' && <SendLaterDialog store={store} box={box} onDone={() => setOpen(null)} />}
      {open === 'snippets' && <SnippetsDialog store={store} content={box.content} onInsert={(text) => void writing.insert(text)} onDone={() => setOpen(null)} />}
    </>
  );
}

/** "X is typing…" for the open conversation, from the others' typing events. */
export function TypingNotice({ store, narrow }: { store: ClientStore; narrow: Narrow }) {
  const [, tick] = useState(0);
  const now = Date.now();
  const typists = store.typing.in(narrow, now);
  const next = store.typing.nextExpiry(now);
  useEffect(() => {
    if (next === undefined) return;
    const timer = setTimeout(() => tick((n) => n + 1), next - Date.now() + 20);
    return () => clearTimeout(timer);
  }, [next]);
  const names = typists.map((t) => (t.topic === undefined ? store.userName(t.userId) : `${store.userName(t.userId)} (in “${t.topic}”)`));
  const text = names.length === 0 ? '' : names.length === 1 ? `${names[0]} is typing…` : names.length <= 3 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)} are typing…` : 'Several people are typing…';
  return (
    <p class="typing-notice" aria-live="polite">
      {text}
    </p>
  );
}
