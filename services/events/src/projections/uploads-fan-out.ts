/**
 * What clients see of uploads and custom emoji: attachment events to the uploader's own
 * queues (add, update when a message claims the file, remove), and custom emoji changes
 * to the active users the fact names (see emojiDelivery).
 */
import { apiRealmEmojiSet, type ClientEvent, type FactOf, type StoredAttachment } from '@teamchat/contracts';
import { announce } from './announce';
import { toOrganization, type AudienceContext, type Delivery } from './delivery';

const apiAttachment = (a: StoredAttachment, messages: readonly { id: number; date_sent: number }[]) => ({
  id: a.id,
  name: a.name,
  path_id: a.path_id,
  size: a.size,
  // Milliseconds, as Zulip's attachment dictionaries give it.
  create_time: a.create_time * 1000,
  messages: messages.map((m) => ({ id: m.id, date_sent: m.date_sent })),
});

/**
 * A custom emoji change in the form each queue asked for: one emoji at a time (`add`, or
 * `update_one` with what changed) for clients with `individual_emoji_changes`, the whole
 * set (`update`) for the others, as Zulip sends them since feature level 491.
 */
const emojiDelivery = (fact: FactOf<'RealmEmojiAdded' | 'RealmEmojiDeactivated'>, _stored: unknown, ctx: AudienceContext): Delivery[] => {
  const whole = { type: 'realm_emoji' as const, op: 'update' as const, realm_emoji: apiRealmEmojiSet(fact.realm_emoji) };
  const one: ClientEvent =
    fact.type === 'RealmEmojiAdded'
      ? { type: 'realm_emoji', op: 'add', emoji: apiRealmEmojiSet([fact.emoji])[fact.emoji.id]! }
      : { type: 'realm_emoji', op: 'update_one', emoji_id: fact.emoji_id, data: { deactivated: true } };
  return toOrganization(fact, ctx, (queue) => (queue.options.individual_emoji_changes ? one : whole));
};

export const uploadsFanOut = {
  AttachmentUploaded: (fact: FactOf<'AttachmentUploaded'>) => [
    announce(
      { type: 'attachment', op: 'add', attachment: apiAttachment(fact.attachment, []), upload_space_used: fact.upload_space_used },
      { acting_user_id: fact.attachment.owner_id },
    ),
  ],
  AttachmentClaimed: (fact: FactOf<'AttachmentClaimed'>) => [
    announce(
      { type: 'attachment', op: 'update', attachment: apiAttachment(fact.attachment, fact.messages), upload_space_used: fact.upload_space_used },
      { acting_user_id: fact.attachment.owner_id },
    ),
  ],
  AttachmentReleased: (fact: FactOf<'AttachmentReleased'>) => [
    announce(
      { type: 'attachment', op: 'update', attachment: apiAttachment(fact.attachment, fact.messages), upload_space_used: fact.upload_space_used },
      { acting_user_id: fact.attachment.owner_id },
    ),
  ],
  AttachmentRemoved: (fact: FactOf<'AttachmentRemoved'>) => [
    announce({ type: 'attachment', op: 'remove', attachment: { id: fact.attachment_id }, upload_space_used: fact.upload_space_used }, { acting_user_id: fact.owner_id }),
  ],
  RealmEmojiAdded: emojiDelivery,
  RealmEmojiDeactivated: emojiDelivery,
};
