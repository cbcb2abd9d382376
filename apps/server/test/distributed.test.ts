import { invitesSuite } from './invites-suite';
import { accountAccessSuite } from './account-access-suite';
import { describeWithNats } from '@teamchat/platform/testing';
import { apiSuite } from './api-suite';
import { channelsSuite } from './channels-suite';
import { subscriptionsSuite } from './subscriptions-suite';
import { convergenceSuite } from './convergence-suite';
import { edgeSuite } from './edge-suite';
import { groupsSuite } from './groups-suite';
import { peopleSuite } from './people-suite';
import { groupPermissionsSuite } from './group-permissions-suite';
import { announceSuite } from './announce-suite';
import { PARTIAL_SUBSCRIBERS_ENV, partialSubscribersSuite } from './partial-subscribers-suite';
import { orgSuite } from './org-suite';
import { ephemeralSuite } from './ephemeral-suite';
import { messagingSuite } from './messaging-suite';
import { narrowsSuite } from './narrows-suite';
import { registerSuite } from './register-suite';
import { zulipAppsSuite } from './zulip-apps-suite';
import { queuesSuite } from './queues-suite';
import { toolsSuite, videoCallsUnconfiguredSuite } from './tools-suite';
import { emailsPageSuite } from './emails-suite';
import { systemBotsSuite } from './system-bots-suite';
import { scheduledSuite } from './scheduled-suite';
import { uploadsSuite } from './uploads-suite';
import { avatarSuite } from './avatar-suite';
import { settingsSuite } from './settings-suite';
import { startDistributed, tempDataDir, type DistributedServer } from './harness';
import { webSessionsSuite } from './web-sessions-suite';
import { instancesSuite } from './instances-suite';
import { revocationSuite } from './revocation-suite';
import { productionSuite } from './production-suite';
import { linkifiersSuite } from './linkifiers-suite';
import { messageHistorySuite } from './message-history-suite';
import { navigationViewsSuite } from './navigation-views-suite';
import { devicesSuite } from './devices-suite';
import { pushSuite } from './push-suite';
import { moderationSuite } from './moderation-suite';
import { fileAccessSuite } from './file-access-suite';
import { fileUrlsSuite } from './file-urls-suite';
import { userDefaultsSuite } from './user-defaults-suite';
import { mutedUsersSuite } from './muted-users-suite';
import { widgetsSuite } from './widgets-suite';

// The same HTTP suite, with the gateway and each service as separate processes over a
// real nats-server, sharing one SQLite event store file. The API suite runs with two
// gateways and two instances of every service, the test client's requests alternating
// between the gateways (instances-suite.ts tests what that takes); the others with one
// of each, as ten processes per suite would more than double their time on two cores.
describeWithNats('distributed mode', () => {
  apiSuite('distributed, two of everything', () => startDistributed({}, { instances: 2, gateways: 2 }));
  instancesSuite(() => startDistributed({}, { instances: 2, gateways: 2 }));
  revocationSuite('distributed, two of everything', () => startDistributed({}, { instances: 2, gateways: 2 }));
  productionSuite(() => startDistributed({ TEAMCHAT_MODE: 'production', ZULIP_JWT_SECRET: '' }, { seed: false }));
  messagingSuite('distributed', () => startDistributed());
  // Two gateways: a session ended through one is refused by the other from the acknowledgement on.
  webSessionsSuite(
    'distributed, two gateways',
    (env) => startDistributed(env, { gateways: 2 }),
    async (server) => {
      await (server as DistributedServer).kill('accounts');
      await (server as DistributedServer).restart('accounts');
      return server;
    },
  );
  narrowsSuite('distributed', () => startDistributed());
  channelsSuite('distributed', () => startDistributed());
  groupsSuite('distributed', () => startDistributed());
  groupPermissionsSuite('distributed', () => startDistributed());
  announceSuite('distributed', () => startDistributed());
  partialSubscribersSuite('distributed', () => startDistributed(PARTIAL_SUBSCRIBERS_ENV));
  orgSuite('distributed', () => startDistributed());
  subscriptionsSuite('distributed', () => startDistributed());
  peopleSuite('distributed', () => startDistributed());
  // Its own data directory: the suite reads the development mail file there.
  const settingsDir = tempDataDir();
  settingsSuite('distributed', (dir) => startDistributed({ TEAMCHAT_DATA_DIR: dir }), () => settingsDir);
  registerSuite('distributed', () => startDistributed());
  zulipAppsSuite('distributed', () => startDistributed());
  ephemeralSuite('distributed', () => startDistributed());
  edgeSuite('distributed', (env) => startDistributed(env));
  convergenceSuite('distributed', () => startDistributed());
  toolsSuite('distributed', (env) => startDistributed(env));
  uploadsSuite('distributed', (env) => startDistributed(env));
  avatarSuite('distributed', (env) => startDistributed(env));
  invitesSuite('distributed', (env) => startDistributed(env));
  accountAccessSuite('distributed', () => startDistributed());
  videoCallsUnconfiguredSuite('distributed', () => startDistributed());
  emailsPageSuite('distributed', (env) => startDistributed(env));
  systemBotsSuite('distributed', () => startDistributed());
  // Two messaging instances race for every delivery: each must still happen once.
  scheduledSuite('distributed, two of everything', async () => {
    const server = await startDistributed({}, { instances: 2, gateways: 2 });
    return {
      ...server,
      api: server.api,
      async whileMessagingIsDown(meanwhile) {
        await server.kill('messaging');
        await meanwhile();
        await server.restart('messaging');
      },
    };
  });
  linkifiersSuite('distributed', () => startDistributed());
  messageHistorySuite('distributed', () => startDistributed());
  navigationViewsSuite('distributed', () => startDistributed());
  devicesSuite('distributed', () => startDistributed());
  pushSuite('distributed', () => startDistributed());
  moderationSuite('distributed', () => startDistributed());
  fileAccessSuite('distributed', (env) => startDistributed(env));
  fileUrlsSuite('distributed', (env) => startDistributed(env));
  userDefaultsSuite('distributed', () => startDistributed());
  mutedUsersSuite('distributed', () => startDistributed());
  widgetsSuite('distributed', () => startDistributed());
  // The events process is killed (SIGKILL) and started again between polls.
  queuesSuite('distributed', async (env) => {
    const server = await startDistributed(env);
    return {
      ...server,
      async restartEvents() {
        await server.kill('events');
        await server.restart('events');
        return server.api;
      },
    };
  });
});
