/**
 * What clients see of changes to people: `realm_user` events to everyone who may access the
 * user, the system groups' `user_group` membership events that a role change (or a new or
 * reactivated user) implies, and `realm_bot` events to a bot's administrators and owner.
 * Audiences come with the facts (accounts decided them); facts stored before they carried
 * audiences announce nothing.
 */
import { avatarPerson, avatarStateOf, avatarUrlOf, cachedGravatarUrls, type BotSettings, type ClientEvent, type FactOf, type RealmBotEvent } from '@teamchat/contracts';
import type { AvatarBook } from './avatar-book';
import { isAdministrator, isGuest, isOwner, systemGroupOfRole } from '@teamchat/policies';
import { factRecipients, reaches, same, type Delivery, type Recipients } from './delivery';
import type { Roster } from './roster';

/** What the fan-out needs beyond the facts: bots' keys, derived from their salt; senders' avatars. */
export interface FanOutContext {
  apiKeyOf(salt: string): string;
  /** Absent (tests): every sender has the provider's avatar. */
  avatars?: AvatarBook;
  /** Who is active, for named audiences; absent (tests): every user with a queue. */
  roster?: Roster;
}

const avatarUrls = cachedGravatarUrls();
/** A listed audience (or none) as recipients. */
const listed = (user_ids: number[] | undefined): Recipients | undefined => (user_ids?.length ? { user_ids } : undefined);

const to = (recipients: Recipients | undefined, event: ClientEvent): Delivery[] => (recipients ? [{ ...recipients, eventFor: same(event) }] : []);

const personUpdate = (recipients: Recipients | undefined, person: Record<string, unknown> & { user_id: number }): Delivery[] =>
  to(recipients, { type: 'realm_user', op: 'update', person } as ClientEvent);

const botUpdate = (user_ids: number[] | undefined, bot: Record<string, unknown> & { user_id: number }): Delivery[] =>
  to(listed(user_ids), { type: 'realm_bot', op: 'update', bot } as RealmBotEvent);

const membership = (recipients: Recipients | undefined, op: 'add_members' | 'remove_members', groupId: number, userId: number): Delivery[] =>
  to(recipients, { type: 'user_group', op, group_id: groupId, user_ids: [userId] });

/**
 * Who hears of a change to a person: every active user and the person, named (the
 * person even when the change deactivates them), or as a fact stored before listed them.
 * The roster takes the fact first, so a new or reactivated user is among their own audience.
 */
function personRecipients(fact: PersonFact, ctx: FanOutContext): Recipients | undefined {
  ctx.roster?.record(fact);
  return factRecipients('audience' in fact ? fact : { audience_user_ids: fact.audience_user_ids }, ctx.roster, [fact.user_id]);
}

type PersonFact = FactOf<'UserCreated' | 'UserDeactivated' | 'UserReactivated' | 'UserRoleChanged' | 'UserFullNameChanged' | 'BotOwnerChanged' | 'UserAvatarChanged'>;

interface BotView {
  user_id: number;
  email: string;
  full_name: string;
  bot_type: number | null;
  is_active: boolean;
  owner_id: number | null;
  api_key_salt: string;
  settings: BotSettings | undefined;
}

function botAdded(bot: BotView, ctx: FanOutContext): RealmBotEvent {
  const settings = bot.settings;
  return {
    type: 'realm_bot',
    op: 'add',
    bot: {
      user_id: bot.user_id,
      email: bot.email,
      full_name: bot.full_name,
      bot_type: bot.bot_type,
      is_active: bot.is_active,
      api_key: ctx.apiKeyOf(bot.api_key_salt),
      default_sending_stream: settings?.default_sending_stream ?? null,
      default_events_register_stream: settings?.default_events_register_stream ?? null,
      default_all_public_streams: settings?.default_all_public_streams ?? false,
      // A bot shown again (a new administrator) may have changed its avatar since it was made.
      avatar_url: avatarUrlOf(bot.email, ctx.avatars?.of(bot.user_id)),
      owner_id: bot.owner_id,
      services: settings?.services ?? [],
    },
  };
}

