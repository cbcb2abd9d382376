/**
 * Messaging's own copy of the few personal settings its decisions read, from accounts'
 * UserSettingChanged facts (no service reads another's read models):
 * `receives_typing_notifications` (who hears typing) and `send_read_receipts` (whose reads
 * a read receipt may show). Both default to on, so only the users who turned one off are
 * kept, in memory once loaded.
 */
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';

/** The settings messaging reads, each on unless a user turned it off. */
export const MESSAGING_PREFERENCES = ['receives_typing_notifications', 'send_read_receipts'] as const;
export type MessagingPreference = (typeof MESSAGING_PREFERENCES)[number];

type PreferencesDoc = Doc & { _id: number } & Partial<Record<MessagingPreference, boolean>>;

const isPreference = (property: string): property is MessagingPreference => (MESSAGING_PREFERENCES as readonly string[]).includes(property);

export class UserPreferences {
  readonly collection: Collection<PreferencesDoc>;
  private off: Map<MessagingPreference, Set<number>> | undefined;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<PreferencesDoc>('user_preferences');
  }

  readonly handlers = {
    UserSettingChanged: async (fact) => {
      if (!isPreference(fact.property) || typeof fact.value !== 'boolean') return;
      const doc = (await this.collection.get(fact.user_id)) ?? { _id: fact.user_id };
      await this.collection.put({ ...doc, [fact.property]: fact.value });
      this.off?.get(fact.property)?.[fact.value ? 'delete' : 'add'](fact.user_id);
    },
  } satisfies FactHandlers;

  /** Reads the settings as projected so far; called before the projector starts, which then keeps them current. */
  async load(): Promise<void> {
    const off = new Map(MESSAGING_PREFERENCES.map((name) => [name, new Set<number>()]));
    for (const doc of await this.collection.find({})) {
      for (const name of MESSAGING_PREFERENCES) if (doc[name] === false) off.get(name)!.add(doc._id);
    }
    this.off = off;
  }

  /** The users who turned `name` off. */
  turnedOff(name: MessagingPreference): ReadonlySet<number> {
    return this.off?.get(name) ?? new Set();
  }
}
