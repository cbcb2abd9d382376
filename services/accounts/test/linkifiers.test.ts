/** Given facts / when command / then facts for the linkifier deciders. */
import { describe, it } from '@jest/globals';
import { ROLE, type Actor, type Fact } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  decideAddLinkifier,
  decideRemoveLinkifier,
  decideReorderLinkifiers,
  decideUpdateLinkifier,
  evolveLinkifiers,
  initialLinkifiers,
  type LinkifiersState,
} from '../src/domain/linkifiers';

const admin: Actor = { user_id: 2, email: 'a@x', full_name: 'A', role: ROLE.administrator, is_bot: false, client: 'test' };
const owner: Actor = { ...admin, user_id: 1, role: ROLE.owner };
const moderator: Actor = { ...admin, user_id: 3, role: ROLE.moderator };
const member: Actor = { ...admin, user_id: 4, role: ROLE.member };
const guest: Actor = { ...admin, user_id: 6, role: ROLE.guest };
const audience = 'active_users' as const;

type Input = { actor: Actor; pattern: string; url_template: string; id?: number };
const spec = <C>(decide: (state: LinkifiersState, cmd: C) => Fact[]) =>
  deciderSpec<LinkifiersState, C>({ initial: initialLinkifiers, evolve: evolveLinkifiers, decide: (cmd, state) => decide(state, cmd) });
const add = spec<Input>((state, cmd) => decideAddLinkifier(state, { ...cmd }).facts);
const update = spec<Input>((state, cmd) => decideUpdateLinkifier(state, { ...cmd, linkifier_id: cmd.id ?? 1 }));
const remove = spec<{ actor: Actor; id: number }>((state, cmd) => decideRemoveLinkifier(state, { actor: cmd.actor, linkifier_id: cmd.id }));
const reorder = spec<{ actor: Actor; ids: number[] }>((state, cmd) => decideReorderLinkifiers(state, { actor: cmd.actor, ordered_linkifier_ids: cmd.ids }));

const issues = { id: 1, pattern: '#(?P<id>[0-9]+)', url_template: 'https://t.example/issues/{id}' };
const tickets = { id: 2, pattern: 'T-(?P<n>[0-9]+)', url_template: 'https://t.example/t/{n}' };
const first: Fact = { type: 'LinkifierAdded', linkifier: issues, linkifiers: [issues], audience };
const second: Fact = { type: 'LinkifierAdded', linkifier: tickets, linkifiers: [issues, tickets], audience };

describe('linkifiers', () => {
  it('adds a linkifier with the next id (ids are never reused) and the whole list after it', () => {
    add.given([first]).when({ actor: admin, pattern: tickets.pattern, url_template: tickets.url_template }).then([second]);
    const removed: Fact = { type: 'LinkifierRemoved', linkifier_id: 2, linkifiers: [issues], audience };
    add.given([first, second, removed]).when({ actor: owner, pattern: ' X(?P<n>[0-9]+) ', url_template: 'https://x.example/{n}' }).then([
      { type: 'LinkifierAdded', linkifier: { id: 3, pattern: 'X(?P<n>[0-9]+)', url_template: 'https://x.example/{n}' }, linkifiers: [issues, { id: 3, pattern: 'X(?P<n>[0-9]+)', url_template: 'https://x.example/{n}' }], audience },
    ]);
  });

  it.each([moderator, member, guest])('refuses role %#: only administrators change linkifiers', (actor) => {
    add.given([]).when({ actor, ...issues }).thenThrows({ code: 'BAD_REQUEST', msg: 'Must be an organization administrator' });
    update.given([first]).when({ actor, ...issues }).thenThrows({ code: 'BAD_REQUEST' });
    remove.given([first]).when({ actor, id: 1 }).thenThrows({ code: 'BAD_REQUEST' });
    reorder.given([first]).when({ actor, ids: [1] }).thenThrows({ code: 'BAD_REQUEST' });
  });

  it.each(['(?P<id>a)\\1', '(?=a)(?P<id>b)', '(?<=a)(?P<id>b)', '(?P<id>x', '', '   ', 'a'.repeat(1001), 'a\u0000(?P<id>b)', '(?P<linkifier_before>a)'])(
    'refuses pattern %#: RE2 cannot run it, or it is empty, too long or reserved',
    (pattern) => add.given([]).when({ actor: admin, pattern, url_template: issues.url_template }).thenThrows({ code: 'BAD_REQUEST' }),
  );

  it.each(['https://t.example/{id', 'https://t.example/}{id}', 'https://t.example/{other}', 'javascript:{id}', '{id}', `https://t.example/${'p'.repeat(1024)}{id}`])(
    'refuses URL template %#',
    (url_template) => add.given([]).when({ actor: admin, pattern: issues.pattern, url_template }).thenThrows({ code: 'BAD_REQUEST' }),
  );

  it('refuses a pattern already used, here or by another linkifier on update', () => {
    add.given([first]).when({ actor: admin, pattern: issues.pattern, url_template: 'https://o.example/{id}' }).thenThrows({ code: 'BAD_REQUEST' });
    update.given([first, second]).when({ actor: admin, id: 2, pattern: issues.pattern, url_template: tickets.url_template }).thenThrows({ code: 'BAD_REQUEST' });
  });

  it('updates a linkifier in its place, and refuses an unknown one', () => {
    const edited = { id: 1, pattern: 'GH-(?P<id>[0-9]+)', url_template: 'https://g.example/{id}' };
    update.given([first, second]).when({ actor: admin, id: 1, pattern: edited.pattern, url_template: edited.url_template }).then([
      { type: 'LinkifierUpdated', linkifier: edited, linkifiers: [edited, tickets], audience },
    ]);
    update.given([first]).when({ actor: admin, ...issues, id: 9 }).thenThrows({ code: 'BAD_REQUEST', msg: 'Linkifier not found.' });
  });

  it('removes a linkifier, and refuses an unknown one', () => {
    remove.given([first, second]).when({ actor: admin, id: 1 }).then([{ type: 'LinkifierRemoved', linkifier_id: 1, linkifiers: [tickets], audience }]);
    remove.given([first]).when({ actor: admin, id: 2 }).thenThrows({ code: 'BAD_REQUEST', msg: 'Linkifier not found.' });
  });

  it('reorders when the order names every linkifier once; the same order changes nothing', () => {
    reorder.given([first, second]).when({ actor: admin, ids: [2, 1] }).then([{ type: 'LinkifiersReordered', linkifiers: [tickets, issues], audience }]);
    reorder.given([first, second]).when({ actor: admin, ids: [1, 2] }).then([]);
    reorder.given([first, second]).when({ actor: admin, ids: [1, 1] }).thenThrows({ code: 'BAD_REQUEST', msg: 'The ordered list must not contain duplicated linkifiers' });
    reorder.given([first, second]).when({ actor: admin, ids: [1] }).thenThrows({ code: 'BAD_REQUEST' });
    reorder.given([first, second]).when({ actor: admin, ids: [1, 3] }).thenThrows({ code: 'BAD_REQUEST' });
  });
});