function userAdded(fact: FactOf<'UserCreated'>, ctx: FanOutContext): Delivery[] {
  const recipients = personRecipients(fact, ctx);
  if (!recipients) return [];
  const person = {
    user_id: fact.user_id,
    email: fact.email,
    delivery_email: fact.email,
    full_name: fact.full_name,
    date_joined: new Date(fact.date_joined * 1000).toISOString(),
    is_active: true,
    is_owner: isOwner(fact.role),
    is_admin: isAdministrator(fact.role),
    is_guest: isGuest(fact.role),
    is_billing_admin: false,
    is_bot: fact.is_bot,
    bot_type: fact.bot_type,
    bot_owner_id: fact.bot_owner_id,
    role: fact.role,
    timezone: fact.timezone,
    avatar_version: 1,
    is_imported_stub: false,
    profile_data: {},
  };
  const avatar = avatarUrls(fact.email);
  const events = new Map<boolean, ClientEvent>();
  return [
    {
      ...recipients,
      // With client_gravatar the client computes the Gravatar URL itself.
      eventFor: (queue) => {
        const gravatar = queue.options.client_gravatar;
        let event = events.get(gravatar);
        if (!event) {
          event = { type: 'realm_user', op: 'add', person: { ...person, avatar_url: gravatar ? null : avatar } };
          events.set(gravatar, event);
        }
        return event;
      },
    },
    ...membership(recipients, 'add_members', systemGroupOfRole(fact.role), fact.user_id),
  ];
}

export function peopleFanOut(ctx: FanOutContext) {
  return {
    UserCreated: (fact: FactOf<'UserCreated'>): Delivery[] => [
      ...userAdded(fact, ctx),
      ...(fact.is_bot && fact.bot_audience_user_ids?.length
        ? to(
            listed(fact.bot_audience_user_ids),
            botAdded(
              {
                user_id: fact.user_id,
                email: fact.email,
                full_name: fact.full_name,
                bot_type: fact.bot_type,
                is_active: true,
                owner_id: fact.bot_owner_id,
                api_key_salt: fact.api_key_salt,
                settings: fact.bot_settings,
              },
              ctx,
            ),
          )
        : []),
    ],
    // Clients take a deactivated user out of every group themselves.
    UserDeactivated: (fact: FactOf<'UserDeactivated'>): Delivery[] => [
      ...personUpdate(personRecipients(fact, ctx), { user_id: fact.user_id, is_active: false }),
      ...botUpdate(fact.bot_audience_user_ids, { user_id: fact.user_id, is_active: false }),
    ],
    UserReactivated: (fact: FactOf<'UserReactivated'>): Delivery[] => {
      const recipients = personRecipients(fact, ctx);
      return [
        ...personUpdate(recipients, { user_id: fact.user_id, is_active: true }),
        ...(fact.group_ids ?? []).flatMap((groupId) => membership(recipients, 'add_members', groupId, fact.user_id)),
        ...botUpdate(fact.bot_audience_user_ids, { user_id: fact.user_id, is_active: true }),
      ];
    },
    UserRoleChanged: (fact: FactOf<'UserRoleChanged'>): Delivery[] => {
      const before = systemGroupOfRole(fact.old_role);
      const after = systemGroupOfRole(fact.role);
      const recipients = personRecipients(fact, ctx);
      const self = listed(reaches(recipients, fact.user_id) ? [fact.user_id] : []);
      return [
        ...personUpdate(recipients, { user_id: fact.user_id, role: fact.role }),
        ...(fact.bots_shown ?? []).flatMap(({ bot_settings, ...bot }) => to(self, botAdded({ ...bot, settings: bot_settings }, ctx))),
        ...(fact.bots_hidden ?? []).flatMap((user_id) => to(self, { type: 'realm_bot', op: 'delete', bot: { user_id } })),
        ...(before === after
          ? []
          : [
              ...membership(recipients, 'remove_members', before, fact.user_id),
              ...membership(recipients, 'add_members', after, fact.user_id),
            ]),
      ];
    },
    UserFullNameChanged: (fact: FactOf<'UserFullNameChanged'>): Delivery[] => [
      ...personUpdate(personRecipients(fact, ctx), { user_id: fact.user_id, full_name: fact.full_name }),
      ...botUpdate(fact.bot_audience_user_ids, { user_id: fact.user_id, full_name: fact.full_name }),
    ],
    /**
     * As Zulip: a previous owner who is not an administrator sees the bot go, the new
     * owner gets it whole, and the administrators and the new owner the new owner's id.
     */
    BotOwnerChanged: (fact: FactOf<'BotOwnerChanged'>): Delivery[] => {
      const admins = new Set(fact.bot_audience_user_ids ?? []);
      admins.delete(fact.bot_owner_id);
      const recipients = personRecipients(fact, ctx);
      const oldOwnerLoses = fact.old_owner_id !== null && !admins.has(fact.old_owner_id) && reaches(recipients, fact.old_owner_id);
      const newOwnerGains = !admins.has(fact.bot_owner_id);
      return [
        ...personUpdate(recipients, { user_id: fact.user_id, bot_owner_id: fact.bot_owner_id }),
        ...(oldOwnerLoses ? to(listed([fact.old_owner_id!]), { type: 'realm_bot', op: 'delete', bot: { user_id: fact.user_id } }) : []),
        ...(newOwnerGains
          ? to(listed([fact.bot_owner_id]), botAdded({ user_id: fact.user_id, ...fact.bot, owner_id: fact.bot_owner_id, settings: fact.bot_settings }, ctx))
          : []),
        ...botUpdate(fact.bot_audience_user_ids, { user_id: fact.user_id, owner_id: fact.bot_owner_id }),
      ];
    },
    BotSettingsChanged: (fact: FactOf<'BotSettingsChanged'>): Delivery[] => {
      const { default_sending_stream_id: _s, default_events_register_stream_id: _e, ...shown } = fact.changes;
      return Object.keys(shown).length ? botUpdate(fact.bot_audience_user_ids, { user_id: fact.user_id, ...shown }) : [];
    },
    BotApiKeyRegenerated: (fact: FactOf<'BotApiKeyRegenerated'>): Delivery[] =>
      botUpdate(fact.bot_audience_user_ids, { user_id: fact.user_id, api_key: ctx.apiKeyOf(fact.api_key_salt) }),
    // The URLs are given whatever the queue's client_gravatar, as Zulip's avatar update does.
    UserAvatarChanged: (fact: FactOf<'UserAvatarChanged'>): Delivery[] => {
      const avatar = avatarStateOf(fact);
      ctx.avatars?.record(fact.user_id, avatar);
      const person = avatarPerson(fact.user_id, fact.email, avatar);
      return [...personUpdate(personRecipients(fact, ctx), person), ...botUpdate(fact.bot_audience_user_ids, { user_id: fact.user_id, avatar_url: person.avatar_url })];
    },
  };
}

