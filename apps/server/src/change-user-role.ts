/**
 * The earlier name of change-user-permission (which see), kept so that scripts using it work.
 *
 *   npm run change-user-role -- owner@acme.test can_change_user_emails [--revoke]
 */
import { changeUserPermission } from './change-user-permission';

void changeUserPermission('change-user-role');
