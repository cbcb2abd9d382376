/**
 * GET /messages/{id}/history, GET /messages/{id}/read_receipts and GET
 * /messages/matches_narrow: each answers only about messages the requester may see (the
 * one access rule of queries/access.ts), from messaging's read models.
 */
import { badRequest, type Actor, type NarrowTerm } from '@teamchat/contracts';
import type { RealmSettingsProjection } from '@teamchat/directory';
import { highlightHtml, highlightTopic, messageHistory, readReceiptUserIds } from '../domain/message-history';
import type { UserPreferences } from '../projections/user-preferences';
import { accessibleMessage, type AccessDeps } from './access';
import { selectMessageIds } from './get-messages';
import { searchTermsOf } from './narrow-parse';

export interface HistoryDeps extends AccessDeps {
  realmSettings: Pick<RealmSettingsProjection, 'current'>;
  /** Who turned send_read_receipts off (messaging's projection of their settings). */
  preferences: Pick<UserPreferences, 'turnedOff'>;
}

export async function getMessageHistory(deps: HistoryDeps, actor: Actor, messageId: number, allowEmptyTopicName: boolean) {
  if (!(await deps.realmSettings.current()).allow_edit_history) throw badRequest('Message edit history is disabled in this organization');
  const { message } = await accessibleMessage(deps, actor, messageId);
  return messageHistory(
    {
      sender_id: message.sender_id,
      timestamp: message.timestamp,
      content: message.content,
      rendered_content: message.rendered_content,
      channel_id: message.channel_id,
      topic: message.recipient.type === 'channel' ? message.recipient.topic : null,
      edit_history: message.edit_history,
    },
    allowEmptyTopicName,
  );
}

export async function getReadReceipts(deps: HistoryDeps, actor: Actor, messageId: number): Promise<number[]> {
  if (!(await deps.realmSettings.current()).enable_read_receipts) throw badRequest('Read receipts are disabled in this organization.');
  const { message } = await accessibleMessage(deps, actor, messageId);
  const rows = [...(await deps.model.personal.holders(message))].map(([user_id, flags]) => ({ user_id, flags })).sort((a, b) => a.user_id - b.user_id);
  const active = new Set((await deps.directory.usersByIds(rows.map((r) => r.user_id))).filter((u) => u.is_active).map((u) => u._id));
  const readers = await Promise.all(
    rows.map(async (row) => ({
      user_id: row.user_id,
      read: row.flags.includes('read'),
      is_active: active.has(row.user_id),
      sends_read_receipts: !deps.preferences.turnedOff('send_read_receipts').has(row.user_id),
    })),
  );
  return readReceiptUserIds(message.sender_id, readers);
}

export async function matchesNarrow(deps: AccessDeps, actor: Actor, msgIds: number[], narrow: NarrowTerm[]) {
  // The same selection GET /messages makes with message_ids: the narrow's rules and access.
  const { ids } = await selectMessageIds(deps, actor, { narrow, message_ids: [...new Set(msgIds)] });
  const terms = searchTermsOf(narrow);
  const messages: Record<string, { match_content: string; match_subject: string }> = {};
  for (const id of ids) {
    const message = await deps.model.messages.get(id);
    if (!message) continue;
    const topic = message.recipient.type === 'channel' ? message.recipient.topic : '';
    messages[String(id)] = { match_content: highlightHtml(message.rendered_content, terms), match_subject: highlightTopic(topic, terms) };
  }
  return messages;
}
