/**
 * Import rules, checked by `npm run lint:deps` (part of `npm test`). Violations that exist
 * and are still to be fixed are listed in .dependency-cruiser-known-violations.json and
 * ignored; any other fails the run. After fixing one, shrink that list with
 * `npm run lint:deps:baseline` (never to admit a new violation).
 *
 * Paths below are relative to the repository root. Workspace packages (`@teamchat/*`)
 * resolve to their sources through tsconfig.tests.json's paths, so an import by package
 * name is the same edge as a relative one.
 */

/** Every package's src: production code, apart from the test helpers' folder (excepted where it matters). */
const PRODUCTION = '^(libs|services|apps)/[^/]+/src/';
const TEST_HELPERS = '^libs/platform/src/testing/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment:
        'Modules in a cycle can only be understood, tested and loaded together, and CommonJS ' +
        'hands one of them a half-initialised module. Counts type-only imports too: a type ' +
        'cycle ties the two designs together just the same.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-service-to-service',
      comment:
        'Services talk over the bus, through contracts in libs/contracts; importing another ' +
        "service's code would couple their deployments and skip the bus that distributed mode relies on.",
      severity: 'error',
      from: { path: '^services/([^/]+)/src/' },
      to: { path: '^services/', pathNot: '^services/$1/' },
    },
    {
      name: 'no-lib-to-service-or-app',
      comment: 'Libraries sit below services and apps; an import upwards makes every user of the library depend on a service.',
      severity: 'error',
      from: { path: '^libs/' },
      to: { path: '^(services|apps)/' },
    },
    {
      name: 'domain-without-io',
      comment:
        'Domain code (deciders, policies) is pure: it may import only contracts, the shared policies, ' +
        'markdown rendering, its own domain files and node:crypto (hashing and salts, no I/O). ' +
        'Not the platform, the directory, adapters, HTTP, SQLite, NATS, logging or node I/O modules. ' +
        "Type-only imports count too: the only types the platform could give a decider are its ports, and a decider handed a port does I/O through it.",
      severity: 'error',
      from: { path: '^(services/[^/]+/src/domain|libs/policies/src)/' },
      to: {
        pathNot: ['^$1/', '^libs/(contracts|policies|markdown)/src/', '^(node:)?crypto$'],
      },
    },
    {
      name: 'no-test-helpers-in-production',
      comment:
        'Contract suites, the nats-server launcher and deciderSpec are for tests; production code that ' +
        'loads them ships jest-only code and a process launcher. Tests import them from @teamchat/platform/testing.',
      severity: 'error',
      from: { path: PRODUCTION, pathNot: TEST_HELPERS },
      to: { path: TEST_HELPERS },
    },
    {
      name: 'no-production-to-tests',
      comment: 'Test folders are not compiled into dist; production code importing from one breaks at run time.',
      severity: 'error',
      from: { path: PRODUCTION },
      to: { path: '^(libs|services|apps)/[^/]+/test/' },
    },
    {
      name: 'no-compiled-output',
      comment:
        'An import that resolves to dist/ reads last build\'s output, not the source; for a workspace ' +
        'package it means tsconfig.tests.json has no path for it, and the rules above would not see its edges.',
      severity: 'error',
      from: { path: '^(libs|services|apps)/[^/]+/(src|test)/' },
      to: { path: '^(libs|services|apps)/[^/]+/dist/' },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import the cruiser cannot resolve is one no rule above can check (and most likely a typo).',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.tests.json' },
    skipAnalysisNotInRules: true,
  },
};
