/**
 * The fan-out of PATCH /settings' facts: user_settings to the user (language_name only with
 * default_language), a time zone also as realm_user to everyone, a confirmed email change
 * as realm_user updates to those who may see the address, a requested one to nobody.
 */
import { describe, expect, it } from '@jest/globals';
import { ClientEvent, type Fact } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import type { QueueOptions } from '../src/domain/event-queue';
import { deliveriesFor } from '../src/projections/fan-out';

const ctx = { apiKeyOf: (salt: string) => `key-of-${salt}` };
const stored = (data: Fact): StoredFact => ({ id: 'fact-1', stream: 's', revision: 0, position: 7, type: data.type, data, metadata: {}, created: 1_700_000_000_000 });
const options = { user_id: 1, event_types: null, apply_markdown: true, client_gravatar: false, empty_topic_name: true, include_deactivated_groups: false, narrow: [] } as unknown as QueueOptions;

function delivered(fact: Fact) {
  return deliveriesFor(stored(fact), ctx).map((d) => {
    const event = d.eventFor({ id: 'q', options });
    if (event) expect(ClientEvent.parse(event)).toEqual(event);
    return { user_ids: d.user_ids, event };
  });
}

describe('settings fan-out', () => {
  it('a setting goes to its user only, without language_name', () =>
    expect(delivered({ type: 'UserSettingChanged', user_id: 3, property: 'color_scheme', value: 2 })).toEqual([
      { user_ids: [3], event: { type: 'user_settings', op: 'update', property: 'color_scheme', value: 2 } },
    ]));

  it('default_language carries the English name of the language', () =>
    expect(delivered({ type: 'UserSettingChanged', user_id: 3, property: 'default_language', value: 'de' })[0]!.event).toEqual({
      type: 'user_settings',
      op: 'update',
      property: 'default_language',
      value: 'de',
      language_name: 'German',
    }));

  it('a time zone is also a realm_user update to everyone the fact names', () =>
    expect(delivered({ type: 'UserSettingChanged', user_id: 3, property: 'timezone', value: 'Asia/Tokyo', audience_user_ids: [1, 2, 3], email: 'user3@acme.test' })).toEqual([
      { user_ids: [3], event: { type: 'user_settings', op: 'update', property: 'timezone', value: 'Asia/Tokyo' } },
      { user_ids: [1, 2, 3], event: { type: 'realm_user', op: 'update', person: { user_id: 3, email: 'user3@acme.test', timezone: 'Asia/Tokyo' } } },
    ]));

  it('a requested email change is no event; a confirmed one is new_email and delivery_email to those who may see it', () => {
    expect(delivered({ type: 'EmailChangeRequested', user_id: 3, new_email: 'n@acme.test', key_hash: 'h', requested_at: 1 })).toEqual([]);
    expect(delivered({ type: 'UserEmailChanged', user_id: 3, old_email: 'o@acme.test', new_email: 'n@acme.test', audience_user_ids: [1, 3] })).toEqual([
      { user_ids: [1, 3], event: { type: 'realm_user', op: 'update', person: { user_id: 3, new_email: 'n@acme.test' } } },
      { user_ids: [1, 3], event: { type: 'realm_user', op: 'update', person: { user_id: 3, delivery_email: 'n@acme.test' } } },
    ]);
  });

  it("a bot's new address is a realm_bot update to its administrators and owner", () =>
    expect(
      delivered({ type: 'UserEmailChanged', user_id: 7, old_email: 'o@acme.test', new_email: 'n@acme.test', audience_user_ids: [1], bot_audience_user_ids: [2, 4] }).at(-1),
    ).toEqual({ user_ids: [2, 4], event: { type: 'realm_bot', op: 'update', bot: { user_id: 7, email: 'n@acme.test' } } }));
});
