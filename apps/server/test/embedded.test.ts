import { invitesSuite } from './invites-suite';
import { accountAccessSuite } from './account-access-suite';
import { rmSync } from 'node:fs';
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
import { uploadsSuite } from './uploads-suite';
import { avatarSuite } from './avatar-suite';
import { settingsSuite } from './settings-suite';
import { revocationSuite } from './revocation-suite';
import { widgetsSuite } from './widgets-suite';
import { freePort, startEmbedded, startEmbeddedProcess, tempDataDir } from './harness';
import { webSessionsSuite } from './web-sessions-suite';

apiSuite('embedded', () => startEmbedded());

// As `npm start` runs it (its own process, its store syncing as in production): there the
// projector that used to tell the gateway ran after the reply had left.
revocationSuite('embedded', () => startEmbeddedProcess(tempDataDir()));

messagingSuite('embedded', () => startEmbedded());

webSessionsSuite(
  'embedded',
  (env) => startEmbedded(tempDataDir(), env),
  async (server, env) => {
    await server.stop();
    return startEmbedded(server.dataDir!, env);
  },
);

widgetsSuite('embedded', () => startEmbedded());

narrowsSuite('embedded', () => startEmbedded());

channelsSuite('embedded', () => startEmbedded());

groupsSuite('embedded', () => startEmbedded());

groupPermissionsSuite('embedded', () => startEmbedded());

announceSuite('embedded', () => startEmbedded());

partialSubscribersSuite('embedded', () => startEmbedded(tempDataDir(), PARTIAL_SUBSCRIBERS_ENV));
orgSuite('embedded', () => startEmbedded());

subscriptionsSuite('embedded', () => startEmbedded());
peopleSuite('embedded', () => startEmbedded());

const settingsDir = tempDataDir();
settingsSuite('embedded', (dir) => startEmbedded(dir), () => settingsDir);

registerSuite('embedded', () => startEmbedded());
zulipAppsSuite('embedded', () => startEmbedded());

ephemeralSuite('embedded', () => startEmbedded());

edgeSuite('embedded', (env) => startEmbedded(tempDataDir(), env));

convergenceSuite('embedded', () => startEmbedded());

toolsSuite('embedded', (env) => startEmbedded(tempDataDir(), env));

uploadsSuite('embedded', (env) => startEmbedded(tempDataDir(), env));
avatarSuite('embedded', (env) => startEmbedded(tempDataDir(), env));
invitesSuite('embedded', (env) => startEmbedded(tempDataDir(), env));
accountAccessSuite('embedded', () => startEmbedded(tempDataDir()));

videoCallsUnconfiguredSuite('embedded', () => startEmbedded());

emailsPageSuite('embedded', (env) => startEmbedded(tempDataDir(), env));

systemBotsSuite('embedded', () => startEmbedded());
// As `npm start` runs it, on a fixed port, so that it can be stopped and started again under the same address.
scheduledSuite('embedded', async () => {
  const dataDir = tempDataDir();
  const env = { PORT: String(await freePort()) };
  let current = await startEmbeddedProcess(dataDir, env);
  return {
    get api() {
      return current.api;
    },
    async whileMessagingIsDown(meanwhile) {
      await current.stop();
      await meanwhile();
      current = await startEmbeddedProcess(dataDir, env);
    },
    async stop() {
      await current.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
linkifiersSuite('embedded', () => startEmbedded());

messageHistorySuite('embedded', () => startEmbedded());

navigationViewsSuite('embedded', () => startEmbedded());

devicesSuite('embedded', () => startEmbedded());
pushSuite('embedded', () => startEmbedded());

moderationSuite('embedded', () => startEmbedded());

fileAccessSuite('embedded', (env) => startEmbedded(tempDataDir(), env));

fileUrlsSuite('embedded', (env) => startEmbedded(tempDataDir(), env));

userDefaultsSuite('embedded', () => startEmbedded());

mutedUsersSuite('embedded', () => startEmbedded());

// As `npm start` runs it, so that it can be stopped (SIGTERM) and killed (SIGKILL) between polls.
queuesSuite('embedded', async (env) => {
  const dataDir = tempDataDir();
  let current = await startEmbeddedProcess(dataDir, env);
  return {
    get api() {
      return current.api;
    },
    async restartEvents(how) {
      await (how === 'kill' ? current.kill() : current.stop());
      current = await startEmbeddedProcess(dataDir, env);
      return current.api;
    },
    async stop() {
      await current.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
