/**
 * The organization's new-channel announcements channel, projected from the accounts' fact:
 * accounts reports it in register (`realm_new_stream_announcements_stream_id`), messaging
 * posts new-channel announcements there. Each keeps its own copy.
 */
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

interface SettingDoc extends Doc {
  _id: 'new_channel_announcements';
  channel_id: number | null;
}

export class AnnouncementsChannel {
  private readonly collection: Collection<SettingDoc>;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<SettingDoc>('dir_announcements_channel');
  }

  readonly handlers = {
    NewChannelAnnouncementsChannelChanged: ({ channel_id }) => this.collection.put({ _id: 'new_channel_announcements', channel_id }),
  } satisfies FactHandlers;

  /** The channel's id, or null when the organization announces new channels nowhere. */
  async channelId(): Promise<number | null> {
    return (await this.collection.get('new_channel_announcements'))?.channel_id ?? null;
  }
}
