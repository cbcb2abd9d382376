/**
 * PATCH /settings, as far as it is built: each implemented property is recorded as its
 * own UserSettingChanged fact (the `user_settings` event's property/value), so a later
 * issue adds properties to USER_SETTING_DEFAULTS without a new fact type.
 */
import type { Fact, FactOf } from '@teamchat/contracts';
import type { UserDataState } from './user-data';

/** The implemented settings and their defaults (Zulip's). */
export const USER_SETTING_DEFAULTS = {
  enable_drafts_synchronization: true,
  /** Whether read receipts name this user (messaging projects it for GET /messages/{id}/read_receipts). */
  send_read_receipts: true,
} as const satisfies Record<string, boolean | number | string>;
export type UserSettingName = keyof typeof USER_SETTING_DEFAULTS;

export function settingOf<N extends UserSettingName>(state: Pick<UserDataState, 'settings'>, name: N): (typeof USER_SETTING_DEFAULTS)[N] {
  return (state.settings.get(name) ?? USER_SETTING_DEFAULTS[name]) as (typeof USER_SETTING_DEFAULTS)[N];
}

export interface UpdateSettings {
  user_id: number;
  changes: Partial<{ [N in UserSettingName]: (typeof USER_SETTING_DEFAULTS)[N] extends boolean ? boolean : never }>;
}

/** Only values that change are recorded (Zulip sends no event for an unchanged setting). */
export function decideUpdateSettings(state: UserDataState, cmd: UpdateSettings): Fact[] {
  const facts: Fact[] = [];
  for (const [name, value] of Object.entries(cmd.changes) as [UserSettingName, boolean | undefined][]) {
    if (value === undefined || settingOf(state, name) === value) continue;
    const changed: FactOf<'UserSettingChanged'> = { type: 'UserSettingChanged', user_id: cmd.user_id, property: name, value };
    facts.push(changed);
    // The spec's transition: with synchronization off the server keeps no drafts.
    if (name === 'enable_drafts_synchronization' && value === false && state.drafts.size > 0) {
      facts.push({ type: 'DraftsCleared', user_id: cmd.user_id, draft_ids: [...state.drafts.keys()].sort((a, b) => a - b) });
    }
  }
  return facts;
}
