/**
 * One jest run over every package. Tests run from TypeScript sources through swc (no type
 * check here: `tsc -b` does that first in `npm test`); suites that start separate
 * processes run the compiled `dist/` output that `tsc -b` produced.
 */
const packages = {
  contracts: 'libs/contracts',
  policies: 'libs/policies',
  platform: 'libs/platform',
  accounts: 'services/accounts',
  channels: 'services/channels',
  messaging: 'services/messaging',
  events: 'services/events',
  gateway: 'services/gateway',
  server: 'apps/server',
  directory: 'libs/directory',
  markdown: 'libs/markdown',
  'client-model': 'libs/client-model',
};

module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/libs', '<rootDir>/services', '<rootDir>/apps'],
  testMatch: ['**/test/**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022' } }] },
  moduleNameMapper: {
    // The test helpers' own entry (libs/platform/testing/package.json points compiled code at it).
    '^@teamchat/platform/testing$': '<rootDir>/libs/platform/src/testing/index.ts',
    ...Object.fromEntries(
      Object.entries(packages).map(([name, dir]) => [`^@teamchat/${name}$`, `<rootDir>/${dir}/src/index.ts`]),
    ),
  },
  testTimeout: 30000,
  // Two workers on the two cores: 474 s against 761 s for one worker (the default here,
  // cores less one), measured on the development VM with the same 3,565 tests passing.
  // Most suites wait on servers and disks as much as they compute, so a second worker
  // fills the gaps; jest.sequencer.js starts the longest files first.
  maxWorkers: 2,
  testSequencer: '<rootDir>/jest.sequencer.js',
  modulePathIgnorePatterns: ['<rootDir>/.*/dist/'],
};
