import { invitesSuite } from './invites-suite';
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
import { queuesSuite } from './queues-suite';
import { toolsSuite, videoCallsUnconfiguredSuite } from './tools-suite';
import { startDistributed } from './harness';
import { instancesSuite } from './instances-suite';

// The same HTTP suite, with the gateway and each service as separate processes over a
// real nats-server, sharing one SQLite event store file. The API suite runs with two
// gateways and two instances of every service, the test client's requests alternating
// between the gateways (instances-suite.ts tests what that takes); the others with one
// of each, as ten processes per suite would more than double their time on two cores.
describeWithNats('distributed mode', () => {
  apiSuite('distributed, two of everything', () => startDistributed({}, { instances: 2, gateways: 2 }));
  instancesSuite(() => startDistributed({}, { instances: 2, gateways: 2 }));
  messagingSuite('distributed', () => startDistributed());
  narrowsSuite('distributed', () => startDistributed());
  channelsSuite('distributed', () => startDistributed());
  groupsSuite('distributed', () => startDistributed());
  groupPermissionsSuite('distributed', () => startDistributed());
  announceSuite('distributed', () => startDistributed());
  partialSubscribersSuite('distributed', () => startDistributed(PARTIAL_SUBSCRIBERS_ENV));
  orgSuite('distributed', () => startDistributed());
  subscriptionsSuite('distributed', () => startDistributed());
  peopleSuite('distributed', () => startDistributed());
  registerSuite('distributed', () => startDistributed());
  ephemeralSuite('distributed', () => startDistributed());
  edgeSuite('distributed', (env) => startDistributed(env));
  convergenceSuite('distributed', () => startDistributed());
  toolsSuite('distributed', (env) => startDistributed(env));
  invitesSuite('distributed', (env) => startDistributed(env));
  videoCallsUnconfiguredSuite('distributed', () => startDistributed());
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
