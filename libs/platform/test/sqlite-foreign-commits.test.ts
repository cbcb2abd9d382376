import { describe, expect, it } from '@jest/globals';
import { ForeignCommitPoller } from '../src/adapters/sqlite-foreign-commits';

/** A store whose file head and known head the test moves, and the poller's findings. */
function setUp() {
  const state = { fileHead: 0, knownHead: 0, clock: 0, found: [] as number[] };
  const poller = new ForeignCommitPoller(
    {
      readHead: () => state.fileHead,
      knownHead: () => state.knownHead,
      foundHead: (head) => {
        state.found.push(head);
        state.knownHead = head;
      },
    },
    25,
    () => state.clock,
  );
  return { state, poller };
}

describe('ForeignCommitPoller', () => {
  it('syncs at once what an explicit poll finds, and nothing when the head has not moved', () => {
    const { state, poller } = setUp();
    poller.pollNow();
    expect(state.found).toEqual([]);
    state.fileHead = 3;
    poller.pollNow();
    expect(state.found).toEqual([3]);
  });

  it("leaves a foreign commit the timer finds to its writer's notice for 100 ms, then syncs it", () => {
    const { state, poller } = setUp();
    state.fileHead = 5;
    poller.tick();
    state.clock = 99;
    poller.tick();
    expect(state.found).toEqual([]);
    state.clock = 100;
    poller.tick();
    expect(state.found).toEqual([5]);
  });

  it('starts the wait anew for a head past the one a notice covered meanwhile', () => {
    const { state, poller } = setUp();
    state.fileHead = 5;
    poller.tick();
    // The writer's notice covers 5; by then another commit has reached 7.
    state.clock = 60;
    state.knownHead = 5;
    state.fileHead = 7;
    poller.tick();
    state.clock = 120;
    poller.tick();
    expect(state.found).toEqual([]);
    state.clock = 160;
    poller.tick();
    expect(state.found).toEqual([7]);
  });
});
