/**
 * The personal and organization tools (issue 15), all served by accounts: drafts (spec
 * endpoints 12 and 20), saved snippets (14, 16), alert words, bot storage (18), code
 * playgrounds (15), video calls (21), and PATCH /settings (3) as far as it is built.
 */
import { z } from 'zod';
import { MAX_WIRE_BYTES_PER_CODE_POINT } from '../limits';
import { StoredDraft } from '../tools-facts';
import { EmailDeliveryReply, EmptyReply, endpoint, NoParams } from './contract';
import { UpdateSettingsParams } from './settings';

const int = () => z.number().int();

/** Zulip's default; a server setting (`TEAMCHAT_BOT_STORAGE_LIMIT`). */
export const DEFAULT_BOT_STORAGE_LIMIT = 10_000_000;
/**
 * PUT /bot_storage may carry a whole bot's storage: 10,000,000 characters in the widest
 * encoding, plus a megabyte for the JSON around them.
 */
export const BOT_STORAGE_BODY_LIMIT = DEFAULT_BOT_STORAGE_LIMIT * MAX_WIRE_BYTES_PER_CODE_POINT + 1024 * 1024;

/** A draft as a client sends it; the server checks and addresses it (the Draft resource). */
export const DraftInput = z.strictObject({
  type: z.enum(['', 'stream', 'private']),
  to: z.array(int()),
  topic: z.string(),
  content: z.string(),
  /** Seconds; Zulip clients may send a fraction. */
  timestamp: z.number().nonnegative().max(2 ** 40).optional(),
});
export type DraftInput = z.infer<typeof DraftInput>;

const ApiSavedSnippet = z.object({ id: int(), title: z.string(), content: z.string(), date_created: int() });
export const ApiPlayground = z.object({ id: int(), name: z.string(), lexer_language: z.string(), url_template: z.string() });

const StorageKeys = z.object({ keys: z.array(z.string()).optional() });


export const toolsEndpoints = {
  getDrafts: endpoint({
    service: 'accounts',
    subject: 'accounts.get_drafts',
    http: { method: 'GET', path: '/drafts' },
    auth: true,
    params: NoParams,
    reply: z.object({ count: int(), drafts: z.array(StoredDraft) }),
  }),
  createDrafts: endpoint({
    service: 'accounts',
    subject: 'accounts.create_drafts',
    http: { method: 'POST', path: '/drafts' },
    auth: true,
    params: z.object({ drafts: z.array(DraftInput) }),
    reply: z.object({ ids: z.array(int()) }),
  }),
  editDraft: endpoint({
    service: 'accounts',
    subject: 'accounts.edit_draft',
    http: { method: 'PATCH', path: '/drafts/{draft_id}' },
    auth: true,
    params: z.object({ draft_id: int(), draft: DraftInput }),
    reply: EmptyReply,
  }),
  deleteDraft: endpoint({
    service: 'accounts',
    subject: 'accounts.delete_draft',
    http: { method: 'DELETE', path: '/drafts/{draft_id}' },
    auth: true,
    params: z.object({ draft_id: int() }),
    reply: EmptyReply,
  }),
  getSavedSnippets: endpoint({
    service: 'accounts',
    subject: 'accounts.get_saved_snippets',
    http: { method: 'GET', path: '/saved_snippets' },
    auth: true,
    params: NoParams,
    reply: z.object({ saved_snippets: z.array(ApiSavedSnippet) }),
  }),
  createSavedSnippet: endpoint({
    service: 'accounts',
    subject: 'accounts.create_saved_snippet',
    http: { method: 'POST', path: '/saved_snippets' },
    auth: true,
    params: z.object({ title: z.string(), content: z.string() }),
    reply: z.object({ saved_snippet_id: int() }),
  }),
  editSavedSnippet: endpoint({
    service: 'accounts',
    subject: 'accounts.edit_saved_snippet',
    http: { method: 'PATCH', path: '/saved_snippets/{saved_snippet_id}' },
    auth: true,
    params: z.object({ saved_snippet_id: int(), title: z.string().optional(), content: z.string().optional() }),
    reply: EmptyReply,
  }),
  deleteSavedSnippet: endpoint({
    service: 'accounts',
    subject: 'accounts.delete_saved_snippet',
    http: { method: 'DELETE', path: '/saved_snippets/{saved_snippet_id}' },
    auth: true,
    params: z.object({ saved_snippet_id: int() }),
    reply: EmptyReply,
  }),
  getAlertWords: endpoint({
    service: 'accounts',
    subject: 'accounts.get_alert_words',
    http: { method: 'GET', path: '/users/me/alert_words' },
    auth: true,
    params: NoParams,
    reply: z.object({ alert_words: z.array(z.string()) }),
  }),
  addAlertWords: endpoint({
    service: 'accounts',
    subject: 'accounts.add_alert_words',
    http: { method: 'POST', path: '/users/me/alert_words' },
    auth: true,
    params: z.object({ alert_words: z.array(z.string()) }),
    reply: z.object({ alert_words: z.array(z.string()) }),
  }),
  removeAlertWords: endpoint({
    service: 'accounts',
    subject: 'accounts.remove_alert_words',
    http: { method: 'DELETE', path: '/users/me/alert_words' },
    auth: true,
    params: z.object({ alert_words: z.array(z.string()) }),
    reply: z.object({ alert_words: z.array(z.string()) }),
  }),
  updateBotStorage: endpoint({
    service: 'accounts',
    subject: 'accounts.update_bot_storage',
    http: { method: 'PUT', path: '/bot_storage', bodyLimit: BOT_STORAGE_BODY_LIMIT, maxJsonLength: BOT_STORAGE_BODY_LIMIT },
    auth: true,
    params: z.object({ storage: z.record(z.string(), z.string()) }),
    reply: EmptyReply,
  }),
  getBotStorage: endpoint({
    service: 'accounts',
    subject: 'accounts.get_bot_storage',
    http: { method: 'GET', path: '/bot_storage' },
    auth: true,
    params: StorageKeys,
    reply: z.object({ storage: z.record(z.string(), z.string()) }),
  }),
  removeBotStorage: endpoint({
    service: 'accounts',
    subject: 'accounts.remove_bot_storage',
    http: { method: 'DELETE', path: '/bot_storage' },
    auth: true,
    params: StorageKeys,
    reply: EmptyReply,
  }),
  addPlayground: endpoint({
    service: 'accounts',
    subject: 'accounts.add_playground',
    http: { method: 'POST', path: '/realm/playgrounds' },
    auth: true,
    params: z.object({ name: z.string(), lexer_language: z.string(), url_template: z.string() }),
    reply: z.object({ id: int() }),
  }),
  removePlayground: endpoint({
    service: 'accounts',
    subject: 'accounts.remove_playground',
    http: { method: 'DELETE', path: '/realm/playgrounds/{playground_id}' },
    auth: true,
    params: z.object({ playground_id: int() }),
    reply: EmptyReply,
  }),
  createVideoCall: endpoint({
    service: 'accounts',
    subject: 'accounts.create_video_call',
    http: { method: 'POST', path: '/calls/meeting/create' },
    auth: true,
    params: NoParams,
    reply: z.object({ url: z.string() }),
  }),
  updateSettings: endpoint({
    service: 'accounts',
    subject: 'accounts.update_settings',
    http: { method: 'PATCH', path: '/settings', aliases: ['/settings/display', '/settings/notifications'] },
    auth: true,
    params: UpdateSettingsParams,
    reply: EmailDeliveryReply,
  }),
};
