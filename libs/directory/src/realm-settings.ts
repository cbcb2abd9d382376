/**
 * The organization's settings, projected from accounts' facts (`OrganizationCreated` for
 * the name, `RealmSettingsChanged` for every change). Accounts answers POST /register from
 * it; channels and messaging keep the same projection in their own read models and hand
 * `policy()` to their deciders (no service reads another's read models).
 */
import { applyRealmChanges, realmSettingsOf, type RealmSettings } from '@teamchat/contracts';
import type { Collection, Doc, FactHandlers, ReadModelStore } from '@teamchat/platform';
import { organizationPolicyOf, type OrganizationPolicy } from '@teamchat/policies';

interface RealmSettingsDoc extends Doc {
  _id: 'realm';
  settings: RealmSettings;
}

/**
 * One document, read once and kept in memory: permission checks on every request read it,
 * and this process's projector is its only writer, so the copy never goes stale.
 */
export class RealmSettingsProjection {
  private readonly collection: Collection<RealmSettingsDoc>;
  private loaded: RealmSettings | undefined;
  private derived: { settings: RealmSettings; policy: OrganizationPolicy } | undefined;

  constructor(readModels: ReadModelStore) {
    this.collection = readModels.collection<RealmSettingsDoc>('dir_realm_settings');
  }

  /** Full puts of the settings after each fact: a replay writes the same document again. */
  readonly handlers = {
    OrganizationCreated: async (fact) => {
      await this.put({ ...(await this.current()), name: fact.name });
    },
    RealmSettingsChanged: async (fact) => {
      await this.put(applyRealmChanges(await this.current(), fact.changes));
    },
  } satisfies FactHandlers;

  /** The settings as they stand (Zulip's defaults before any change). */
  async current(): Promise<RealmSettings> {
    if (!this.loaded) {
      const doc = await this.collection.get('realm');
      this.loaded ??= doc?.settings ?? realmSettingsOf('');
    }
    return this.loaded;
  }

  /** The policy the deciders take, derived once per change of the settings. */
  async policy(): Promise<OrganizationPolicy> {
    const settings = await this.current();
    if (this.derived?.settings !== settings) this.derived = { settings, policy: organizationPolicyOf(settings) };
    return this.derived.policy;
  }

  private async put(settings: RealmSettings): Promise<void> {
    await this.collection.put({ _id: 'realm', settings });
    this.loaded = settings;
  }
}
