/** Given facts / when command / then facts for push tokens (POST/DELETE /users/me/android_gcm_reg_id, /users/me/apns_device_token). */
import { describe, expect, it } from '@jest/globals';
import type { Fact, PushTokenKind } from '@teamchat/contracts';
import { SqliteReadModelStore } from '@teamchat/platform';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  decideAddPushToken,
  decideRemovePushToken,
  evolvePushTokens,
  initialPushTokens,
  MAX_PUSH_TOKENS_PER_USER,
  type AddPushToken,
  type PushTokensState,
  type RemovePushToken,
} from '../src/domain/push-tokens';
import { PushTokensReadModel } from '../src/projections/push-tokens';

const NOW = 1_700_000_000_000;
const spec = <C>(decide: (state: PushTokensState, cmd: C) => Fact[]) =>
  deciderSpec<PushTokensState, C>({ initial: initialPushTokens, evolve: evolvePushTokens, decide: (cmd, state) => decide(state, cmd) });
const add = spec<Partial<AddPushToken> & { kind: PushTokenKind; token: string }>((state, cmd) =>
  decideAddPushToken(state, { user_id: 4, is_bot: false, now: NOW, ...cmd }),
);
const remove = spec<Partial<RemovePushToken> & { kind: PushTokenKind; token: string }>((state, cmd) =>
  decideRemovePushToken(state, { user_id: 4, is_bot: false, ...cmd }),
);

const FCM = 'fcm-registration-token:APA91bH';
const APNS = 'c0ffee00'.repeat(8);
const APP = 'org.zulip.Zulip';
const added = (kind: PushTokenKind, token: string, ios_app_id: string | null = null, timestamp = NOW / 1000): Fact => ({
  type: 'PushTokenAdded',
  user_id: 4,
  kind,
  token,
  ios_app_id,
  timestamp,
});
const removed = (kind: PushTokenKind, token: string): Fact => ({ type: 'PushTokenRemoved', user_id: 4, kind, token });
const refused = (msg: string) => ({ code: 'BAD_REQUEST', msg });

