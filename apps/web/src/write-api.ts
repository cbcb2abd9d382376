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

export interface Upload {
  /** Resolves with the file's address and name; rejects with an ApiError (code ABORTED when cancelled). */
  done: Promise<{ url: string; filename: string }>;
  cancel: () => void;
}

/**
 * Sends one file to POST /user_uploads. XMLHttpRequest, not fetch: fetch reports no upload
 * progress. `onProgress` gets the bytes sent and the total.
 */
export function uploadFile(file: File, onProgress: (sent: number, total: number) => void): Upload {
  const xhr = new XMLHttpRequest();
  const done = new Promise<{ url: string; filename: string }>((resolve, reject) => {
    xhr.open('POST', '/json/user_uploads');
    xhr.setRequestHeader('X-CSRFToken', csrf());
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size);
    xhr.onload = () => {
      let body: { result?: string; msg?: string; code?: string; url?: string; uri?: string; filename?: string } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        // A proxy's page: the status says what happened.
      }
      if (xhr.status >= 200 && xhr.status < 300 && (body.url ?? body.uri)) resolve({ url: (body.url ?? body.uri)!, filename: body.filename ?? file.name });
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
