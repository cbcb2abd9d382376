/**
 * The order jest starts test files in, with two workers (jest.config.js).
 *
 * A handful of files start real servers, suite after suite, and take most of the run:
 * the distributed and embedded HTTP suites about 290 and 180 s of a 760 s serial run, the
 * fuzzer about 80 s. Wall time is set by when the longest starts: begun last, the
 * distributed suite alone adds its five minutes after every other file has finished.
 * Jest starts the slowest first only when its cache holds the last run's durations; a
 * fresh clone (as on CI) has none, and jest then goes by file size, which puts
 * distributed.test.ts (a list of suite calls, 6 KB) near the end. So these files go
 * first, longest first, and the rest keep jest's own order.
 */
const Sequencer = require('@jest/test-sequencer').default;

const LONGEST_FIRST = [
  'apps/server/test/distributed.test.ts',
  'apps/server/test/embedded.test.ts',
  // The rest of what took a minute or more of a fresh-cache run on two cores (CI's case):
  // begun last, the scale bench's test (about 160 s) alone set the end of the run.
  'apps/bench/test/scale.test.ts',
  'apps/server/test/web-memory.test.ts',
  'services/messaging/test/personal-state.test.ts',
  'apps/server/test/fuzz.test.ts',
  'apps/server/test/web-admin-more.test.ts',
  'apps/server/test/web-browser.test.ts',
  'apps/server/test/crash.test.ts',
  'apps/server/test/restart.test.ts',
  'apps/server/test/hidden-classes.test.ts',
];

function rank(test) {
  const path = test.path.split('\\').join('/');
  const index = LONGEST_FIRST.findIndex((suffix) => path.endsWith(`/${suffix}`));
  return index < 0 ? LONGEST_FIRST.length : index;
}

class LongestFirst extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    // Array.prototype.sort is stable: files outside the list keep jest's order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = LongestFirst;
