/**
 * The documents are held to the code: every relative link and anchor in README.md and
 * docs/*.md resolves, and the environment variables the code reads are exactly those the
 * documents list (server settings in docs/operating.md and docs/distributed.md, the
 * benchmarks' in docs/performance.md), so a setting added without its documentation, or
 * documentation left behind by a removed one, fails here. The README's quick start is
 * run in quick-start.test.ts.
 */
import { describe, expect, it } from '@jest/globals';
import {
  brokenLink,
  documentedVariables,
  documents,
  envReads,
  envReadsOf,
  links,
  packages,
  read,
  slugs,
  sourceFiles,
} from './docs-kit';

const TEST_HELPERS = 'libs/platform/src/testing';

/** Production code of the server: every package's src but the bench's, without the test helpers. */
const serverSources = () =>
  packages()
    .filter((p) => p !== 'apps/bench')
    .flatMap((p) => sourceFiles(`${p}/src`))
    .filter((f) => !f.startsWith(`${TEST_HELPERS}/`))
    .concat(sourceFiles('scripts'));

const difference = (a: Iterable<string>, b: ReadonlySet<string>) => [...a].filter((x) => !b.has(x)).sort();

describe('links', () => {
  it('finds the documents and their links', () => {
    expect(documents()).toEqual(expect.arrayContaining(['README.md', 'docs/operating.md', 'docs/distributed.md', 'docs/architecture.md', 'docs/api.md', 'docs/development.md', 'docs/performance.md']));
    expect(documents().flatMap(links).length).toBeGreaterThan(20);
  });

  it('resolves every relative link and anchor, and none leaves the repository', () => {
    const broken = documents()
      .flatMap(links)
      .flatMap((link) => {
        const why = brokenLink(link);
        return why ? [`${link.doc}:${link.n}: ${link.target}: ${why}`] : [];
      });
    expect(broken).toEqual([]);
  });

  it('makes anchors as GitHub does', () => {
    const text = '# A title\n## Personal settings (PATCH /settings)\n## Production mode: the checklist\n```sh\n# not a heading\n```\n## `TEAMCHAT_MODE` and more\n## A title\n';
    expect([...slugs(text)]).toEqual(['a-title', 'personal-settings-patch-settings', 'production-mode-the-checklist', 'teamchat_mode-and-more', 'a-title-1']);
  });

  it('refuses what does not resolve', () => {
    expect(brokenLink({ doc: 'README.md', n: 1, target: 'docs/operating.md#no-such-heading' })).toMatch(/no heading/);
    expect(brokenLink({ doc: 'README.md', n: 1, target: 'docs/nothing.md' })).toMatch(/no such file/);
    expect(brokenLink({ doc: 'docs/api.md', n: 1, target: '../../shared/ARCHITECTURE.md' })).toMatch(/outside the repository/);
    expect(brokenLink({ doc: 'docs/api.md', n: 1, target: 'operating.md#email' })).toBeUndefined();
  });
});

describe('environment variables', () => {
  it('reads names as the code reads them', () => {
    const code = "const a = process.env.LOG_LEVEL; positiveInteger(env, 'TEAMCHAT_X_Y', 3); env['PORT']; z.object({ TEAMCHAT_EVENT_STORE: s }); const v = ZULIP_VERSION;";
    expect([...envReads(code)].sort()).toEqual(['LOG_LEVEL', 'PORT', 'TEAMCHAT_EVENT_STORE', 'TEAMCHAT_X_Y']);
  });

  it('documents every server setting the code reads in operating.md or distributed.md, and no other', () => {
    const read = envReadsOf(serverSources());
    const documented = new Set([...documentedVariables('docs/operating.md'), ...documentedVariables('docs/distributed.md')]);
    expect(read.size).toBeGreaterThan(40);
    expect(difference(read.keys(), documented).map((name) => `${name} (read in ${read.get(name)})`)).toEqual([]);
    expect(difference(documented, new Set(read.keys()))).toEqual([]);
  });

  it("documents every benchmark setting in performance.md, and no other", () => {
    const read = envReadsOf(sourceFiles('apps/bench/src'));
    const server = new Set(envReadsOf(serverSources()).keys());
    const benchOnly = new Set([...read.keys()].filter((name) => !server.has(name)));
    const documented = documentedVariables('docs/performance.md');
    expect(benchOnly.size).toBeGreaterThan(10);
    expect(difference(benchOnly, documented)).toEqual([]);
    expect(difference(documented, new Set(read.keys()))).toEqual([]);
  });

  it('names every variable the tests read in development.md', () => {
    const testFiles = [...packages().flatMap((p) => sourceFiles(`${p}/test`)), ...sourceFiles(TEST_HELPERS)];
    const names = new Set<string>();
    for (const file of testFiles) for (const m of read(file).matchAll(/\bprocess\.env\??(?:\.([A-Z][A-Z0-9_]*)|\[\s*['"]([A-Z][A-Z0-9_]*)['"]\s*\])/g)) names.add(m[1] ?? m[2]!);
    const mentioned = new Set([...read('docs/development.md').matchAll(/`([A-Z][A-Z0-9_]*)(?:=[^`]*)?`/g)].map((m) => m[1]!));
    const server = new Set(envReadsOf(serverSources()).keys());
    // PATH is the system's; ADAPTER and FILE are handed by a test to the child process it starts.
    const internal = new Set(['PATH', 'ADAPTER', 'FILE']);
    expect(names.size).toBeGreaterThan(5);
    expect(difference([...names].filter((n) => !server.has(n) && !internal.has(n)), mentioned)).toEqual([]);
  });
});
