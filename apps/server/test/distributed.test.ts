import { describeWithNats } from '@teamchat/platform/testing';
import { apiSuite } from './api-suite';
import { channelsSuite } from './channels-suite';
import { subscriptionsSuite } from './subscriptions-suite';
import { convergenceSuite } from './convergence-suite';
import { edgeSuite } from './edge-suite';
import { groupsSuite } from './groups-suite';
import { orgSuite } from './org-suite';
import { ephemeralSuite } from './ephemeral-suite';
import { messagingSuite } from './messaging-suite';
import { narrowsSuite } from './narrows-suite';
import { registerSuite } from './register-suite';
import { queuesSuite } from './queues-suite';
import { startDistributed } from './harness';

// The same HTTP suite, with the gateway and each service as separate processes over a
// real nats-server, sharing one SQLite event store file.
describeWithNats('distributed mode', () => {
  apiSuite('distributed', () => startDistributed());
  messagingSuite('distributed', () => startDistributed());
  narrowsSuite('distributed', () => startDistributed());
  channelsSuite('distributed', () => startDistributed());
  groupsSuite('distributed', () => startDistributed());
  orgSuite('distributed', () => startDistributed());
  subscriptionsSuite('distributed', () => startDistributed());
  registerSuite('distributed', () => startDistributed());
  ephemeralSuite('distributed', () => startDistributed());
  edgeSuite('distributed', (env) => startDistributed(env));
  convergenceSuite('distributed', () => startDistributed());
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
