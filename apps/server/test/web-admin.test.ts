/**
 * The web client's administration screen (issue 41, item 6) in headless Chromium against
 * the embedded server: an invitation link created there and accepted on the registration
 * page (the account then works and is in the chosen channel), an email invitation listed
 * and revoked, a refused invitation said in words; a role changed there taking effect in
 * the other person's open page (sections appear); an administrator's change to an owner's
 * role refused by the server and said on the row; channels created, renamed, described,
 * others subscribed, archived; allowed domains, custom emoji, linkifiers, playgrounds and
 * the organization's name; a member and a guest see none of the administrators' controls;
 * an administrator sets another person's profile fields (a refused value said, the text
 * kept) and an owner changes a person's email, refused in words until the operator's
 * permission is given.
 * Screenshots: apps/web/screenshots/admin-*.png; axe finds no serious or critical
 * violation on each section.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import type { Page } from 'playwright-core';
import { endpoints } from '@teamchat/contracts';
import { callContract } from '@teamchat/platform';
import { describeViolations, seriousViolations } from './axe';
import { browserSuite } from './browser';
import { PNG } from './uploads-suite';
import {apiUser, clocksMasked, eventually, logIn, SHOTS, startWebServer } from './web-page';

const ADMIN = 'admin@example.com';
const MARK = 'member@example.com';
const GUEST = 'guest@example.com';
const OWNER = 'owner@example.com';
const MARY = 'member2@example.com';

browserSuite('the web client: administration', (browser) => {
  let server: Awaited<ReturnType<typeof startWebServer>> | undefined;
  let base: string;
  let admin: Awaited<ReturnType<typeof apiUser>>;

  beforeAll(async () => {
    server = await startWebServer('web-admin');
    base = server.url;
    admin = await apiUser(base, ADMIN);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
  });

  // A step that cannot happen fails at that step, in time, rather than at the test's timeout.
  const desktop = async () => {
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    context.setDefaultTimeout(10_000);
    return context;
  };
  const section = async (page: Page, name: string) => {
    await page.getByRole('navigation', { name: 'Administration sections' }).getByRole('link', { name, exact: true }).click();
    await eventually(async () => expect(await page.getByRole('navigation', { name: 'Administration sections' }).locator('[aria-current="page"]').innerText()).toBe(name));
  };
  const sectionNames = (page: Page) => page.getByRole('navigation', { name: 'Administration sections' }).getByRole('link').allInnerTexts();
  const checkA11y = async (page: Page) => expect(describeViolations(await seriousViolations(page))).toEqual([]);

  it('creates an invitation link that is accepted on the registration page; lists and revokes an email invitation; says a refusal in words', async () => {
    const context = await desktop();
    const page = await logIn(context, base, ADMIN);
    await page.getByRole('link', { name: 'Administration' }).click();
    await page.getByRole('heading', { name: 'Administration', level: 2 }).waitFor();
    expect(await sectionNames(page)).toEqual(['Organization', 'Invitations', 'Channels', 'Default channels', 'Users', 'Profile fields', 'Custom emoji', 'Linkifiers', 'Code playgrounds']);
    await section(page, 'Invitations');
    await page.getByLabel('Join as').selectOption({ label: 'Member' });
    await page.getByRole('checkbox', { name: '#engineering' }).check();
    await page.getByRole('button', { name: 'Create invitation link' }).click();
    const linkField = page.getByLabel('Invitation link');
    await linkField.waitFor();
    const link = (await linkField.inputValue()).replace(/^https?:\/\/[^/]+/, base);
    expect(link).toMatch(/\/join\/\S+\/$/);
    await eventually(async () => expect(await page.locator('.admin-list .invite').allInnerTexts()).toEqual([expect.stringContaining('Reusable link')]));
    expect(await page.locator('.admin-list .invite').innerText()).toContain('#engineering');

    // Someone opens the link and signs up; the account works and is in #engineering.
    const stranger = await browser().newContext();
    const signup = await stranger.newPage();
    expect((await signup.goto(link))?.status()).toBe(200);
    await signup.fill('#email', 'linked@example.org').catch(() => undefined);
    await signup.fill('#full_name', 'Lin Linked');
    await signup.fill('#password', 'a linked password');
    await Promise.all([signup.waitForNavigation(), signup.click('button[type=submit]')]);
    expect(await signup.content()).toContain('id="account-email"');
    await stranger.close();
    const key = (await (await fetch(`${base}/api/v1/fetch_api_key`, { method: 'POST', body: new URLSearchParams({ username: 'linked@example.org', password: 'a linked password' }) })).json()) as { result: string; api_key: string };
    expect(key.result).toBe('success');
    const auth = `Basic ${Buffer.from(`linked@example.org:${key.api_key}`).toString('base64')}`;
    const subs = (await (await fetch(`${base}/api/v1/users/me/subscriptions`, { headers: { authorization: auth } })).json()) as { subscriptions: { name: string }[] };
    expect(subs.subscriptions.map((s) => s.name)).toContain('engineering');

    // By email: listed, then revoked.
    await page.getByLabel('Email addresses (separated by commas or new lines)').fill('newbie@example.org');
    await page.getByRole('button', { name: 'Send invitations' }).click();
    await page.getByText('Invitations sent.').waitFor();
    await eventually(async () => expect((await page.locator('.admin-list .invite').allInnerTexts()).join('\n')).toContain('newbie@example.org'));
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'admin-invitations-desktop.png') });
    await checkA11y(page);
    await page.getByRole('button', { name: 'Revoke the invitation: newbie@example.org' }).click();
    await eventually(async () => expect((await page.locator('.admin-list .invite').allInnerTexts()).join('\n')).not.toContain('newbie@example.org'));
    expect(((await admin.call('GET', '/invites')).invites as { email?: string }[]).some((i) => i.email === 'newbie@example.org')).toBe(false);

    // Someone who already has an account: the server refuses, the page says why beside the form, the text stays.
    await page.getByLabel('Email addresses (separated by commas or new lines)').fill(MARK);
    await page.getByRole('button', { name: 'Send invitations' }).click();
    const refusal = page.locator('#invite-outcome.error');
    await refusal.waitFor();
    expect(await refusal.innerText()).toMatch(/^No invitation sent: .*\S/);
    expect(await page.getByLabel('Email addresses (separated by commas or new lines)').inputValue()).toBe(MARK);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'admin-invite-refused-desktop.png') });
    await checkA11y(page);
    await context.close();
  });

  it("changes a member's role and the change takes effect in their open page; an owner's role change is refused in words", async () => {
    const markContext = await desktop();
    const markPage = await logIn(markContext, base, MARK, '/#admin');
    await markPage.getByRole('heading', { name: 'Administration', level: 2 }).waitFor();
    // A member may create channels and add emoji here, nothing else.
    expect(await sectionNames(markPage)).toEqual(['Channels', 'Custom emoji']);
    expect(await markPage.getByRole('button', { name: /^Archive #/ }).count()).toBe(0);
    expect(await markPage.getByRole('button', { name: 'Create channel' }).count()).toBe(1);

    const context = await desktop();
    const page = await logIn(context, base, ADMIN, '/#admin/users');
    const markRole = page.getByLabel('Role of Mark Member');
    await markRole.waitFor();
    expect(await markRole.inputValue()).toBe('400');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'admin-users-desktop.png') });
    await checkA11y(page);
    await markRole.selectOption({ label: 'Administrator' });
    // Mark's page follows the realm_user event: the administrators' sections appear.
    await eventually(async () => expect(await sectionNames(markPage)).toEqual(['Organization', 'Invitations', 'Channels', 'Default channels', 'Users', 'Profile fields', 'Custom emoji', 'Linkifiers', 'Code playgrounds']));
    expect(await markRole.inputValue()).toBe('200');
    await markRole.selectOption({ label: 'Member' });
    await eventually(async () => expect(await sectionNames(markPage)).toEqual(['Channels', 'Custom emoji']));
    await markContext.close();

    // An administrator may not change an owner's role: the control is there, the server refuses, the row says so.
    const owner = await apiUser(base, OWNER);
    const ownerRole = page.getByLabel('Role of Olivia Owner');
    expect(await ownerRole.inputValue()).toBe('100');
    await ownerRole.selectOption({ label: 'Member' });
    const row = page.locator(`.user-row[data-user-id="${owner.user_id}"]`);
    await row.locator('.error').waitFor();
    expect(await row.locator('.error').innerText()).toMatch(/^Olivia Owner’s role was not changed: .*\S/);
    expect(await ownerRole.inputValue()).toBe('100');
    expect((await owner.call('GET', '/users/me')).role).toBe(100);
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'admin-role-refused-desktop.png') });
    await checkA11y(page);

    // Deactivate and reactivate.
    await page.getByRole('button', { name: 'Deactivate Mary Member' }).click();
    await page.getByRole('button', { name: 'Reactivate Mary Member' }).waitFor();
    await page.getByRole('button', { name: 'Reactivate Mary Member' }).click();
    await page.getByRole('button', { name: 'Deactivate Mary Member' }).waitFor();
    await context.close();
  });

  it('creates, renames, describes, subscribes someone to and archives a channel', async () => {
    const context = await desktop();
    const page = await logIn(context, base, ADMIN, '/#admin/channels');
    await page.getByLabel('Channel name').fill('design');
    await page.getByLabel('Description', { exact: true }).fill('Pixels');
    await page.getByRole('button', { name: 'Create channel' }).click();
    await page.getByText('#design created.').waitFor();
    await eventually(async () => expect(await page.locator('#sidebar .channels').innerText()).toContain('#design'));
    const row = page.locator('.channel-admin', { has: page.locator('summary', { hasText: '#design' }) });
    await row.locator('summary').click();
    await row.getByLabel('Name of #design').fill('design-team');
    await row.getByLabel('Description of #design').fill('Pixels and type');
    await row.getByRole('button', { name: 'Save #design' }).click();
    await eventually(async () => expect(await page.locator('#sidebar .channels').innerText()).toContain('#design-team'));
    const streams = async () => (await admin.call('GET', '/streams')).streams as { name: string; description: string; stream_id: number }[];
    expect((await streams()).find((s) => s.name === 'design-team')?.description).toBe('Pixels and type');

    const renamed = page.locator('.channel-admin', { has: page.locator('summary', { hasText: '#design-team' }) });
    if ((await renamed.locator('details').getAttribute('open')) === null) await renamed.locator('summary').click();
    await renamed.getByLabel('Subscribe to #design-team').selectOption({ label: 'Mary Member' });
    await renamed.getByRole('button', { name: 'Subscribe', exact: true }).click();
    await renamed.getByText('Mary Member is subscribed to #design-team.').waitFor();
    const mary = await apiUser(base, 'member2@example.com');
    expect(((await mary.call('GET', '/users/me/subscriptions')).subscriptions as { name: string }[]).map((s) => s.name)).toContain('design-team');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'admin-channels-desktop.png') });
    await checkA11y(page);

    await renamed.getByRole('button', { name: 'Archive #design-team' }).click();
    await eventually(async () => expect(await page.locator('#sidebar .channels').innerText()).not.toContain('#design-team'));
    expect((await streams()).some((s) => s.name === 'design-team')).toBe(false);
    await context.close();
  });

  it('manages allowed domains, custom emoji, linkifiers, playgrounds and the organization name', async () => {
    const context = await desktop();
    // An administrator is not offered the allowed domains (owners manage them); an owner is.
    const adminPage = await logIn(context, base, ADMIN, '/#admin/organization');
    await adminPage.getByLabel('Organization name').waitFor();
    expect(await adminPage.getByRole('heading', { name: 'Allowed email domains' }).count()).toBe(0);
    expect(await adminPage.getByLabel('Joining needs an invitation').count()).toBe(0);
    await context.close();
    const ownerContext = await desktop();
    const page = await logIn(ownerContext, base, OWNER, '/#admin/organization');
    await page.getByLabel('Domain', { exact: true }).fill('example.org');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('button', { name: 'Remove example.org' }).waitFor();
    expect(await page.getByLabel('Joining needs an invitation').isChecked()).toBe(true);
    expect(((await admin.call('GET', '/realm/domains')).domains as { domain: string }[]).map((d) => d.domain)).toContain('example.org');
    await page.getByLabel('Organization name').fill('Example Org Renamed');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await admin.call('POST', '/register', { fetch_event_types: JSON.stringify(['realm']) })).realm_name).toBe('Example Org Renamed');
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'admin-organization-desktop.png'), fullPage: true });
    await checkA11y(page);
    await page.getByRole('button', { name: 'Remove example.org' }).click();
    await eventually(async () => expect(await page.getByRole('button', { name: 'Remove example.org' }).count()).toBe(0));

    await section(page, 'Custom emoji');
    await page.getByLabel('Emoji name (letters, digits, dashes and underscores)').fill('party_parrot');
    await page.getByLabel('Image file').setInputFiles({ name: 'parrot.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('button', { name: 'Upload emoji' }).click();
    await page.getByRole('button', { name: 'Remove :party_parrot:' }).waitFor();
    await checkA11y(page);
    await page.getByRole('button', { name: 'Remove :party_parrot:' }).click();
    await eventually(async () => expect(await page.getByRole('button', { name: 'Remove :party_parrot:' }).count()).toBe(0));

    await section(page, 'Linkifiers');
    await page.getByLabel('Pattern (a regular expression, with named groups)').fill('#(?P<id>[0-9]+)');
    await page.getByLabel('URL template').fill('https://tracker.example.com/issues/{id}');
    await page.getByRole('button', { name: 'Add linkifier' }).click();
    await page.getByRole('button', { name: 'Remove linkifier #(?P<id>[0-9]+)' }).waitFor();
    // A refused one: the pattern is not a valid expression.
    await page.getByLabel('Pattern (a regular expression, with named groups)').fill('#(?P<id>[0-9+');
    await page.getByLabel('URL template').fill('https://tracker.example.com/issues/{id}');
    await page.getByRole('button', { name: 'Add linkifier' }).click();
    await page.locator('#linkifier-outcome.error').waitFor();
    expect(await page.locator('#linkifier-outcome').innerText()).toMatch(/^Linkifier not added: .*\S/);
    await checkA11y(page);

    await section(page, 'Code playgrounds');
    await page.getByLabel('Playground name').fill('Python sandbox');
    await page.getByLabel('Language (as code blocks name it)').fill('python');
    await page.getByLabel('URL template').fill('https://play.example.com/?code={code}');
    await page.getByRole('button', { name: 'Add playground' }).click();
    await page.getByRole('button', { name: 'Remove playground Python sandbox' }).waitFor();
    await checkA11y(page);
    await ownerContext.close();

    const phone = await browser().newContext({ viewport: { width: 375, height: 740 } });
    const small = await logIn(phone, base, ADMIN, '/#admin/invitations');
    await small.getByRole('button', { name: 'Create invitation link' }).waitFor();
    await small.screenshot({ ...clocksMasked(small), path: join(SHOTS, 'admin-invitations-375.png') });
    await checkA11y(small);
    await small.goto(`${base}/#admin/users`);
    await small.getByLabel('Role of Mark Member').waitFor();
    await small.screenshot({ ...clocksMasked(small), path: join(SHOTS, 'admin-users-375.png') });
    await checkA11y(small);
    await phone.close();
  });

  it('shows a guest no administration, and a member asking for a section of administrators gets what they may use', async () => {
    const context = await desktop();
    const guest = await logIn(context, base, GUEST);
    await guest.getByRole('link', { name: 'Browse channels' }).waitFor();
    expect(await guest.getByRole('link', { name: 'Administration' }).count()).toBe(0);
    await guest.goto(`${base}/#admin/users`);
    await guest.getByText('Your role does not allow changing the organization’s settings.').waitFor();
    await context.close();

    const markContext = await desktop();
    const mark = await logIn(markContext, base, MARK, '/#admin/users');
    await mark.getByText('That section is not open to your role').waitFor();
    expect(await mark.getByLabel(/^Role of /).count()).toBe(0);
    expect(await mark.getByRole('button', { name: /^Deactivate / }).count()).toBe(0);
    await mark.screenshot({ ...clocksMasked(mark), path: join(SHOTS, 'admin-member-desktop.png') });
    await checkA11y(mark);
    await markContext.close();
  });

  it("edits another person's profile fields (a refused value said and kept); an owner changes a person's email once the server permits it", async () => {
    const mary = await apiUser(base, MARY);
    // A field people may not set themselves: an administrator sets it for them.
    const desk = (await admin.call('POST', '/realm/profile_fields', { name: 'Desk', field_type: '1', editable_by_user: 'false' })).id as number;
    const valuesOf = async () => (await admin.call('GET', `/users/${mary.user_id}`, { include_custom_profile_fields: 'true' })).user.profile_data as Record<string, { value: string }>;
    const context = await desktop();
    const page = await logIn(context, base, ADMIN, '/#admin/users');
    const row = page.locator(`.user-row[data-user-id="${mary.user_id}"]`);
    await page.getByRole('button', { name: 'Profile fields of Mary Member' }).click();
    const deskField = page.getByLabel('Desk of Mary Member', { exact: true });
    expect(await deskField.isDisabled()).toBe(false);
    await deskField.fill('D'.repeat(60));
    await page.getByRole('button', { name: 'Save profile fields of Mary Member' }).click();
    const outcome = row.locator(`#user-${mary.user_id}-fields-outcome`);
    await row.locator(`#user-${mary.user_id}-fields-outcome.error`).waitFor();
    expect(await outcome.innerText()).toMatch(/^Not saved: Desk is too long/);
    expect(await deskField.inputValue()).toBe('D'.repeat(60));
    expect((await valuesOf())[String(desk)]).toBeUndefined();
    await page.screenshot({ ...clocksMasked(page), path: join(SHOTS, 'admin-user-fields-refused-desktop.png'), fullPage: true });
    await checkA11y(page);
    await deskField.fill('B-12');
    await page.getByRole('button', { name: 'Save profile fields of Mary Member' }).click();
    await eventually(async () => expect(await outcome.innerText()).toBe('Saved.'));
    expect((await valuesOf())[String(desk)]?.value).toBe('B-12');
    // An administrator who is not an owner is offered no email change.
    expect(await page.getByRole('button', { name: /^Change email of / }).count()).toBe(0);
    await context.close();

    // The owner: the form is offered; without the operator's permission the server refuses, said under it, the address kept.
    const ownerContext = await desktop();
    const owner = await logIn(ownerContext, base, OWNER, '/#admin/users');
    const maryRow = owner.locator(`.user-row[data-user-id="${mary.user_id}"]`);
    await owner.getByRole('button', { name: 'Change email of Mary Member' }).click();
    const emailField = owner.getByLabel('New email of Mary Member');
    await emailField.fill('mary.moved@example.com');
    await owner.getByRole('button', { name: 'Change email', exact: true }).click();
    await maryRow.locator(`#user-${mary.user_id}-email-outcome.error`).waitFor();
    expect(await maryRow.locator(`#user-${mary.user_id}-email-outcome`).innerText()).toBe('The email of Mary Member was not changed: User not authorized to change user emails');
    expect(await emailField.inputValue()).toBe('mary.moved@example.com');
    await owner.screenshot({ ...clocksMasked(owner), path: join(SHOTS, 'admin-user-email-refused-desktop.png'), fullPage: true });
    await checkA11y(owner);
    const permit = (granted: boolean) => callContract(server!.bus, endpoints.accounts.changeServerPermission, { params: { email: OWNER, permission: 'can_change_user_emails', granted } });
    await permit(true);
    try {
      await owner.getByRole('button', { name: 'Change email', exact: true }).click();
      await emailField.waitFor({ state: 'detached' });
      // The row follows the realm_user event.
      await eventually(async () => expect(await maryRow.locator('p.muted').first().innerText()).toContain('mary.moved@example.com'));
      expect((await admin.call('GET', `/users/${mary.user_id}`)).user.email).toBe('mary.moved@example.com');
      // Back to the old address, so that later tests find Mary where she was.
      await (await apiUser(base, OWNER)).call('PATCH', `/users/${mary.user_id}`, { new_email: MARY });
    } finally {
      await permit(false);
    }
    await ownerContext.close();

    // At phone width: both forms open on Mary's row.
    const phone = await browser().newContext({ viewport: { width: 375, height: 740 } });
    phone.setDefaultTimeout(10_000);
    const small = await logIn(phone, base, OWNER, '/#admin/users');
    await small.getByRole('button', { name: 'Profile fields of Mary Member' }).click();
    await small.getByRole('button', { name: 'Change email of Mary Member' }).click();
    await small.getByLabel('New email of Mary Member').fill('mary@example');
    await small.getByLabel('Desk of Mary Member', { exact: true }).scrollIntoViewIfNeeded();
    await small.screenshot({ ...clocksMasked(small), path: join(SHOTS, 'admin-user-edit-375.png') });
    await checkA11y(small);
    await phone.close();
  }, 60_000);
});
