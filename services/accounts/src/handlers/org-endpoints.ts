/** The bus endpoints of organization settings, user status and custom profile fields. */
import { badRequest, orgEndpoints as api, streams } from '@teamchat/contracts';
import type { BusSubscription, contractServer } from '@teamchat/platform';
import type { OrgReadModel } from '../projections/org';
import {
  createProfileField,
  deleteProfileField,
  removeProfileData,
  reorderProfileFields,
  updateProfileData,
  updateProfileField,
  updateRealm,
  updateStatus,
  type OrgCommandDeps,
} from './org';

type Serve = ReturnType<typeof contractServer>;

export function orgEndpoints(serve: Serve, deps: OrgCommandDeps & { org: OrgReadModel }): Promise<BusSubscription>[] {
  return [
    serve(api.updateRealm, async (params, { actor }) => ({ value: {}, position: await updateRealm(deps, actor, params) })),
    serve(api.updateOwnStatus, async (params, { actor }) => ({ value: {}, position: await updateStatus(deps, actor, actor.user_id, params) })),
    serve(api.updateUserStatus, async ({ user_id, ...params }, { actor }) => ({ value: {}, position: await updateStatus(deps, actor, user_id, params) })),
    serve(api.getUserStatus, async (params) => {
      const { state } = await deps.organization.load(streams.organization);
      if (!state.usersById.has(params.user_id)) throw badRequest('No such user');
      return { value: { status: await deps.org.status(params.user_id) } };
    }),
    serve(api.listProfileFields, async () => ({ value: { custom_fields: await deps.org.fields() } })),
    serve(api.createProfileField, async (params, { actor }) => {
      const { id, position } = await createProfileField(deps, actor, params);
      return { value: { id }, position };
    }),
    serve(api.updateProfileField, async (params, { actor }) => ({ value: {}, position: await updateProfileField(deps, actor, params) })),
    serve(api.deleteProfileField, async (params, { actor }) => ({ value: {}, position: await deleteProfileField(deps, actor, params.field_id) })),
    serve(api.reorderProfileFields, async (params, { actor }) => ({ value: {}, position: await reorderProfileFields(deps, actor, params.order) })),
    serve(api.updateProfileData, async (params, { actor }) => ({ value: {}, position: await updateProfileData(deps, actor, actor.user_id, params.data) })),
    serve(api.removeProfileData, async (params, { actor }) => ({ value: {}, position: await removeProfileData(deps, actor, params.data) })),
  ];
}
