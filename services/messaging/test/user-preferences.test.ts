import { describe, expect, it } from '@jest/globals';
import type { FactOf } from '@teamchat/contracts';
import { SqliteReadModelStore } from '@teamchat/platform';
import { UserPreferences } from '../src/projections/user-preferences';

const changed = (user_id: number, property: string, value: boolean | string | number): FactOf<'UserSettingChanged'> => ({ type: 'UserSettingChanged', user_id, property, value });

describe("messaging's projection of the settings it reads", () => {
  it('keeps who turned typing notifications or read receipts off, survives a reload, and ignores other settings', async () => {
    const store = SqliteReadModelStore.open(':memory:');
    const prefs = new UserPreferences(store);
    await prefs.load();
    const apply = (fact: FactOf<'UserSettingChanged'>) => prefs.handlers.UserSettingChanged(fact);
    await apply(changed(4, 'receives_typing_notifications', false));
    await apply(changed(5, 'receives_typing_notifications', false));
    await apply(changed(5, 'receives_typing_notifications', true));
    await apply(changed(6, 'send_read_receipts', false));
    await apply(changed(7, 'enable_drafts_synchronization', false));
    expect([...prefs.turnedOff('receives_typing_notifications')]).toEqual([4]);
    expect([...prefs.turnedOff('send_read_receipts')]).toEqual([6]);

    const reloaded = new UserPreferences(store);
    await reloaded.load();
    expect([...reloaded.turnedOff('receives_typing_notifications')]).toEqual([4]);
    expect([...reloaded.turnedOff('send_read_receipts')]).toEqual([6]);
  });
});
