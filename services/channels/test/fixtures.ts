import { upcast, type FactOf } from '@teamchat/contracts';

/**
 * A ChannelCreated fact as facts were stored before channels had group-settings, read as
 * the store reads it: each test adds what it is about through `overrides`.
 */
export function channelCreated(channel_id: number, name: string, overrides: Partial<FactOf<'ChannelCreated'>> = {}): FactOf<'ChannelCreated'> {
  return upcast({
    type: 'ChannelCreated',
    channel_id,
    name,
    description: '',
    rendered_description: '',
    invite_only: false,
    is_web_public: false,
    history_public_to_subscribers: true,
    is_default: false,
    topics_policy: 'inherit',
    message_retention_days: null,
    creator_id: null,
    date_created: 1_700_000_000,
    ...overrides,
  }) as FactOf<'ChannelCreated'>;
}
