/**
 * The HTTP suite for user groups — POST /user_groups/create, GET /user_groups, PATCH
 * /user_groups/{id}, members and subgroups, the members queries, deactivation — with the
 * `user_group` events and register's `realm_user_groups`, an authorization matrix over the
 * roles, and a bad-input test for every error, each checked to have changed nothing.
 */
import { describe } from '@jest/globals';
import { groupAuthorizationTests } from './groups-authorization';
import { groupDeactivationTests } from './groups-deactivation';
import { groupDefinitionTests } from './groups-definition';
import { groupsKit } from './groups-kit';
import { groupMembershipTests } from './groups-membership';
import type { RunningServer } from './harness';
import { DEV_USERS, suiteServer } from './suite-kit';

/** The parts run in this order, on one server (groups-<domain>.ts). */
export function groupsSuite(mode: string, start: () => Promise<RunningServer>) {
  describe(`user groups (${mode})`, () => {
    const kit = groupsKit(suiteServer(start, DEV_USERS));
    groupDefinitionTests(kit);
    groupMembershipTests(kit);
    groupDeactivationTests(kit);
    groupAuthorizationTests(kit);
  });
}
