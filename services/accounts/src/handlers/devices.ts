/** Logged-in devices' bus endpoints: each command decides on the organization's `devices` stream. */
import { badRequest, devicesEndpoints as api, pushServiceNotConfigured, streams, wantsState, type AccountsState, type Fact, type StateParams } from '@teamchat/contracts';
import type { AggregateRepository, BusSubscription, contractServer } from '@teamchat/platform';
import { decideRegisterDevice, decideRemoveDevice, type DevicesState } from '../domain/devices';
import type { DevicesReadModel } from '../projections/devices';

type Serve = ReturnType<typeof contractServer>;

export interface DeviceDeps {
  devices: AggregateRepository<DevicesState>;
  model: DevicesReadModel;
}

export async function devicesState(model: DevicesReadModel, userId: number, params: StateParams): Promise<Pick<AccountsState, 'devices'>> {
  return wantsState(params, 'device') ? { devices: await model.of(userId) } : {};
}

export function deviceEndpoints(serve: Serve, deps: DeviceDeps): Promise<BusSubscription>[] {
  const change = async (decide: (state: DevicesState) => Fact[]) => {
    const { append } = await deps.devices.execute(streams.devices, (state) => ({ facts: decide(state), result: undefined }));
    return { value: {}, position: append?.positions.at(-1) };
  };
  return [
    serve(api.registerClientDevice, async (_params, { actor }) => {
      const { result, append } = await deps.devices.execute(streams.devices, (state) => {
        const { facts, device_id } = decideRegisterDevice(state, { user_id: actor.user_id });
        return { facts, result: device_id };
      });
      return { value: { device_id: result }, position: append?.positions.at(-1) };
    }),
    serve(api.removeClientDevice, (params, { actor }) => change((state) => decideRemoveDevice(state, { user_id: actor.user_id, device_id: params.device_id }))),
    // No push bouncer here: Zulip without one refuses every registration, whatever its
    // fields, after refusing bots (`human_users_only`). Nothing is stored.
    serve(api.registerPushDevice, async (_params, { actor }) => {
      if (actor.is_bot) throw badRequest('This endpoint does not accept bot requests.');
      throw pushServiceNotConfigured();
    }),
  ];
}
