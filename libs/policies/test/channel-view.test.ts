import { describe, expect, it } from '@jest/globals';
import { channelFromCreated, type ChannelChange, type ChannelView, type Fact } from '@teamchat/contracts';
import { channelCreatedFact } from '@teamchat/platform/testing';
import { evolveChannelView } from '../src';

const channel: ChannelView = channelFromCreated(
  channelCreatedFact({ description: 'old', rendered_description: '<p>old</p>', is_default: true, creator_id: 4 }),
);
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
