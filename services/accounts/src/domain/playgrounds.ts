/**
 * Code playgrounds (spec endpoint 15): the organization's list of sites that open a code
 * block's content, in one stream (`realm_playgrounds`). Administrators manage them. The
 * URL template is parsed as RFC 6570 by a maintained library (uri-template, in the
 * handler: handlers/url-template.ts), not matched by a regular expression; the rule here
 * is that it parses, its one variable is `code`, and it expands to an http(s) URL.
 */
import { ACTIVE_USERS, badRequest, type Actor, type Fact, type StoredPlayground } from '@teamchat/contracts';
import { codePointLength, isAdministrator } from '@teamchat/policies';
import { hasNullByte } from './user-data';

export interface PlaygroundsState {
  playgrounds: readonly StoredPlayground[];
  lastId: number;
}

export const initialPlaygrounds = (): PlaygroundsState => ({ playgrounds: [], lastId: 0 });

export function evolvePlaygrounds(state: PlaygroundsState, fact: Fact): PlaygroundsState {
  switch (fact.type) {
    case 'PlaygroundAdded':
      return { playgrounds: fact.playgrounds, lastId: Math.max(state.lastId, fact.playground.id) };
    case 'PlaygroundRemoved':
      return { ...state, playgrounds: fact.playgrounds };
    default:
      return state;
  }
}

/** Zulip's RealmPlayground column limits. */
export const MAX_PLAYGROUND_NAME_LENGTH = 60;
export const MAX_LEXER_LANGUAGE_LENGTH = 60;
export const MAX_URL_TEMPLATE_LENGTH = 200;

/** A URL template as the RFC 6570 parser read it. */
export interface ParsedUrlTemplate {
  /** Whether it parses as RFC 6570. */
  valid: boolean;
  /** Its distinct variable names. */
  variables: string[];
  /** What it expands to for some code (null when it does not expand). */
  example: string | null;
}

export function checkUrlTemplate(template: string, parsed: ParsedUrlTemplate): void {
  if (codePointLength(template) > MAX_URL_TEMPLATE_LENGTH) throw badRequest(`URL template is too long (limit: ${MAX_URL_TEMPLATE_LENGTH} characters)`);
  if (hasNullByte(template) || !parsed.valid) throw badRequest('Invalid URL template.');
  if (parsed.variables.length !== 1 || parsed.variables[0] !== 'code') throw badRequest('"code" should be the only variable present in the URL template');
  let protocol: string | undefined;
  try {
    protocol = parsed.example === null ? undefined : new URL(parsed.example).protocol;
  } catch {
    protocol = undefined;
  }
  if (protocol !== 'https:' && protocol !== 'http:') throw badRequest('Invalid URL template: it must make an http or https URL.');
}

function checkText(what: string, text: string, max: number): string {
  const trimmed = text.trim();
  if (trimmed.length === 0) throw badRequest(`${what} cannot be empty.`);
  if (hasNullByte(trimmed)) throw badRequest(`${what} must not contain null bytes`);
  if (codePointLength(trimmed) > max) throw badRequest(`${what} is too long (limit: ${max} characters)`);
  return trimmed;
}

export interface AddPlayground {
  actor: Actor;
  name: string;
  lexer_language: string;
  url_template: string;
  parsed_template: ParsedUrlTemplate;
}

export function decideAddPlayground(state: PlaygroundsState, cmd: AddPlayground): { facts: Fact[]; id: number } {
  if (!isAdministrator(cmd.actor.role)) throw badRequest('Must be an organization administrator');
  const name = checkText('Name', cmd.name, MAX_PLAYGROUND_NAME_LENGTH);
  const lexer_language = checkText('Lexer language', cmd.lexer_language, MAX_LEXER_LANGUAGE_LENGTH);
  checkUrlTemplate(cmd.url_template, cmd.parsed_template);
  // Zulip's unique constraint: a language's playgrounds are told apart by their names.
  if (state.playgrounds.some((p) => p.lexer_language === lexer_language && p.name === name)) {
    throw badRequest('Realm playground with this Realm, Pygments language and Name already exists.');
  }
  const playground = { id: state.lastId + 1, name, lexer_language, url_template: cmd.url_template };
  return {
    facts: [{ type: 'PlaygroundAdded', playground, playgrounds: [...state.playgrounds, playground], audience: ACTIVE_USERS }],
    id: playground.id,
  };
}

export function decideRemovePlayground(state: PlaygroundsState, cmd: { actor: Actor; playground_id: number }): Fact[] {
  if (!isAdministrator(cmd.actor.role)) throw badRequest('Must be an organization administrator');
  if (!state.playgrounds.some((p) => p.id === cmd.playground_id)) throw badRequest('Invalid playground');
  return [
    {
      type: 'PlaygroundRemoved',
      playground_id: cmd.playground_id,
      playgrounds: state.playgrounds.filter((p) => p.id !== cmd.playground_id),
      audience: ACTIVE_USERS,
    },
  ];
}
