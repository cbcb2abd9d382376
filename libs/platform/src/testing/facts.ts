/**
 * Facts as tests need them. A ChannelCreated is built in the oldest shape the store may
 * hold (written before channels had group-settings or facts their audience), so tests of
 * every reader see what a long-lived data directory gives them.
 */
import { upcast, type FactOf } from '@teamchat/contracts';

type ChannelCreated = FactOf<'ChannelCreated'>;

/** The stored record's data, before the upcaster has read it. */
export function storedChannelCreated(overrides: Partial<ChannelCreated> = {}): { type: 'ChannelCreated'; [field: string]: unknown } {
  return {
    type: 'ChannelCreated',
    channel_id: 1,
    name: 'general',
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
  };
}

/** The same fact as readers receive it: in its current shape, defaults filled in. */
export function channelCreatedFact(overrides: Partial<ChannelCreated> = {}): ChannelCreated {
  return upcast(storedChannelCreated(overrides)) as ChannelCreated;
}
