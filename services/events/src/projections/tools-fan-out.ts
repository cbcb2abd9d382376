/**
 * What clients see of the personal and organization tools' facts (issue 15): a personal
 * fact goes to its user's queues through the audience table (announce), a playground
 * change to the active users its fact names, with the whole list.
 */
import { LANGUAGES, type ClientEvent, type FactOf, type StoredDraft } from '@teamchat/contracts';
import { announce } from './announce';
import { factRecipients, toOrganization, type AudienceContext, type Delivery } from './delivery';

const mine = (user_id: number) => ({ acting_user_id: user_id });
const apiDraft = (d: StoredDraft) => ({ id: d.id, type: d.type, to: d.to, topic: d.topic, content: d.content, timestamp: d.timestamp });
const playgroundsDelivery = (fact: FactOf<'PlaygroundAdded' | 'PlaygroundRemoved'>, _stored: unknown, ctx: AudienceContext): Delivery[] => {
  const event = { type: 'realm_playgrounds' as const, realm_playgrounds: fact.playgrounds.map((p) => ({ ...p })) };
  return toOrganization(fact, ctx, () => event);
};

export const toolsFanOut = {
  DraftsAdded: (fact: FactOf<'DraftsAdded'>) => [announce({ type: 'drafts', op: 'add', drafts: fact.drafts.map(apiDraft) }, mine(fact.user_id))],
  DraftUpdated: (fact: FactOf<'DraftUpdated'>) => [announce({ type: 'drafts', op: 'update', draft: apiDraft(fact.draft) }, mine(fact.user_id))],
  DraftRemoved: (fact: FactOf<'DraftRemoved'>) => [announce({ type: 'drafts', op: 'remove', draft_id: fact.draft_id }, mine(fact.user_id))],
  // The spec's Drafts transition: turning synchronization off deletes them without an event.
  DraftsCleared: null,
  UserSettingChanged: (fact: FactOf<'UserSettingChanged'>, _stored: unknown, ctx: AudienceContext): Delivery[] => [
    announce(
      {
        type: 'user_settings',
        op: 'update',
        property: fact.property,
        value: fact.value,
        // The spec: language_name only with default_language.
        ...(fact.property === 'default_language' && typeof fact.value === 'string' ? { language_name: LANGUAGES[fact.value] ?? fact.value } : {}),
      },
      mine(fact.user_id),
    ),
    // A time zone is part of the profile too: everyone who may access the user hears it.
    ...(fact.property === 'timezone' && (fact.audience || fact.audience_user_ids?.length)
      ? [
          {
            ...factRecipients(fact, ctx.roster, [fact.user_id])!,
            eventFor: () => ({ type: 'realm_user', op: 'update', person: { user_id: fact.user_id, email: fact.email, timezone: fact.value } }) as ClientEvent,
          },
        ]
      : []),
    // Viewers who gained or lost sight of the real address (email_address_visibility).
    ...(fact.email_views ?? []).flatMap(({ user_ids, email, delivery_email }) => [
      { user_ids, eventFor: () => ({ type: 'realm_user', op: 'update', person: { user_id: fact.user_id, new_email: email } }) as ClientEvent },
      { user_ids, eventFor: () => ({ type: 'realm_user', op: 'update', person: { user_id: fact.user_id, delivery_email } }) as ClientEvent },
    ]),
  ],
  SavedSnippetAdded: (fact: FactOf<'SavedSnippetAdded'>) => [
    announce({ type: 'saved_snippets', op: 'add', saved_snippet: { ...fact.saved_snippet } }, mine(fact.user_id)),
  ],
  SavedSnippetUpdated: (fact: FactOf<'SavedSnippetUpdated'>) => [
    announce({ type: 'saved_snippets', op: 'update', saved_snippet: { ...fact.saved_snippet } }, mine(fact.user_id)),
  ],
  SavedSnippetRemoved: (fact: FactOf<'SavedSnippetRemoved'>) => [
    announce({ type: 'saved_snippets', op: 'remove', saved_snippet_id: fact.saved_snippet_id }, mine(fact.user_id)),
  ],
  AlertWordsChanged: (fact: FactOf<'AlertWordsChanged'>) => [announce({ type: 'alert_words', alert_words: fact.alert_words }, mine(fact.user_id))],
  // A bot's storage is read on request; Zulip sends no event for it either.
  BotStorageUpdated: null,
  BotStorageRemoved: null,
  PlaygroundAdded: playgroundsDelivery,
  PlaygroundRemoved: playgroundsDelivery,
};
