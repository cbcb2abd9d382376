import { startAccountsService } from '@teamchat/accounts';
import { startChannelsService } from '@teamchat/channels';
import { startEventsService } from '@teamchat/events';
import { startMessagingService } from '@teamchat/messaging';
import type { RunningService, ServiceDeps } from '@teamchat/platform';

/** Every domain service of the server, in start order. */
export const SERVICES = {
  accounts: startAccountsService,
  channels: startChannelsService,
  messaging: startMessagingService,
  events: startEventsService,
} satisfies Record<string, (deps: ServiceDeps) => Promise<RunningService>>;

export type ServiceName = keyof typeof SERVICES;
