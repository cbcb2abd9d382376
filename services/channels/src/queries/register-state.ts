/**
 * Channels' sections of POST /register: the caller's subscriptions (with their own
 * settings), the channels they left or never joined but may see, every channel they may
 * see, the default channels and the channel folders.
 */
import { channelApiObject, subscriptionRecord, wantsState, type ChannelsState, type ChannelView, type StateParams } from '@teamchat/contracts';
import type { Directory, UserGroups } from '@teamchat/directory';
import { hasMetadataAccess, isGuest } from '@teamchat/policies';
import type { ChannelFolders } from '../projections/channel-folders';
import { subscribersField } from '../domain/partial-subscribers';
import type { ChannelMessages } from '../projections/channel-messages';
import type { UserActivity } from '../projections/user-activity';
import type { SubscriptionSettingsModel } from '../projections/subscription-settings';

export interface ChannelsStateDeps {
  directory: Pick<Directory, 'userById' | 'allChannels' | 'subscriptionsOf' | 'sortedSubscriberIds' | 'activeUsers'>;
  messages: Pick<ChannelMessages, 'firstMessageId'>;
  /** The custom user groups, which may give metadata access to private channels. */
  userGroups: Pick<UserGroups, 'snapshot'>;
  /** Absent: every subscriber setting at its default. */
  settings?: Pick<SubscriptionSettingsModel, 'ofUser'>;
  /** Absent: no folders. */
  folders?: Pick<ChannelFolders, 'all'>;
  /** For `include_subscribers: "partial"`; absent: every list is full. */
  partial?: { activity: Pick<UserActivity, 'all'>; minChannelSize: number };
}

export async function channelsState(deps: ChannelsStateDeps, userId: number, params: StateParams): Promise<ChannelsState> {
  const want = (type: string) => wantsState(params, type);
  const state: ChannelsState = {};
  const me = await deps.directory.userById(userId);
  if (!me) return state;
  if (want('channel_folder')) state.channel_folders = deps.folders ? await deps.folders.all(true) : [];
  if (!(want('subscription') || want('stream') || want('default_streams'))) return state;

  const now = Math.floor(Date.now() / 1000);
  const member = { user_id: me._id, role: me.role, date_joined: me.date_joined };
  const groups = await deps.userGroups.snapshot();
  const subscriptions = new Map((await deps.directory.subscriptionsOf(userId)).map((s) => [s.channel_id, s.active]));
  // Archived channels reach only clients that say they handle them, as in Zulip.
  const channels = (await deps.directory.allChannels())
    .filter((c) => params.archived_channels || !c.is_archived)
    .sort((a, b) => a.channel_id - b.channel_id);
  // The channels the user is told of by events: the same rule decides both.
  const visible = channels.filter((c) => hasMetadataAccess(c, member, subscriptions.get(c.channel_id) === true, now, groups));
  const firstIds = new Map<number, number | null>();
  const subscribers = new Map<number, number[]>();
  for (const channel of visible) {
    firstIds.set(channel.channel_id, await deps.messages.firstMessageId(channel.channel_id));
    subscribers.set(channel.channel_id, await deps.directory.sortedSubscriberIds(channel.channel_id));
  }
  const mySettings = deps.settings ? await deps.settings.ofUser(userId) : new Map();
  const extra = (c: ChannelView) => ({ first_message_id: firstIds.get(c.channel_id) ?? null, subscriber_ids: subscribers.get(c.channel_id) ?? [] });
  const plain = (c: ChannelView) => plainObject(c, firstIds.get(c.channel_id) ?? null, subscribers.get(c.channel_id)?.length ?? 0);
  // Zulip leaves `subscribers` out unless asked; 'partial' sends large channels' lists in part.
  const listOf = await subscriberLists(deps, params);
  // Assigned rather than spread (see subscriptionApiObject).
  const withSubscribers = <T extends object>(object: T, c: ChannelView) =>
    params.include_subscribers === false ? object : Object.assign({}, object, listOf(extra(c).subscriber_ids));

  if (want('subscription')) {
    state.subscriptions = visible
      .filter((c) => subscriptions.get(c.channel_id) === true)
      .map((c) => {
        const { first_message_id, subscriber_ids } = extra(c);
        const record = subscriptionRecord(c, { first_message_id, subscriber_count: subscriber_ids.length, settings: mySettings.get(c.channel_id) });
        return params.include_subscribers === false ? record : Object.assign(record, listOf(subscriber_ids));
      });
    state.unsubscribed = visible.filter((c) => subscriptions.get(c.channel_id) === false).map((c) => withSubscribers(plain(c), c));
    state.never_subscribed = visible.filter((c) => !subscriptions.has(c.channel_id)).map((c) => withSubscribers(plain(c), c));
  }
  if (want('stream')) state.streams = visible.map(plain);
  if (want('default_streams')) {
    // Guests are not told of default channels (nor of changes to them), as in Zulip.
    state.realm_default_streams = isGuest(me.role) ? [] : channels.filter((c) => c.is_default && !c.is_archived).map((c) => c.channel_id);
  }
  return state;
}

