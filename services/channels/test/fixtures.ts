import type { FactOf } from '@teamchat/contracts';
import { channelCreatedFact } from '@teamchat/platform/testing';

/**
 * A ChannelCreated fact as facts were stored before channels had group-settings, read as
 * the store reads it: each test adds what it is about through `overrides`.
 */
export function channelCreated(channel_id: number, name: string, overrides: Partial<FactOf<'ChannelCreated'>> = {}): FactOf<'ChannelCreated'> {
  return channelCreatedFact({ channel_id, name, ...overrides });
}