describe('push tokens', () => {
  it('adds an FCM token, and an APNs token with its app id', () => {
    add.given([]).when({ kind: 'fcm', token: FCM }).then([added('fcm', FCM)]);
    add.given([]).when({ kind: 'apns', token: APNS, appid: APP }).then([added('apns', APNS, APP)]);
    // Hex as Python's bytes.fromhex reads it: either case, whitespace between bytes.
    add.given([]).when({ kind: 'apns', token: 'AB cd\t01', appid: APP }).then([added('apns', 'AB cd\t01', APP)]);
    // An FCM token is not hex-checked; the app id is not asked for.
    add.given([]).when({ kind: 'fcm', token: 'not hex!', appid: 'ignored ~' }).then([added('fcm', 'not hex!')]);
  });

  it('changes nothing when the same token is added again (every start of the app)', () => {
    add.given([added('fcm', FCM)]).when({ kind: 'fcm', token: FCM }).then([]);
    add.given([added('apns', APNS, APP)]).when({ kind: 'apns', token: APNS, appid: 'org.zulip.Other' }).then([]);
    // The same string as the other kind is another token.
    add.given([added('fcm', 'abcd')]).when({ kind: 'apns', token: 'abcd', appid: APP }).then([added('apns', 'abcd', APP)]);
  });

  it('removes a token of its kind, and refuses one the user does not have', () => {
    remove.given([added('fcm', FCM)]).when({ kind: 'fcm', token: FCM }).then([removed('fcm', FCM)]);
    remove.given([added('apns', APNS, APP)]).when({ kind: 'apns', token: APNS }).then([removed('apns', APNS)]);
    remove.given([]).when({ kind: 'fcm', token: FCM }).thenThrows(refused('Token does not exist'));
    remove.given([added('fcm', FCM), removed('fcm', FCM)]).when({ kind: 'fcm', token: FCM }).thenThrows(refused('Token does not exist'));
    remove.given([added('fcm', 'abcd')]).when({ kind: 'apns', token: 'abcd' }).thenThrows(refused('Token does not exist'));
  });

  it('refuses an empty or over-long token, an APNs token that is not hex, and a bad app id, for adding and removing', () => {
    const long = 'a'.repeat(4097);
    for (const kind of ['fcm', 'apns'] as const) {
      add.given([]).when({ kind, token: '', appid: APP }).thenThrows(refused('Empty or invalid length token'));
      add.given([]).when({ kind, token: long, appid: APP }).thenThrows(refused('Empty or invalid length token'));
      remove.given([]).when({ kind, token: '' }).thenThrows(refused('Empty or invalid length token'));
      remove.given([]).when({ kind, token: long }).thenThrows(refused('Empty or invalid length token'));
    }
    add.given([]).when({ kind: 'fcm', token: 'a'.repeat(4096) }).then([added('fcm', 'a'.repeat(4096))]);
    for (const token of ['abc', 'zz', 'a bc', 'hGsEWGmyyfI=']) {
      add.given([]).when({ kind: 'apns', token, appid: APP }).thenThrows(refused('Invalid APNS token'));
      remove.given([]).when({ kind: 'apns', token }).thenThrows(refused('Invalid APNS token'));
    }
    for (const appid of [undefined, '', 'org.zulip/Zulip', 'app id']) {
      add.given([]).when({ kind: 'apns', token: APNS, appid }).thenThrows(refused('Invalid app ID'));
    }
  });

  it('refuses bots before anything else', () => {
    const bot = refused('This endpoint does not accept bot requests.');
    add.given([]).when({ kind: 'fcm', token: FCM, is_bot: true }).thenThrows(bot);
    add.given([]).when({ kind: 'apns', token: '', is_bot: true }).thenThrows(bot);
    remove.given([added('fcm', FCM)]).when({ kind: 'fcm', token: FCM, is_bot: true }).thenThrows(bot);
  });

  it('keeps at most the per-user number of tokens: the oldest gives way', () => {
    const many = Array.from({ length: MAX_PUSH_TOKENS_PER_USER }, (_, i) => added('fcm', `token-${i}`, null, i));
    add.given(many).when({ kind: 'fcm', token: 'newest' }).then([removed('fcm', 'token-0'), added('fcm', 'newest')]);
    const state = [...many, removed('fcm', 'token-0'), added('fcm', 'newest')].reduce(evolvePushTokens, initialPushTokens());
    expect(state.tokens).toHaveLength(MAX_PUSH_TOKENS_PER_USER);
    expect(state.tokens.at(-1)?.token).toBe('newest');
    // Below the limit nothing gives way.
    add.given(many.slice(1)).when({ kind: 'fcm', token: 'newest' }).then([added('fcm', 'newest')]);
  });

  it('never quotes the token in a refusal', () => {
    const secret = 'f'.repeat(5000);
    const state = initialPushTokens();
    for (const run of [
      () => decideAddPushToken(state, { user_id: 4, is_bot: false, kind: 'fcm', token: secret, now: NOW }),
      () => decideRemovePushToken(state, { user_id: 4, is_bot: false, kind: 'fcm', token: 'ffff' }),
      () => decideAddPushToken(state, { user_id: 4, is_bot: false, kind: 'apns', token: 'secret-apns', appid: APP, now: NOW }),
    ]) {
      expect(run).toThrow();
      try {
        run();
      } catch (err) {
        expect(JSON.stringify(err)).not.toMatch(/ffff|secret-apns/);
      }
    }
  });
});

describe('the push tokens read model', () => {
  it('rebuilds from the facts, a replayed fact writing the same state', async () => {
    const store = SqliteReadModelStore.open(':memory:');
    const model = new PushTokensReadModel(store);
    const facts = [added('fcm', FCM, null, 1), added('apns', APNS, APP, 2), removed('fcm', FCM), added('fcm', 'later', null, 3)];
    const apply = async (fact: Fact) => {
      if (fact.type === 'PushTokenAdded') await model.handlers.PushTokenAdded(fact);
      if (fact.type === 'PushTokenRemoved') await model.handlers.PushTokenRemoved(fact);
    };
    for (const fact of facts) await apply(fact);
    // A replay from the start (a rebuild over a kept model, or a redelivery) ends where it was.
    for (const fact of facts) await apply(fact);
    expect(await model.of(4)).toEqual([
      { kind: 'apns', token: APNS, ios_app_id: APP, timestamp: 2 },
      { kind: 'fcm', token: 'later', ios_app_id: null, timestamp: 3 },
    ]);
    expect(await model.of(5)).toEqual([]);
  });
});
