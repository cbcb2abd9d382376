import { describe, expect, it } from '@jest/globals';
import { ROLE } from '@teamchat/contracts';
import { codePointLength, exemptFromMoveLimits, hasRole, isAdministrator, isGuest, isModerator, isOwner } from '../src';

describe('role predicates', () => {
  it.each([
    //                    owner  admin  moderator  guest
    [ROLE.owner, /*    */ true, true, true, false],
    [ROLE.administrator, false, true, true, false],
    [ROLE.moderator, /**/ false, false, true, false],
    [ROLE.member, /*   */ false, false, false, false],
    [ROLE.guest, /*    */ false, false, false, true],
  ])('role %i', (role, owner, administrator, moderator, guest) => {
    expect([isOwner(role), isAdministrator(role), isModerator(role), isGuest(role)]).toEqual([owner, administrator, moderator, guest]);
  });

  it.each([
    [ROLE.member, ROLE.member, true],
    [ROLE.member, ROLE.moderator, false],
    [ROLE.guest, ROLE.member, false],
    [ROLE.owner, ROLE.guest, true],
  ])('hasRole(%i, %i) is %s: lower numbers hold more', (role, atLeast, expected) => {
    expect(hasRole(role, atLeast)).toBe(expected);
  });

  it.each([
    [ROLE.owner, true],
    [ROLE.moderator, true],
    [ROLE.member, false],
    [ROLE.guest, false],
  ])('role %i exempt from move limits: %s', (role, expected) => {
    expect(exemptFromMoveLimits(role)).toBe(expected);
  });
});

describe('codePointLength', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['é', 1],
    ['😀', 1],
    ['a😀b', 3],
    ['👍🏽', 2],
  ])('%j is %i code points', (s, expected) => {
    expect(codePointLength(s)).toBe(expected);
  });
});
