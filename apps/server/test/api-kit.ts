/**
 * What the HTTP API suite's parts share (api-suite.ts runs them, each domain's tests in an
 * api-<domain>.ts file): the server, its logged-in users and a client without
 * credentials, and the check that a refused request sent nothing.
 */
import { beforeAll, expect } from '@jest/globals';
import { Client, type RunningServer } from './harness';
import type { SuiteServer } from './suite-kit';

/** The users the suite logs in. */
export const API_USERS = ['member', 'member2', 'owner', 'guest'] as const;
type Who = (typeof API_USERS)[number];

const channelNarrow = (channel: string | number, topic?: string) => [
  { operator: 'channel', operand: channel },
  ...(topic !== undefined ? [{ operator: 'topic', operand: topic }] : []),
];

export type ApiKit = ReturnType<typeof apiKit>;

export function apiKit(suite: SuiteServer<RunningServer, Who>) {
  /** The logged-in users and `anonymous`, once the server has started (each part takes them in its beforeAll). */
  const clients = {} as Record<Who | 'anonymous', Client>;
  beforeAll(() => {
    Object.assign(clients, suite.clients, { anonymous: new Client(suite.server.api) });
  });

  /** The newest message id visible to `client` in `narrow` (0 when none). */
  async function newestId(client: Client, narrow: unknown[] = []): Promise<number> {
    const { body } = await client.get('/messages', { anchor: 'newest', num_before: 1, num_after: 0, narrow });
    return body.messages.at(-1)?.id ?? 0;
  }

  async function expectNothingSent(action: () => Promise<void>) {
    const before = await newestId(clients.member);
    await action();
    expect(await newestId(clients.member)).toBe(before);
  }

  return { suite, clients, channelNarrow, expectNothingSent };
}
