/** Given facts / when command / then facts for the defaults of new users' settings. */
import { describe, expect, it } from '@jest/globals';
import { ROLE, type Actor, type Fact } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  decideUpdateRealmUserDefaults,
  evolveRealmUserDefaults,
  initialRealmUserDefaults,
  newUserSettings,
  realmUserDefaults,
  type RealmUserDefaultsState,
} from '../src/domain/realm-user-defaults';

const admin: Actor = { user_id: 2, email: 'a@x', full_name: 'A', role: ROLE.administrator, is_bot: false, client: 'test' };
const audience = 'active_users' as const;
const update = deciderSpec<RealmUserDefaultsState, { actor: Actor; changes: Record<string, unknown> }>({
  initial: initialRealmUserDefaults,
  evolve: evolveRealmUserDefaults,
  decide: (cmd, state) => decideUpdateRealmUserDefaults(state, { actor: cmd.actor, changes: cmd.changes as never }),
});
const readReceiptsOff: Fact = { type: 'RealmUserSettingsDefaultChanged', property: 'send_read_receipts', value: false, audience };

describe('defaults for new users', () => {
  it('records each changed setting; unchanged values and unknown names record nothing', () => {
    update.given([]).when({ actor: admin, changes: { send_read_receipts: false, enter_sends: false, no_such: true } }).then([readReceiptsOff]);
    update.given([readReceiptsOff]).when({ actor: admin, changes: { send_read_receipts: false } }).then([]);
  });

  it.each([ROLE.moderator, ROLE.member, ROLE.guest])('refuses role %i', (role) => {
    update.given([]).when({ actor: { ...admin, role }, changes: { enter_sends: true } }).thenThrows({ code: 'BAD_REQUEST', msg: 'Must be an organization administrator' });
  });

  it('refuses a value of the wrong type', () => {
    update.given([]).when({ actor: admin, changes: { enter_sends: 'yes' } }).thenThrows({ code: 'BAD_REQUEST' });
  });

  it('refuses a value outside its setting’s kind, as PATCH /settings does, recording nothing of the request', () => {
    update.given([]).when({ actor: admin, changes: { color_scheme: 7 } }).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid color_scheme: 7' });
    update.given([]).when({ actor: admin, changes: { enter_sends: true, web_font_size_px: 100 } }).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid web_font_size_px: 100' });
    update.given([]).when({ actor: admin, changes: { default_language: 'xx' } }).thenThrows({ code: 'BAD_REQUEST', msg: 'Invalid default_language: "xx"' });
  });

  it('a new user starts with the settings that differ from Zulip defaults', () => {
    const state = [readReceiptsOff, { ...readReceiptsOff, property: 'enter_sends', value: true }, { ...readReceiptsOff, property: 'enter_sends', value: false }].reduce(
      (s, f) => evolveRealmUserDefaults(s, f as Fact),
      initialRealmUserDefaults(),
    );
    expect(newUserSettings(state)).toEqual([['send_read_receipts', false]]);
    expect(realmUserDefaults(state)).toMatchObject({ send_read_receipts: false, enter_sends: false, emojiset: 'google' });
  });
});