/** The cases above, made once per context. */
const peopleCases = new WeakMap<FanOutContext, ReturnType<typeof peopleFanOut>>();
function people(ctx: FanOutContext): ReturnType<typeof peopleFanOut> {
  let cases = peopleCases.get(ctx);
  if (!cases) peopleCases.set(ctx, (cases = peopleFanOut(ctx)));
  return cases;
}

/** The fan-out table's rows for the organization stream's facts. */
export const peopleFanOutCases = {
  OrganizationCreated: null,
  UserCreated: (fact: FactOf<'UserCreated'>, _stored: unknown, ctx: FanOutContext) => people(ctx).UserCreated(fact),
  UserDeactivated: (fact: FactOf<'UserDeactivated'>, _stored: unknown, ctx: FanOutContext) => people(ctx).UserDeactivated(fact),
  UserReactivated: (fact: FactOf<'UserReactivated'>, _stored: unknown, ctx: FanOutContext) => people(ctx).UserReactivated(fact),
  UserPasswordSet: null,
  UserRoleChanged: (fact: FactOf<'UserRoleChanged'>, _stored: unknown, ctx: FanOutContext) => people(ctx).UserRoleChanged(fact),
  UserFullNameChanged: (fact: FactOf<'UserFullNameChanged'>, _stored: unknown, ctx: FanOutContext) => people(ctx).UserFullNameChanged(fact),
  BotOwnerChanged: (fact: FactOf<'BotOwnerChanged'>, _stored: unknown, ctx: FanOutContext) => people(ctx).BotOwnerChanged(fact),
  BotSettingsChanged: (fact: FactOf<'BotSettingsChanged'>, _stored: unknown, ctx: FanOutContext) => people(ctx).BotSettingsChanged(fact),
  BotApiKeyRegenerated: (fact: FactOf<'BotApiKeyRegenerated'>, _stored: unknown, ctx: FanOutContext) => people(ctx).BotApiKeyRegenerated(fact),
  UserAvatarChanged: (fact: FactOf<'UserAvatarChanged'>, _stored: unknown, ctx: FanOutContext) => people(ctx).UserAvatarChanged(fact),
  // Set only by trusted internal callers (seeding) so far; the organization-settings work
  // announces it as Zulip's realm update of new_stream_announcements_stream_id.
  NewChannelAnnouncementsChannelChanged: null,
};
