/**
 * The HTTP suite, run against every mode (embedded and distributed): the gateway's
 * conventions, authentication, sending and reading messages, and event queues. Every
 * refused request is checked to have changed nothing.
 */
import { describe } from '@jest/globals';
import { apiAuthenticationTests } from './api-authentication';
import { apiConventionsTests } from './api-conventions';
import { API_USERS, apiKit } from './api-kit';
import { apiMessagesTests } from './api-messages';
import { apiQueuesTests } from './api-queues';
import type { RunningServer } from './harness';
import { suiteServer } from './suite-kit';

/** The parts run in this order, on one server (api-<domain>.ts). */
export function apiSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`HTTP API (${mode})`, () => {
    const kit = apiKit(suiteServer(start, API_USERS));
    apiConventionsTests(kit);
    apiAuthenticationTests(kit);
    apiMessagesTests(kit);
    apiQueuesTests(kit);
  });
}
