import { describe, expect, it } from '@jest/globals';
import { channelFromCreated, upcast, type ChannelChange, type ChannelView, type Fact, type FactOf } from '@teamchat/contracts';
import { evolveChannelView } from '../src';

const channel: ChannelView = {
  ...channelFromCreated(
    upcast({
    type: 'ChannelCreated',
    channel_id: 1,
    name: 'general',
    description: 'old',
    rendered_description: '<p>old</p>',
    invite_only: false,
    is_web_public: false,
    history_public_to_subscribers: true,
    is_default: true,
    topics_policy: 'inherit',
    message_retention_days: null,
    creator_id: 4,
    date_created: 1_700_000_000,
    }) as FactOf<'ChannelCreated'>,
  ),
};
const updated = (change: ChannelChange): Fact => ({ type: 'ChannelUpdated', channel_id: 1, name: 'general', change, audience_user_ids: [] });

describe('evolveChannelView', () => {
  it.each<[string, Fact, Partial<ChannelView>]>([
    ['a rename', updated({ property: 'name', value: 'lobby' }), { name: 'lobby' }],
    ['a description, with its rendering', updated({ property: 'description', value: 'new', rendered_description: '<p>new</p>' }), { description: 'new', rendered_description: '<p>new</p>' }],
    [
      'privacy, with history and web-public together',
      updated({ property: 'invite_only', value: true, history_public_to_subscribers: false, is_web_public: false }),
      { invite_only: true, history_public_to_subscribers: false, is_web_public: false },
    ],
    ['leaving the default channels', updated({ property: 'is_default', value: false }), { is_default: false }],
    ['a retention period', updated({ property: 'message_retention_days', value: 30 }), { message_retention_days: 30 }],
    ['a topics policy', updated({ property: 'topics_policy', value: 'empty_topic_only' }), { topics_policy: 'empty_topic_only' }],
    ['a group-setting', updated({ property: 'can_send_message_group', value: 6 }), { can_send_message_group: 6 }],
    ['archiving, which also leaves the default channels', { type: 'ChannelArchived', channel_id: 1, name: 'general', audience_user_ids: [] }, { is_archived: true, is_default: false }],
  ])('%s', (_, fact, expected) => {
    expect(evolveChannelView(channel, fact)).toEqual({ ...channel, ...expected });
  });

  it('unarchives', () => {
    const archived = { ...channel, is_archived: true, is_default: false };
    expect(evolveChannelView(archived, { type: 'ChannelUnarchived', channel_id: 1, name: 'general', audience_user_ids: [], channel: archived, subscriber_ids: [], first_message_id: null })).toEqual({
      ...archived,
      is_archived: false,
    });
  });

  it('leaves the channel as it was for facts about other things', () => {
    expect(evolveChannelView(channel, { type: 'UserDeactivated', user_id: 4 })).toBe(channel);
  });
});
