/**
 * The requests behind "writing more" (issue 41 item 3): the rendered preview, drafts kept
 * on the server, typing notifications, file uploads (with progress and cancel), scheduled
 * messages and reminders, saved snippets. Types come from the endpoint contracts.
 */
import { ApiError, type TypingTarget } from '@teamchat/client-model';
import type { ApiReminder, ApiScheduledMessage, DraftInput, StoredDraft } from '@teamchat/contracts';
import type { z } from 'zod';
import { csrf, json } from './api';

export type ScheduledMessage = z.output<typeof ApiScheduledMessage>;
export type Reminder = z.output<typeof ApiReminder>;
export interface SavedSnippet {
  id: number;
  title: string;
  content: string;
  date_created: number;
}
export type { DraftInput, StoredDraft };

/** Where a scheduled message goes, as POST /scheduled_messages takes it. */
export type Destination = { type: 'stream'; streamId: number; topic: string } | { type: 'private'; to: number[] };

const destination = (d: Destination) => (d.type === 'stream' ? { type: 'stream', to: d.streamId, topic: d.topic } : { type: 'direct', to: d.to });

export const writeApi = {
  render: (content: string, signal?: AbortSignal) => json<{ rendered: string }>('POST', '/messages/render', { content }, signal).then((r) => r.rendered),

  createDraft: async (draft: DraftInput) => (await json<{ ids: number[] }>('POST', '/drafts', { drafts: [draft] })).ids[0]!,
  editDraft: (id: number, draft: DraftInput) => json<unknown>('PATCH', `/drafts/${id}`, { draft }),
  deleteDraft: (id: number) => json<unknown>('DELETE', `/drafts/${id}`),

  typing: (op: 'start' | 'stop', target: TypingTarget) =>
    json<unknown>('POST', '/typing', target.type === 'stream' ? { type: 'stream', op, stream_id: target.streamId, topic: target.topic } : { type: 'direct', op, to: target.to }),

  schedule: (d: Destination, content: string, at: number) =>
    json<{ scheduled_message_id: number }>('POST', '/scheduled_messages', { ...destination(d), content, scheduled_delivery_timestamp: at }),
  editScheduled: (id: number, change: { content?: string; scheduled_delivery_timestamp?: number }) => json<unknown>('PATCH', `/scheduled_messages/${id}`, change),
  deleteScheduled: (id: number) => json<unknown>('DELETE', `/scheduled_messages/${id}`),
  remind: (messageId: number, at: number, note?: string) => json<{ reminder_id: number }>('POST', '/reminders', { message_id: messageId, scheduled_delivery_timestamp: at, note }),
  deleteReminder: (id: number) => json<unknown>('DELETE', `/reminders/${id}`),

  createSnippet: (title: string, content: string) => json<{ saved_snippet_id: number }>('POST', '/saved_snippets', { title, content }),
  deleteSnippet: (id: number) => json<unknown>('DELETE', `/saved_snippets/${id}`),
};

const MIB = 1024 * 1024;

/**
 * Words for a file over a limit the server announced in POST /register (its
 * `max_*_size_mib`), so that the page refuses it before sending it; undefined: within it,
 * or no limit known (the server still decides).
 */
export function tooLargeFor(file: { size: number }, limitMib: unknown): string | undefined {
  if (typeof limitMib !== 'number' || limitMib <= 0 || file.size <= limitMib * MIB) return undefined;
  const size = file.size >= 10 * MIB ? Math.round(file.size / MIB) : Math.round((file.size / MIB) * 10) / 10;
  return `it is ${size} MiB, and this server takes files of up to ${limitMib} MiB.`;
}

export interface Sending<T> {
  /** Resolves with the reply; rejects with an ApiError (code ABORTED when cancelled). */
  done: Promise<T>;
  cancel: () => void;
}

/**
 * Sends one file as a multipart POST to `/json{path}`. XMLHttpRequest, not fetch: fetch
 * reports no upload progress. `onProgress` gets the bytes sent and the total.
 */
export function sendFile(path: string, file: File, onProgress: (sent: number, total: number) => void): Sending<Record<string, unknown>> {
  const xhr = new XMLHttpRequest();
  const done = new Promise<Record<string, unknown>>((resolve, reject) => {
    xhr.open('POST', `/json${path}`);
    xhr.setRequestHeader('X-CSRFToken', csrf());
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let body: { result?: string; msg?: string; code?: string } & Record<string, unknown> = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // A proxy's page: the status says what happened.
      }
      if (xhr.status >= 200 && xhr.status < 300 && body.result === 'success') resolve(body);
      else reject(new ApiError(body.msg ?? (xhr.status === 413 ? 'The file is too large for this server.' : xhr.statusText || `HTTP ${xhr.status}`), body.code ?? `HTTP_${xhr.status}`, xhr.status));
    };
    xhr.onerror = () => reject(new ApiError('network error', 'NETWORK', 0));
    xhr.onabort = () => reject(new ApiError('cancelled', 'ABORTED', 0));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
  return { done, cancel: () => xhr.abort() };
}

export type Upload = Sending<{ url: string; filename: string }>;

/** Sends one file to POST /user_uploads. */
export function uploadFile(file: File, onProgress: (sent: number, total: number) => void): Upload {
  const { done, cancel } = sendFile('/user_uploads', file, onProgress);
  return {
    done: done.then((body) => {
      const url = (body.url ?? body.uri) as string | undefined;
      if (!url) throw new ApiError('The server did not say where the file is.', 'BAD_REPLY', 200);
      return { url, filename: (body.filename as string | undefined) ?? file.name };
    }),
    cancel,
  };
}
