/**
 * Linkifiers (issue 17): the organization's ordered list of patterns that messages link,
 * in one stream (`realm_linkifiers`). Administrators manage them. A pattern must be one
 * RE2 can run (linear time: no backreferences, no lookaround), and the URL template must
 * be RFC 6570 using only the pattern's named groups; both are checked by the markdown
 * library that runs them, so what is accepted here is what renders.
 */
import { ACTIVE_USERS, badRequest, type Actor, type Fact, type StoredLinkifier } from '@teamchat/contracts';
import {
  checkLinkifierPattern,
  checkLinkifierUrlTemplate,
  MAX_LINKIFIER_PATTERN_LENGTH,
  MAX_LINKIFIER_URL_TEMPLATE_LENGTH,
} from '@teamchat/markdown';
import { codePointLength, isAdministrator } from '@teamchat/policies';
import { hasNullByte } from './user-data';

export interface LinkifiersState {
  linkifiers: readonly StoredLinkifier[];
  lastId: number;
}

export const initialLinkifiers = (): LinkifiersState => ({ linkifiers: [], lastId: 0 });

export function evolveLinkifiers(state: LinkifiersState, fact: Fact): LinkifiersState {
  switch (fact.type) {
    case 'LinkifierAdded':
      return { linkifiers: fact.linkifiers, lastId: Math.max(state.lastId, fact.linkifier.id) };
    case 'LinkifierUpdated':
    case 'LinkifierRemoved':
    case 'LinkifiersReordered':
      return { ...state, linkifiers: fact.linkifiers };
    default:
      return state;
  }
}

interface Change {
  actor: Actor;
}

export interface LinkifierInput {
  pattern: string;
  url_template: string;
}

function mustAdminister(actor: Actor): void {
  if (!isAdministrator(actor.role)) throw badRequest('Must be an organization administrator');
}

/** The checked linkifier: the pattern as RE2 runs it, the template with only its groups. */
function checkLinkifier(input: LinkifierInput): LinkifierInput {
  const pattern = input.pattern.trim();
  const { url_template } = input;
  if (pattern.length === 0) throw badRequest('Pattern cannot be empty.');
  if (codePointLength(pattern) > MAX_LINKIFIER_PATTERN_LENGTH) throw badRequest(`Pattern is too long (limit: ${MAX_LINKIFIER_PATTERN_LENGTH} characters)`);
  if (hasNullByte(pattern)) throw badRequest('Pattern must not contain null bytes');
  const compiled = checkLinkifierPattern(pattern);
  if (!compiled.ok) throw badRequest(compiled.error);
  if (codePointLength(url_template) > MAX_LINKIFIER_URL_TEMPLATE_LENGTH) {
    throw badRequest(`URL template is too long (limit: ${MAX_LINKIFIER_URL_TEMPLATE_LENGTH} characters)`);
  }
  const template = hasNullByte(url_template) ? ({ ok: false } as const) : checkLinkifierUrlTemplate(url_template);
  if (!template.ok) throw badRequest('Invalid URL template.');
  const missing = template.variables.find((name) => !compiled.groups.includes(name));
  if (missing !== undefined) throw badRequest(`Group '${missing}' in URL template is not present in linkifier pattern.`);
  if (!template.makesWebUrl) throw badRequest('Invalid URL template: it must make an http or https URL.');
  return { pattern, url_template };
}

function mustBeNew(state: LinkifiersState, pattern: string, exceptId?: number): void {
  // Zulip's unique constraint: one linkifier per pattern in an organization.
  if (state.linkifiers.some((l) => l.pattern === pattern && l.id !== exceptId)) throw badRequest('Linkifier with this pattern already exists.');
}

function existing(state: LinkifiersState, id: number): StoredLinkifier {
  const found = state.linkifiers.find((l) => l.id === id);
  if (!found) throw badRequest('Linkifier not found.');
  return found;
}

export function decideAddLinkifier(state: LinkifiersState, cmd: Change & LinkifierInput): { facts: Fact[]; id: number } {
  mustAdminister(cmd.actor);
  const checked = checkLinkifier(cmd);
  mustBeNew(state, checked.pattern);
  const linkifier = { id: state.lastId + 1, ...checked };
  return {
    facts: [{ type: 'LinkifierAdded', linkifier, linkifiers: [...state.linkifiers, linkifier], audience: ACTIVE_USERS }],
    id: linkifier.id,
  };
}

export function decideUpdateLinkifier(state: LinkifiersState, cmd: Change & LinkifierInput & { linkifier_id: number }): Fact[] {
  mustAdminister(cmd.actor);
  existing(state, cmd.linkifier_id);
  const checked = checkLinkifier(cmd);
  mustBeNew(state, checked.pattern, cmd.linkifier_id);
  const linkifier = { id: cmd.linkifier_id, ...checked };
  return [
    {
      type: 'LinkifierUpdated',
      linkifier,
      // It keeps its place in the order.
      linkifiers: state.linkifiers.map((l) => (l.id === linkifier.id ? linkifier : l)),
      audience: ACTIVE_USERS,
    },
  ];
}

export function decideRemoveLinkifier(state: LinkifiersState, cmd: Change & { linkifier_id: number }): Fact[] {
  mustAdminister(cmd.actor);
  existing(state, cmd.linkifier_id);
  return [
    {
      type: 'LinkifierRemoved',
      linkifier_id: cmd.linkifier_id,
      linkifiers: state.linkifiers.filter((l) => l.id !== cmd.linkifier_id),
      audience: ACTIVE_USERS,
    },
  ];
}

export function decideReorderLinkifiers(state: LinkifiersState, cmd: Change & { ordered_linkifier_ids: number[] }): Fact[] {
  mustAdminister(cmd.actor);
  const ids = cmd.ordered_linkifier_ids;
  if (new Set(ids).size !== ids.length) throw badRequest('The ordered list must not contain duplicated linkifiers');
  const byId = new Map(state.linkifiers.map((l) => [l.id, l]));
  if (ids.length !== byId.size || ids.some((id) => !byId.has(id))) {
    throw badRequest('The ordered list must enumerate all existing linkifiers exactly once');
  }
  const linkifiers = ids.map((id) => byId.get(id)!);
  if (linkifiers.every((l, i) => l.id === state.linkifiers[i]!.id)) return [];
  return [{ type: 'LinkifiersReordered', linkifiers, audience: ACTIVE_USERS }];
}
