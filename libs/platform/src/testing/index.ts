/**
 * Test helpers, a separate entry (`@teamchat/platform/testing`) so that production code
 * never loads contract suites or a nats-server launcher through the package index.
 */
export { busContract, type BusUnderTest } from './bus-contract';
export {
  deciderSpec,
  type DeciderSpec,
  type DeciderUnderTest,
  type ErrorMatch,
  type Given,
  type Then,
} from './decider-spec';
export { eventStoreContract, waitFor, type EventStoreFixture } from './event-store-contract';
export {
  describeWithNats,
  findNatsServer,
  natsAvailability,
  startNatsServer,
  type NatsServer,
} from './nats-server';
export { readModelContract, type ReadModelFixture } from './read-model-contract';
export { textIndexContract } from './text-index-contract';
export { channelCreatedFact, storedChannelCreated } from './facts';
export { describeWithDocker, dockerAvailability } from './docker';
