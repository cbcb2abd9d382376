/** Organization settings, user status and custom profile field facts as client events (each checked against its client-event schema). */
import { describe, expect, it } from '@jest/globals';
import { ClientEvent, SYSTEM_GROUP, type Fact } from '@teamchat/contracts';
import type { StoredFact } from '@teamchat/platform';
import { deliveriesFor } from '../src/projections/fan-out';

const stored = (data: Fact): StoredFact => ({
  id: 'fact-1',
  stream: 'realm_settings',
  revision: 0,
  position: 42,
  type: data.type,
  data,
  metadata: {},
  created: 1_700_000_000_000,
});

function delivered(fact: Fact) {
  return deliveriesFor(stored(fact), { apiKeyOf: () => 'unused' }).map((d) => {
    const event = d.eventFor({ id: 'q', options: { user_id: 4, event_types: null, apply_markdown: true, client_gravatar: true, empty_topic_name: false, narrow: [] } });
    if (event) expect(ClientEvent.parse(event)).toEqual(event);
    return { user_ids: d.user_ids, event };
  });
}

const audience_user_ids = [1, 4, 6];

describe('organization fan-out', () => {
  it('announces each changed setting: plain ones as update, editing settings and group-settings as update_dict', () => {
    expect(
      delivered({
        type: 'RealmSettingsChanged',
        changes: { name: 'Acme', message_content_edit_limit_seconds: null, can_create_groups: SYSTEM_GROUP.moderators },
        actor_id: 1,
        audience_user_ids,
      }),
    ).toEqual([
      { user_ids: audience_user_ids, event: { type: 'realm', op: 'update', property: 'name', value: 'Acme' } },
      { user_ids: audience_user_ids, event: { type: 'realm', op: 'update_dict', property: 'default', data: { message_content_edit_limit_seconds: null } } },
      { user_ids: audience_user_ids, event: { type: 'realm', op: 'update_dict', property: 'default', data: { can_create_groups: SYSTEM_GROUP.moderators } } },
    ]);
  });

  it('announces only the parts of a status the request set', () => {
    const status = { type: 'UserStatusChanged', user_id: 4, status_text: 'busy', emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji', audience_user_ids } as const;
    expect(delivered({ ...status, changed: ['status_text'] })).toEqual([{ user_ids: audience_user_ids, event: { type: 'user_status', user_id: 4, status_text: 'busy' } }]);
    expect(delivered({ ...status, changed: ['emoji'] })).toEqual([
      { user_ids: audience_user_ids, event: { type: 'user_status', user_id: 4, emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' } },
    ]);
  });

  it('announces every field after a change, and each changed value as a realm_user update', () => {
    const field = { id: 1, type: 1, order: 0, name: 'Nick', hint: '', field_data: '', display_in_profile_summary: false, required: false, editable_by_user: true };
    expect(delivered({ type: 'CustomProfileFieldsChanged', fields: [field], audience_user_ids })).toEqual([
      { user_ids: audience_user_ids, event: { type: 'custom_profile_fields', fields: [field] } },
    ]);
    expect(
      delivered({ type: 'CustomProfileDataChanged', user_id: 4, changes: [{ id: 1, value: 'Marky' }, { id: 2, value: null }], audience_user_ids }),
    ).toEqual([
      { user_ids: audience_user_ids, event: { type: 'realm_user', op: 'update', person: { user_id: 4, custom_profile_field: { id: 1, value: 'Marky' } } } },
      { user_ids: audience_user_ids, event: { type: 'realm_user', op: 'update', person: { user_id: 4, custom_profile_field: { id: 2, value: null } } } },
    ]);
  });
});
