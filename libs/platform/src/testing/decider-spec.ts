/**
 * Given facts / when command / then facts, for pure deciders (after emmett's
 * DeciderSpecification): the state comes only from folding the given facts through
 * `evolve`, so a test states its preconditions as history, the way the store holds them.
 *
 * It uses jest's global `expect` when one is installed (for its diffs and assertion counts)
 * and node's assert otherwise, so it does not import '@jest/globals', which throws outside jest.
 */
import { deepStrictEqual } from 'node:assert';
import { isApiError, type Fact } from '@teamchat/contracts';

export interface DeciderUnderTest<S, C> {
  initial: () => S;
  evolve: (state: S, fact: Fact) => S;
  decide: (command: C, state: S) => Fact[];
}

export interface ErrorMatch {
  code?: string;
  /** Equal to the whole message, or matching it. */
  msg?: string | RegExp;
  /** The code-specific fields, compared whole. */
  extra?: Record<string, unknown>;
}

// Both return nothing, so that `it('…', () => spec.given(…).when(…).then(…))` stays one
// line: jest refuses a test function that returns anything but a promise or undefined.
export interface Then {
  then(expected: Fact[]): void;
  /** Fails unless `decide` throws an API error that matches. */
  thenThrows(match: ErrorMatch): void;
}

export interface Given<C> {
  when(command: C): Then;
}

export interface DeciderSpec<C> {
  given(facts: Fact[]): Given<C>;
}

interface JestExpect {
  (actual: unknown): { toStrictEqual(expected: unknown): void };
}

function jestExpect(): JestExpect | undefined {
  const candidate = (globalThis as { expect?: unknown }).expect;
  return typeof candidate === 'function' ? (candidate as JestExpect) : undefined;
}

const show = (value: unknown) => JSON.stringify(value, null, 2);

function assertEqual(actual: unknown, expected: unknown): void {
  const expect = jestExpect();
  if (expect) expect(actual).toStrictEqual(expected);
  else deepStrictEqual(actual, expected);
}

function matchError(thrown: unknown, match: ErrorMatch): void {
  if (!isApiError(thrown)) {
    throw new Error(`Expected an API error matching ${describeMatch(match)}, but decide threw ${describeThrown(thrown)}`, {
      cause: thrown,
    });
  }
  const codeOk = match.code === undefined || thrown.code === match.code;
  const msgOk =
    match.msg === undefined || (typeof match.msg === 'string' ? thrown.msg === match.msg : match.msg.test(thrown.msg));
  if (!codeOk || !msgOk) {
    throw new Error(`Expected an API error matching ${describeMatch(match)}\nbut got ${describeThrown(thrown)}`);
  }
  if (match.extra !== undefined) assertEqual(thrown.extra, match.extra);
}

function describeThrown(thrown: unknown): string {
  return isApiError(thrown) ? show({ code: thrown.code, msg: thrown.msg }) : String(thrown);
}

function describeMatch(match: ErrorMatch): string {
  const parts = [
    match.code === undefined ? null : `code ${match.code}`,
    match.msg === undefined ? null : `msg ${typeof match.msg === 'string' ? JSON.stringify(match.msg) : String(match.msg)}`,
  ].filter((p): p is string => p !== null);
  return parts.length ? parts.join(', ') : 'anything';
}

export function deciderSpec<S, C>(decider: DeciderUnderTest<S, C>): DeciderSpec<C> {
  return {
    given: (history) => ({
      when: (command) => {
        // Folded inside then/thenThrows, so a throwing evolve fails the test that uses it,
        // and outside thenThrows' try, so it is never taken for the decision's error.
        const state = () => history.reduce((s, fact) => decider.evolve(s, fact), decider.initial());
        return {
          then: (expected) => {
            const given = state();
            let decided: Fact[];
            try {
              decided = decider.decide(command, given);
            } catch (err) {
              throw new Error(`Expected ${show(expected)}\nbut decide threw ${describeThrown(err)}`, { cause: err });
            }
            assertEqual(decided, expected);
          },
          thenThrows: (match) => {
            const given = state();
            let decided: Fact[];
            try {
              decided = decider.decide(command, given);
            } catch (err) {
              matchError(err, match);
              return;
            }
            throw new Error(`Expected decide to throw ${describeMatch(match)}, but it decided ${show(decided)}`);
          },
        };
      },
    }),
  };
}