/**
 * Each channel's object as `streams` and `never_subscribed` list it, the same for every
 * user: kept per channel view (the directory's, replaced when the channel changes) while
 * its first message and subscriber count stay, and shared, so frozen. At 1,000 channels a
 * registration built about 1,750 of them.
 */
const plainObjects = new WeakMap<ChannelView, { first: number | null; count: number; object: Readonly<ReturnType<typeof channelApiObject>> }>();

function plainObject(channel: ChannelView, first: number | null, count: number): Readonly<ReturnType<typeof channelApiObject>> {
  const kept = plainObjects.get(channel);
  if (kept && kept.first === first && kept.count === count) return kept.object;
  const object = Object.freeze(channelApiObject(channel, { first_message_id: first, subscriber_count: count }));
  plainObjects.set(channel, { first, count, object });
  return object;
}

/** The JSON of each shared plain object (plainObject) in UTF-8, written once. */
const plainJson = new WeakMap<object, Buffer>();

const jsonOf = (object: object): Buffer => {
  const kept = plainJson.get(object);
  if (kept !== undefined) return kept;
  const json = Buffer.from(JSON.stringify(object));
  // Only shared objects are kept: others are built for one registration.
  if (Object.isFrozen(object)) plainJson.set(object, json);
  return json;
};

/**
 * The state with `streams` and `never_subscribed` taken out as serialized members (a
 * BusReply's `json`): at 1,000 channels they are most of the section, the same objects
 * for every registration, so their JSON is kept with them rather than written each time.
 * Joined as bytes: as one text (1.5 MB at 1,000 channels) it went straight to the old
 * generation of the thread that answers, and was converted to bytes there again.
 */
export function serializedLists(state: ChannelsState): { state: ChannelsState; json?: Buffer } {
  const { streams, never_subscribed, ...rest } = state;
  if (!streams && !never_subscribed) return { state };
  const pieces: Buffer[] = [];
  const list = (name: string, objects: readonly object[]) => {
    pieces.push(Buffer.from(`${pieces.length === 0 ? '{' : ','}"${name}":[`));
    objects.forEach((object, i) => {
      if (i > 0) pieces.push(COMMA);
      pieces.push(jsonOf(object));
    });
    pieces.push(CLOSE_LIST);
  };
  if (streams) list('streams', streams);
  if (never_subscribed) list('never_subscribed', never_subscribed);
  pieces.push(CLOSE_OBJECT);
  return { state: rest, json: Buffer.concat(pieces) };
}

const COMMA = Buffer.from(',');
const CLOSE_LIST = Buffer.from(']');
const CLOSE_OBJECT = Buffer.from('}');

/** How a channel's subscribers are listed: whole, or in part for large channels when the client asked for 'partial'. */
async function subscriberLists(deps: ChannelsStateDeps, params: StateParams) {
  if (params.include_subscribers !== 'partial' || !deps.partial) return (ids: number[]) => ({ subscribers: ids });
  const { activity, minChannelSize } = deps.partial;
  const [lastActive, users] = await Promise.all([activity.all(), deps.directory.activeUsers()]);
  const bots = new Set(users.filter((u) => u.is_bot).map((u) => u._id));
  const rule = { minChannelSize, isBot: (id: number) => bots.has(id), lastActive: (id: number) => lastActive.get(id), now: Date.now() };
  return (ids: number[]) => subscribersField(ids, rule);
}
