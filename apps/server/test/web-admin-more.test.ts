/**
 * More of the web client's administration (issue 41, item 6) in headless Chromium against
 * the embedded server: a linkifier edited in its row and the linkifiers reordered; the
 * default channels listed, one added and removed, a private one refused in words; custom
 * profile fields created, edited, reordered and deleted, and a person filling their own
 * in the settings (a refused value said, the text kept); external account fields (a
 * preset, a custom one with its URL pattern) shown as links on the user card; an
 * invitation resent (mailed again, and refused in words once the day's limit is
 * reached); a person renamed and a bot's owner changed from the users section. Each
 * refusal is said beside its control with what was typed kept. Screenshots:
 * apps/web/screenshots/admin-*.png at desktop and 375 px; axe finds no serious or
 * critical violation.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { BrowserContext, Page } from 'playwright-core';
import { describeViolations, seriousViolations } from './axe';
import { browserSuite } from './browser';
import { mailOf } from './suite-kit';
import {apiUser, clocksMasked, eventually, logIn, SHOTS, startWebServer } from './web-page';

const ADMIN = 'admin@example.com';
const MARK = 'member@example.com';

browserSuite('the web client: administration, part 2', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let base: string;
  let admin: Awaited<ReturnType<typeof apiUser>>;

  beforeAll(async () => {
    // A small daily limit of invitations, so that a resend can reach it (read once, at the start).
    process.env.TEAMCHAT_INVITES_DAILY_LIMIT = '3';
    try {
      server = await startWebServer('web-admin-more');
    } finally {
      delete process.env.TEAMCHAT_INVITES_DAILY_LIMIT;
    }
    base = server.url;
    admin = await apiUser(base, ADMIN);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  const context = async (width = 1280, height = 900): Promise<BrowserContext> => {
    const made = await browser().newContext({ viewport: { width, height } });
    made.setDefaultTimeout(10_000);
    return made;
  };
  const checkA11y = async (page: Page) => expect(describeViolations(await seriousViolations(page))).toEqual([]);
  const shoot = (page: Page, name: string) => page.screenshot({ ...clocksMasked(page), path: join(SHOTS, `${name}.png`), fullPage: true });
  /** The same screen at phone width, checked too. */
  const atPhone = async (path: string, ready: (page: Page) => Promise<unknown>, name: string) => {
    const phone = await context(375, 740);
    const page = await logIn(phone, base, ADMIN, path);
    await ready(page);
    await shoot(page, name);
    await checkA11y(page);
    await phone.close();
  };

  it('edits a linkifier in its row (a refused pattern keeps what was typed) and reorders the linkifiers', async () => {
    const first = (await admin.call('POST', '/realm/filters', { pattern: '#(?P<id>[0-9]+)', url_template: 'https://tracker.example.com/issues/{id}' })).id as number;
    const second = (await admin.call('POST', '/realm/filters', { pattern: 'PR(?P<id>[0-9]+)', url_template: 'https://code.example.com/pulls/{id}' })).id as number;
    const order = async () => ((await admin.call('GET', '/realm/linkifiers')).linkifiers as { id: number; pattern: string; url_template: string }[]).map((l) => ({ id: l.id, pattern: l.pattern, url_template: l.url_template }));
    const desktop = await context();
    const page = await logIn(desktop, base, ADMIN, '/#admin/linkifiers');
    await page.getByRole('button', { name: 'Edit linkifier #(?P<id>[0-9]+)' }).click();
    const patternField = page.getByLabel('Pattern of linkifier 1', { exact: true });
    // A pattern the server refuses: said in the row, the text stays.
    await patternField.fill('#(?P<id>[0-9+');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const refusal = page.locator(`#linkifier-${first}-outcome.error`);
    await refusal.waitFor();
    expect(await refusal.innerText()).toMatch(/^Linkifier not saved: .*\S/);
    expect(await patternField.inputValue()).toBe('#(?P<id>[0-9+');
    await shoot(page, 'admin-linkifier-refused-desktop');
    await checkA11y(page);
    await patternField.fill('GH-(?P<id>[0-9]+)');
    await page.getByLabel('URL template of linkifier 1', { exact: true }).fill('https://github.example.com/issues/{id}');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('button', { name: 'Edit linkifier GH-(?P<id>[0-9]+)' }).waitFor();
    expect((await order()).find((l) => l.id === first)).toEqual({ id: first, pattern: 'GH-(?P<id>[0-9]+)', url_template: 'https://github.example.com/issues/{id}' });

    // The second moves up: the server's order follows, and so does the list.
    expect(await page.getByRole('button', { name: 'Move linkifier GH-(?P<id>[0-9]+) up' }).isDisabled()).toBe(true);
    await page.getByRole('button', { name: 'Move linkifier PR(?P<id>[0-9]+) up' }).click();
    await eventually(async () => expect((await order()).map((l) => l.id)).toEqual([second, first]));
    await eventually(async () => expect(await page.locator('.linkifier-row').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-linkifier-id'))))).toEqual([second, first]));
    await shoot(page, 'admin-linkifiers-desktop');
    await checkA11y(page);
    await desktop.close();
    await atPhone('/#admin/linkifiers', (p) => p.getByRole('button', { name: 'Edit linkifier GH-(?P<id>[0-9]+)' }).waitFor(), 'admin-linkifiers-375');
  }, 90_000);

  it('lists the default channels, adds and removes one, and says why a private one is refused', async () => {
    const defaults = async () => (await admin.call('POST', '/register', { fetch_event_types: JSON.stringify(['default_streams']) })).realm_default_streams as number[];
    const streams = (await admin.call('GET', '/streams')).streams as { name: string; stream_id: number }[];
    const id = (name: string) => streams.find((s) => s.name === name)!.stream_id;
    const desktop = await context();
    const page = await logIn(desktop, base, ADMIN, '/#admin/default-channels');
    const list = page.getByRole('list', { name: 'Default channels' });
    await eventually(async () => expect(await list.innerText()).toContain('#general'));
    await page.getByLabel('Channel to add').selectOption({ label: '#engineering' });
    await page.getByRole('button', { name: 'Add default channel' }).click();
    await page.getByText('#engineering is now a default channel.').waitFor();
    await eventually(async () => expect(await list.innerText()).toContain('#engineering'));
    expect(await defaults()).toEqual(expect.arrayContaining([id('general'), id('engineering')]));

    // A private channel: the server refuses, the page says why beside the form, the choice stays.
    await page.getByLabel('Channel to add').selectOption({ label: '#leadership' });
    await page.getByRole('button', { name: 'Add default channel' }).click();
    await page.locator('#default-outcome.error').waitFor();
    expect(await page.locator('#default-outcome').innerText()).toMatch(/^#leadership was not made a default channel: .*private/i);
    expect(await page.getByLabel('Channel to add').inputValue()).toBe(String(id('leadership')));
    expect(await defaults()).not.toContain(id('leadership'));
    await shoot(page, 'admin-default-channels-desktop');
    await checkA11y(page);

    await page.getByRole('button', { name: 'Remove #engineering from the default channels' }).click();
    await eventually(async () => expect(await list.innerText()).not.toContain('#engineering'));
    expect(await defaults()).not.toContain(id('engineering'));
    await desktop.close();
    await atPhone('/#admin/default-channels', (p) => p.getByRole('button', { name: 'Add default channel' }).waitFor(), 'admin-default-channels-375');
  }, 90_000);

  it('creates, edits, reorders and deletes profile fields; a person fills theirs in the settings', async () => {
    const fields = async () => ((await admin.call('GET', '/realm/profile_fields')).custom_fields as { id: number; name: string; hint: string; type: number; field_data: string; order: number }[]).sort((a, b) => a.order - b.order);
    const desktop = await context();
    const page = await logIn(desktop, base, ADMIN, '/#admin/profile-fields');
    await page.getByLabel('Field name').fill('Team');
    await page.getByLabel('Hint (shown to people filling it)').fill('Where you work');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByRole('button', { name: 'Edit the field Team' }).waitFor();
    await page.getByLabel('Field type').selectOption({ label: 'List of options' });
    await page.getByLabel('Field name').fill('Office');
    await page.getByLabel('Options (one a line)').fill('Berlin\nTokyo');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByRole('button', { name: 'Edit the field Office' }).waitFor();
    // A label already used: refused beside the form, what was typed stays.
    await page.getByLabel('Field type').selectOption({ label: 'Text (short)' });
    await page.getByLabel('Field name').fill('Team');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.locator('#field-outcome.error').waitFor();
    expect(await page.locator('#field-outcome').innerText()).toMatch(/^Field not added: .*already exists/);
    expect(await page.getByLabel('Field name').inputValue()).toBe('Team');
    expect((await fields()).map((f) => f.name)).toEqual(['Team', 'Office']);
    // A long text cannot be in the profile summary: refused in words, the form kept.
    await page.getByLabel('Field type').selectOption({ label: 'Text (long)' });
    await page.getByLabel('Field name').fill('About');
    await page.getByLabel('Shown in the profile summary').check();
    await page.getByRole('button', { name: 'Add field' }).click();
    await eventually(async () => expect(await page.locator('#field-outcome').innerText()).toMatch(/^Field not added: Field type not supported for display in profile summary/));
    expect(await page.getByLabel('Field name').inputValue()).toBe('About');
    expect(await page.getByLabel('Shown in the profile summary').isChecked()).toBe(true);
    await page.getByLabel('Shown in the profile summary').uncheck();
    // A field only administrators set.
    await page.getByLabel('Field type').selectOption({ label: 'Text (short)' });
    await page.getByLabel('Field name').fill('Badge');
    await page.getByLabel('People may edit their own value').uncheck();
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByRole('button', { name: 'Edit the field Badge' }).waitFor();
    expect((await fields()).find((f) => f.name === 'Badge')).toMatchObject({ editable_by_user: false });
    await page.getByRole('button', { name: 'Delete the field Badge' }).waitFor();

    // Edit: Team becomes Squad; the Office list gets a third choice.
    await page.getByRole('button', { name: 'Edit the field Team' }).click();
    await page.getByLabel('Name of the field Team').fill('Squad');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('button', { name: 'Edit the field Squad' }).waitFor();
    await page.getByRole('button', { name: 'Edit the field Office' }).click();
    expect(await page.getByLabel('Options of the field Office (one a line)').inputValue()).toBe('Berlin\nTokyo');
    await page.getByLabel('Options of the field Office (one a line)').fill('Berlin\nTokyo\nLima');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('button', { name: 'Edit the field Office' }).waitFor();
    const office = (await fields()).find((f) => f.name === 'Office')!;
    expect(Object.values(JSON.parse(office.field_data) as Record<string, { text: string }>).map((c) => c.text)).toEqual(['Berlin', 'Tokyo', 'Lima']);
    // Reorder: Office first.
    await page.getByRole('button', { name: 'Move the field Office up' }).click();
    await eventually(async () => expect((await fields()).map((f) => f.name)).toEqual(['Office', 'Squad', 'Badge']));
    await eventually(async () => expect(await page.locator('.field-row strong').allInnerTexts()).toEqual(['Office', 'Squad', 'Badge']));
    await shoot(page, 'admin-profile-fields-desktop');
    await checkA11y(page);

    // A field of people (made over the API, as a script would).
    const mentors = (await admin.call('POST', '/realm/profile_fields', { name: 'Mentors', field_type: '6' })).id as number;
    const maryId = (await apiUser(base, 'member2@example.com')).user_id;

    // A member fills their own: a value too long is refused in words and kept; then saved.
    const markContext = await context();
    const mark = await logIn(markContext, base, MARK);
    await mark.getByRole('button', { name: 'Settings' }).click();
    const squad = mark.getByLabel('Squad', { exact: true });
    // The field only administrators set is shown, not editable.
    expect(await mark.getByLabel('Badge', { exact: true }).isDisabled()).toBe(true);
    await squad.fill('x'.repeat(60));
    await mark.getByLabel('Office', { exact: true }).selectOption({ label: 'Tokyo' });
    await mark.getByRole('button', { name: 'Save profile fields' }).click();
    await mark.locator('#settings-fields-outcome.error').waitFor();
    expect(await mark.locator('#settings-fields-outcome').innerText()).toMatch(/^Not saved: Squad is too long/);
    expect(await squad.inputValue()).toBe('x'.repeat(60));
    await checkA11y(mark);
    await mark.getByLabel('Mentors', { exact: true }).fill('mar');
    await mark.getByRole('button', { name: 'Add Mary Member' }).click();
    await mark.getByRole('button', { name: 'Remove Mary Member from Mentors' }).waitFor();
    expect(await mark.getByRole('button', { name: /^Add / }).count()).toBe(0);
    await squad.fill('Platform');
    await mark.getByRole('button', { name: 'Save profile fields' }).click();
    await mark.getByText('Saved.').first().waitFor();
    const markApi = await apiUser(base, MARK);
    const data = (await admin.call('GET', `/users/${markApi.user_id}`, { include_custom_profile_fields: 'true' })).user.profile_data as Record<string, { value: string }>;
    const tokyo = Object.entries(JSON.parse(office.field_data) as Record<string, { text: string }>).find(([, c]) => c.text === 'Tokyo')![0];
    expect(data[String(office.id)]?.value).toBe(tokyo);
    expect(data[String((await fields()).find((f) => f.name === 'Squad')!.id)]?.value).toBe('Platform');
    expect(JSON.parse(data[String(mentors)]!.value)).toEqual([maryId]);
    // Removing the last person removes the value.
    await mark.getByRole('button', { name: 'Remove Mary Member from Mentors' }).click();
    await mark.getByRole('button', { name: 'Save profile fields' }).click();
    await eventually(async () => expect(((await admin.call('GET', `/users/${markApi.user_id}`, { include_custom_profile_fields: 'true' })).user.profile_data as Record<string, unknown>)[String(mentors)]).toBeUndefined());
    await shoot(mark, 'settings-profile-fields-desktop');
    await mark.setViewportSize({ width: 375, height: 740 });
    await mark.getByLabel('Mentors', { exact: true }).scrollIntoViewIfNeeded();
    await mark.screenshot({ ...clocksMasked(mark), path: join(SHOTS, 'settings-profile-fields-375.png') });
    await checkA11y(mark);
    await markContext.close();

    await page.getByRole('button', { name: 'Delete the field Squad' }).click();
    await eventually(async () => expect((await fields()).map((f) => f.name)).toEqual(['Office', 'Badge', 'Mentors']));
    await page.getByRole('button', { name: 'Delete the field Squad' }).waitFor({ state: 'detached' });
    await desktop.close();
    await atPhone('/#admin/profile-fields', (p) => p.getByRole('button', { name: 'Edit the field Office' }).waitFor(), 'admin-profile-fields-375');
  }, 120_000);

  it('resends an invitation from the list: mailed again and said so', async () => {
    await admin.call('POST', '/invites', { invitee_emails: 'again@example.org', stream_ids: '[]' });
    const mailsTo = async () => (await mailOf(server!.dataDir)).filter((m) => m.to === 'again@example.org').length;
    expect(await mailsTo()).toBe(1);
    const desktop = await context();
    const page = await logIn(desktop, base, ADMIN, '/#admin/invitations');
    await page.getByRole('button', { name: 'Resend the invitation: again@example.org' }).click();
    await page.getByText('Sent again to again@example.org.').waitFor();
    await eventually(async () => expect(await mailsTo()).toBe(2));
    // A reusable link has nothing to mail again: no Resend on its row.
    await admin.call('POST', '/invites/multiuse', { stream_ids: '[]' });
    await eventually(async () => expect(await page.locator('.admin-list .invite').count()).toBe(2));
    expect(await page.getByRole('button', { name: /^Resend the invitation: Reusable link/ }).count()).toBe(0);
    await shoot(page, 'admin-invite-resent-desktop');
    await checkA11y(page);
    // Two more make the day's three: resending now is refused, said on its row, nothing mailed.
    await admin.call('POST', '/invites', { invitee_emails: 'more1@example.org, more2@example.org', stream_ids: '[]' });
    await eventually(async () => expect(await page.locator('.admin-list .invite').count()).toBe(4));
    await page.getByRole('button', { name: 'Resend the invitation: again@example.org' }).click();
    const row = page.locator('.admin-list .invite', { hasText: 'again@example.org' });
    await row.locator('.error').waitFor();
    expect(await row.locator('.error').innerText()).toMatch(/^Not sent again: .*limit on invitations per day/);
    expect(await mailsTo()).toBe(2);
    await shoot(page, 'admin-invite-resend-refused-desktop');
    await checkA11y(page);
    await desktop.close();
    await atPhone('/#admin/invitations', (p) => p.getByRole('button', { name: 'Resend the invitation: again@example.org' }).waitFor(), 'admin-invite-resend-375');
  }, 60_000);

  it('renames a person (a refused name is said and kept) and changes a bot’s owner; a member sees none of it', async () => {
    const desktop = await context();
    const page = await logIn(desktop, base, ADMIN, '/#admin/users');
    const mary = await apiUser(base, 'member2@example.com');
    const row = page.locator(`.user-row[data-user-id="${mary.user_id}"]`);
    await page.getByRole('button', { name: 'Rename Mary Member' }).click();
    const field = page.getByLabel('Full name of Mary Member');
    await field.fill('Mary "Quoted"');
    await page.getByRole('button', { name: 'Save name' }).click();
    await row.locator('.error').waitFor();
    expect(await row.locator('.error').innerText()).toMatch(/^Mary Member was not renamed: Invalid characters in name!/);
    expect(await field.inputValue()).toBe('Mary "Quoted"');
    await shoot(page, 'admin-rename-refused-desktop');
    await checkA11y(page);
    await field.fill('Mary Renamed');
    await page.getByRole('button', { name: 'Save name' }).click();
    await eventually(async () => expect(await row.locator('strong').innerText()).toBe('Mary Renamed'));
    expect((await mary.call('GET', '/users/me')).full_name).toBe('Mary Renamed');

    const bots = (await admin.call('GET', '/bots')).bots as { user_id: number; full_name: string }[];
    const echo = bots.find((b) => b.full_name === 'Echo Bot')!;
    const owner = page.getByLabel('Owner of Echo Bot');
    expect(await owner.inputValue()).toBe(String(admin.user_id));
    await owner.selectOption({ label: 'Mark Member' });
    const markId = (await apiUser(base, MARK)).user_id;
    await eventually(async () => expect((await admin.call('GET', `/users/${echo.user_id}`)).user.bot_owner_id).toBe(markId));
    await eventually(async () => expect(await owner.inputValue()).toBe(String(markId)));
    // A person is no bot: no owner control on their row; a bot has no role list.
    expect(await page.getByLabel('Owner of Mark Member').count()).toBe(0);
    expect(await page.getByLabel('Role of Echo Bot').count()).toBe(0);
    await shoot(page, 'admin-users-edit-desktop');
    await checkA11y(page);
    await desktop.close();
    await atPhone('/#admin/users', (p) => p.getByRole('button', { name: 'Rename Mary Renamed' }).waitFor(), 'admin-users-edit-375');

    const markContext = await context();
    const markPage = await logIn(markContext, base, MARK, '/#admin/users');
    await markPage.getByText('That section is not open to your role').waitFor();
    expect(await markPage.getByRole('button', { name: /^Rename / }).count()).toBe(0);
    expect(await markPage.getByLabel(/^Owner of /).count()).toBe(0);
    await markContext.close();
  }, 90_000);

  it('creates external account fields (a preset, and a custom one whose malformed URL pattern is refused in words); the user card links to the account', async () => {
    const desktop = await context();
    const page = await logIn(desktop, base, ADMIN, '/#admin/profile-fields');
    await page.getByLabel('Field type').selectOption({ label: 'External account' });
    // A preset is named after its service: no name asked.
    expect(await page.getByLabel('Field name').count()).toBe(0);
    await page.getByLabel('Service').selectOption({ label: 'GitHub' });
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByRole('button', { name: 'Edit the field GitHub' }).waitFor();
    await page.getByLabel('Service').selectOption({ label: 'Custom (another site)' });
    await page.getByLabel('Field name').fill('Fediverse');
    const pattern = page.getByLabel('URL pattern');
    await pattern.fill('https://social.example.com/@user');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.locator('#field-outcome.error').waitFor();
    expect(await page.locator('#field-outcome').innerText()).toBe('Field not added: Malformed URL pattern.');
    expect(await pattern.inputValue()).toBe('https://social.example.com/@user');
    expect(await page.getByLabel('Field name').inputValue()).toBe('Fediverse');
    await shoot(page, 'admin-external-field-refused-desktop');
    await checkA11y(page);
    await pattern.fill('https://social.example.com/@%(username)s');
    await page.getByRole('button', { name: 'Add field' }).click();
    await page.getByRole('button', { name: 'Edit the field Fediverse' }).waitFor();
    const rowOf = (name: string) => page.locator('.field-row', { has: page.locator('strong', { hasText: name }) });
    expect(await rowOf('Fediverse').innerText()).toContain('External account, https://social.example.com/@%(username)s');
    expect(await rowOf('GitHub').innerText()).toContain('External account, GitHub');
    const made = ((await admin.call('GET', '/realm/profile_fields')).custom_fields as { id: number; name: string; type: number; field_data: string }[]).filter((f) => f.type === 7);
    const idOf = (name: string) => made.find((f) => f.name === name)!.id;
    expect(made.map((f) => [f.name, JSON.parse(f.field_data)])).toEqual([
      ['GitHub', { subtype: 'github' }],
      ['Fediverse', { subtype: 'custom', url_pattern: 'https://social.example.com/@%(username)s' }],
    ]);

    // Mark fills his usernames; his card shows each as a link to the account.
    const mark = await apiUser(base, MARK);
    await mark.call('PATCH', '/users/me/profile_data', { data: JSON.stringify([{ id: idOf('GitHub'), value: 'mark-m' }, { id: idOf('Fediverse'), value: 'mark' }]) });
    const card = page.getByRole('dialog', { name: 'Mark Member' });
    await page.locator(`#people .person[data-user-id="${mark.user_id}"]`).click();
    await card.waitFor();
    await eventually(async () => expect(await card.getByRole('link', { name: 'mark-m' }).getAttribute('href')).toBe('https://github.com/mark-m'));
    expect(await card.getByRole('link', { name: 'mark', exact: true }).getAttribute('href')).toBe('https://social.example.com/@mark');
    await shoot(page, 'people-card-external-desktop');
    await checkA11y(page);
    await desktop.close();

    await atPhone(
      '/#admin/profile-fields',
      async (p) => {
        await p.getByLabel('Field type').selectOption({ label: 'External account' });
        await p.getByLabel('Service').selectOption({ label: 'Custom (another site)' });
        await p.getByLabel('URL pattern').fill('https://code.example.org/%(username)s');
      },
      'admin-external-field-375',
    );
  }, 60_000);
});
