/** Push tokens' bus endpoints: each command decides on the user's own `push_tokens` stream. */
import { devicesEndpoints as api, streams, type Fact, type PushTokenKind } from '@teamchat/contracts';
import type { AggregateRepository, BusSubscription, contractServer } from '@teamchat/platform';
import { decideAddPushToken, decideRemovePushToken, type PushTokensState } from '../domain/push-tokens';

type Serve = ReturnType<typeof contractServer>;

export function pushTokenEndpoints(serve: Serve, pushTokens: AggregateRepository<PushTokensState>): Promise<BusSubscription>[] {
  const change = async (userId: number, decide: (state: PushTokensState) => Fact[]) => {
    const { append } = await pushTokens.execute(streams.pushTokens(userId), (state) => ({ facts: decide(state), result: undefined }));
    return { value: {}, position: append?.positions.at(-1) };
  };
  const add = (kind: PushTokenKind) => (params: { token: string; appid?: string }, { actor }: { actor: { user_id: number; is_bot: boolean } }) =>
    change(actor.user_id, (state) =>
      decideAddPushToken(state, { user_id: actor.user_id, is_bot: actor.is_bot, kind, token: params.token, appid: params.appid, now: Date.now() }),
    );
  const remove = (kind: PushTokenKind) => (params: { token: string }, { actor }: { actor: { user_id: number; is_bot: boolean } }) =>
    change(actor.user_id, (state) => decideRemovePushToken(state, { user_id: actor.user_id, is_bot: actor.is_bot, kind, token: params.token }));
  return [
    serve(api.addFcmToken, add('fcm')),
    serve(api.removeFcmToken, remove('fcm')),
    serve(api.addApnsToken, add('apns')),
    serve(api.removeApnsToken, remove('apns')),
  ];
}
