/**
 * A user's push tokens (issue 37 item 6): the FCM or APNs token the mobile app registers at
 * start-up (POST /users/me/android_gcm_reg_id, /users/me/apns_device_token) and removes at
 * logout (DELETE on the same paths). Zulip without a push bouncer keeps them and answers
 * success; so does this server, which has no bouncer either: nothing is pushed, but the app
 * starts and logs out as it does against Zulip. Decided on the user's own stream. Pure.
 *
 * Error messages never quote the token: it reaches Apple's or Google's service for this
 * user's phone, and error replies end up in client logs.
 */
import { badRequest, type Fact, type PushTokenKind } from '@teamchat/contracts';

export interface StoredPushToken {
  kind: PushTokenKind;
  token: string;
  ios_app_id: string | null;
  /** Seconds since the epoch of its registration. */
  timestamp: number;
}

export interface PushTokensState {
  /** In registration order, oldest first. */
  tokens: readonly StoredPushToken[];
}

export const initialPushTokens = (): PushTokensState => ({ tokens: [] });

const same = (t: { kind: PushTokenKind; token: string }, kind: PushTokenKind, token: string) => t.kind === kind && t.token === token;

export function evolvePushTokens(state: PushTokensState, fact: Fact): PushTokensState {
  switch (fact.type) {
    case 'PushTokenAdded': {
      const { kind, token, ios_app_id, timestamp } = fact;
      return { tokens: [...state.tokens.filter((t) => !same(t, kind, token)), { kind, token, ios_app_id, timestamp }] };
    }
    case 'PushTokenRemoved':
      return { tokens: state.tokens.filter((t) => !same(t, fact.kind, fact.token)) };
    default:
      return state;
  }
}

/** Zulip's bound on a token's length (FCM's are about 160 characters, APNs' 64). */
export const MAX_TOKEN_LENGTH = 4096;
/**
 * Tokens kept per user (Zulip keeps any number). An app reinstalled without logging out
 * leaves its old token behind, and no endpoint lists them, so a user could not clear a
 * full list: the oldest token gives way instead of the new one being refused.
 */
export const MAX_PUSH_TOKENS_PER_USER = 100;

/**
 * Zulip's check (`bytes.fromhex`): pairs of hex digits, ASCII whitespace allowed between
 * pairs. The apps send the token APNs gave them as hex.
 */
const APNS_HEX = /^[ \t\n\r\v\f]*(?:[0-9a-fA-F]{2}[ \t\n\r\v\f]*)*$/;
/** Zulip's check of an iOS bundle id. */
const APP_ID = /^[.a-zA-Z0-9-]+$/;

function checkToken(kind: PushTokenKind, token: string): void {
  if (token.length === 0 || token.length > MAX_TOKEN_LENGTH) throw badRequest('Empty or invalid length token');
  if (kind === 'apns' && !APNS_HEX.test(token)) throw badRequest('Invalid APNS token');
}

function humanOnly(isBot: boolean): void {
  // Zulip's `human_users_only`: a bot has no phone to push to.
  if (isBot) throw badRequest('This endpoint does not accept bot requests.');
}

export interface AddPushToken {
  user_id: number;
  is_bot: boolean;
  kind: PushTokenKind;
  token: string;
  /** Required for APNs, absent for FCM. */
  appid?: string | undefined;
  /** Milliseconds since the epoch. */
  now: number;
}

export function decideAddPushToken(state: PushTokensState, cmd: AddPushToken): Fact[] {
  humanOnly(cmd.is_bot);
  checkToken(cmd.kind, cmd.token);
  let ios_app_id: string | null = null;
  if (cmd.kind === 'apns') {
    if (cmd.appid === undefined || !APP_ID.test(cmd.appid)) throw badRequest('Invalid app ID');
    ios_app_id = cmd.appid;
  }
  // Registered again (every start of the app): Zulip keeps the first registration as it was.
  if (state.tokens.some((t) => same(t, cmd.kind, cmd.token))) return [];
  const facts: Fact[] = [];
  const excess = state.tokens.length + 1 - MAX_PUSH_TOKENS_PER_USER;
  for (const old of state.tokens.slice(0, Math.max(0, excess))) {
    facts.push({ type: 'PushTokenRemoved', user_id: cmd.user_id, kind: old.kind, token: old.token });
  }
  facts.push({ type: 'PushTokenAdded', user_id: cmd.user_id, kind: cmd.kind, token: cmd.token, ios_app_id, timestamp: Math.floor(cmd.now / 1000) });
  return facts;
}

export interface RemovePushToken {
  user_id: number;
  is_bot: boolean;
  kind: PushTokenKind;
  token: string;
}

export function decideRemovePushToken(state: PushTokensState, cmd: RemovePushToken): Fact[] {
  humanOnly(cmd.is_bot);
  checkToken(cmd.kind, cmd.token);
  // Only the user's own tokens of that kind: an FCM token is not removed through the APNs path.
  if (!state.tokens.some((t) => same(t, cmd.kind, cmd.token))) throw badRequest('Token does not exist');
  return [{ type: 'PushTokenRemoved', user_id: cmd.user_id, kind: cmd.kind, token: cmd.token }];
}
