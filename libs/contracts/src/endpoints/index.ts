/**
 * Every endpoint of the API, one contract each, grouped by the service that answers it.
 * The gateway routes `httpEndpoints`; each service serves its own group.
 */
import { accountsEndpoints } from './accounts';
import { channelsEndpoints } from './channels';
import { subscriptionsEndpoints } from './subscriptions';
import { channelTopicsEndpoints } from './topics';
import type { Endpoint } from './contract';
import { eventsEndpoints } from './events';
import { messagingEndpoints } from './messaging';
import { presenceEndpoints, typingEndpoints } from './ephemeral';
import { toolsEndpoints } from './tools';
import { accountsStateEndpoints, channelsStateEndpoints, messagingStateEndpoints } from './register-state';
import { userGroupsEndpoints } from './user-groups';
import { peopleEndpoints } from './people';
import { announcementsAccountsEndpoints, announcementsMessagingEndpoints } from './announcements';
import { orgEndpoints } from './org';
import { systemBotMessagingEndpoints } from './system-bots';
import { scheduledEndpoints } from './scheduled';
import { linkifiersEndpoints } from './linkifiers';
import { messageHistoryEndpoints } from './message-history';
import { navigationViewsEndpoints } from './navigation-views';
import { devicesEndpoints } from './devices';
import { avatarEndpoints, emojiEndpoints, uploadsEndpoints } from './uploads';
import { settingsEndpoints } from './settings';
import { invitesChannelsEndpoints, invitesEndpoints, mailOutboxEndpoints } from './invites';
import { mutedUsersEndpoints } from './muted-users';
import { sessionsEndpoints } from './sessions';
import { passwordsEndpoints } from './passwords';

export * from './contract';
export * from './accounts';
export * from './channels';
export * from './subscriptions';
export * from './topics';
export * from './messaging';
export * from './events';
export * from './ephemeral';
export * from './register-state';
export * from './user-groups';
export * from './tools';
export * from './people';
export * from './announcements';
export * from './org';
export * from './scheduled';
export * from './linkifiers';
export * from './message-history';
export * from './navigation-views';
export * from './devices';
export * from './uploads';
export * from './settings';
export * from './invites';
export * from './muted-users';
export * from './sessions';
export * from './passwords';

export const endpoints = {
  accounts: {
    ...accountsEndpoints,
    ...accountsStateEndpoints,
    ...userGroupsEndpoints,
    ...toolsEndpoints,
    ...peopleEndpoints,
    ...announcementsAccountsEndpoints,
    ...orgEndpoints,
    ...linkifiersEndpoints,
    ...navigationViewsEndpoints,
    ...devicesEndpoints,
    ...emojiEndpoints,
    ...avatarEndpoints,
    ...settingsEndpoints,
    ...invitesEndpoints,
    ...mailOutboxEndpoints,
    ...sessionsEndpoints,
    ...passwordsEndpoints,
  },
  channels: { ...channelsEndpoints, ...subscriptionsEndpoints, ...channelsStateEndpoints, ...invitesChannelsEndpoints },
  messaging: {
    ...messagingEndpoints,
    ...channelTopicsEndpoints,
    ...messagingStateEndpoints,
    ...typingEndpoints,
    ...announcementsMessagingEndpoints,
    ...systemBotMessagingEndpoints,
    ...scheduledEndpoints,
    ...messageHistoryEndpoints,
    ...uploadsEndpoints,
    ...mutedUsersEndpoints,
  },
  events: { ...eventsEndpoints, ...presenceEndpoints },
};

/** The endpoints clients reach over HTTP, in the order the gateway registers them. */
export const httpEndpoints: readonly (Endpoint & { http: NonNullable<Endpoint['http']> })[] = Object.values(endpoints)
  .flatMap((group) => Object.values(group) as Endpoint[])
  .filter((e): e is Endpoint & { http: NonNullable<Endpoint['http']> } => e.http !== undefined);
