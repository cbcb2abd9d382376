/**
 * The compose box as the writing tools see it: what it holds, and where its To and Topic
 * address a message. Apart from compose.tsx and writing.tsx so that each of them, and the
 * dialogs, can use it without importing the other.
 */
import type { RefObject } from 'preact';
import type { ClientStore } from './store';

export interface Box {
  to: string;
  topic: string;
  content: string;
  setContent: (update: (now: string) => string) => void;
  /** Puts a whole message in the box (a restored draft). */
  fill: (to: string, topic: string, content: string) => void;
  textarea: RefObject<HTMLTextAreaElement | null>;
}

export type Target = { type: 'stream'; streamId: number; topic: string } | { type: 'private'; to: number[] };

/** Where the box's To and Topic address a message (people's ids without oneself), or why nowhere, in words. */
export function resolveTarget(store: ClientStore, to: string, topic: string): { target: Target } | { error: string } {
  if (to.trim().startsWith('#')) {
    const streamId = resolveChannel(store, to);
    if (!streamId) return { error: `There is no channel ${to.trim()} you are subscribed to.` };
    return { target: { type: 'stream', streamId, topic: topic.trim() } };
  }
  const names = to.split(',').map((t) => t.trim()).filter(Boolean);
  if (names.length === 0) return { error: 'Choose who to send to: a channel (#name) or people.' };
  const ids: number[] = [];
  for (const name of names) {
    const user = [...store.users.values()].find((u) => u.full_name.toLowerCase() === name.toLowerCase() || u.email.toLowerCase() === name.toLowerCase());
    if (!user) return { error: `No one is called “${name}”.` };
    if (user.user_id !== store.self) ids.push(user.user_id);
  }
  return { target: { type: 'private', to: [...new Set(ids)].sort((a, b) => a - b) } };
}

export function resolveChannel(store: ClientStore, to: string): number | undefined {
  const name = to.trim().replace(/^#/, '').toLowerCase();
  return store.channels.find((c) => c.name.toLowerCase() === name)?.stream_id;
}
