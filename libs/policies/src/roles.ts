/**
 * Role predicates. Lower role numbers are more privileged (100 owner … 600 guest), so
 * holding a role means holding it or a more privileged one.
 */
import { ROLE } from '@teamchat/contracts';

export const hasRole = (role: number, atLeast: number): boolean => role <= atLeast;
export const isOwner = (role: number): boolean => hasRole(role, ROLE.owner);
export const isAdministrator = (role: number): boolean => hasRole(role, ROLE.administrator);
export const isModerator = (role: number): boolean => hasRole(role, ROLE.moderator);
export const isGuest = (role: number): boolean => role === ROLE.guest;
