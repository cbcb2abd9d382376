/**
 * GET /server_settings: what a client learns about the server and the organization
 * before logging in. The Zulip apps decode every member (the mobile app's
 * `GetServerSettingsResult` requires each of them), so none is left out even where this
 * server has nothing to say (no external login methods, no icon).
 */
import { AUTHENTICATION_METHODS, ZULIP_FEATURE_LEVEL, ZULIP_VERSION, type AuthenticationMethod, type RealmSettings } from '@teamchat/contracts';
import { renderMarkdown } from '@teamchat/markdown';
import { isIncompatibleClient, ORGANIZATION_POLICY } from '@teamchat/policies';

/**
 * The organization's icon: none can be uploaded yet, and an empty URL is what register's
 * `realm_icon_url` says too (the apps then show their placeholder).
 */
export const REALM_ICON_URL = '';

/** Zulip's per-method flags: only the methods this server has are on (password and email always). */
export function authenticationMethods(enabled: { dev: boolean; jwt: boolean }): Record<AuthenticationMethod, boolean> {
  const methods = Object.fromEntries(AUTHENTICATION_METHODS.map((name) => [name, false])) as Record<AuthenticationMethod, boolean>;
  return { ...methods, password: true, email: true, dev: enabled.dev, jwt: enabled.jwt };
}

export interface ServerSettingsInput {
  realmUri: string;
  /** The organization's settings; `fallbackName` where a data directory older than them has the name only in its record. */
  settings: RealmSettings;
  fallbackName: string;
  dev: boolean;
  jwt: boolean;
  userAgent: string | undefined;
}

export function serverSettings(input: ServerSettingsInput) {
  const { settings } = input;
  return {
    authentication_methods: authenticationMethods(input),
    external_authentication_methods: [],
    zulip_feature_level: ZULIP_FEATURE_LEVEL,
    zulip_version: ZULIP_VERSION,
    zulip_merge_base: ZULIP_VERSION,
    push_notifications_enabled: false,
    is_incompatible: isIncompatibleClient(input.userAgent),
    realm_uri: input.realmUri,
    realm_url: input.realmUri,
    realm_name: settings.name || input.fallbackName,
    realm_icon: REALM_ICON_URL,
    // Rendered here, where register gives the source (Zulip's two forms).
    realm_description: settings.description === '' ? '' : renderMarkdown(settings.description),
    // Whether spectators may read the organization's web-public channels.
    realm_web_public_access_enabled: ORGANIZATION_POLICY.webPublicChannelsEnabled && settings.enable_spectator_access,
    require_email_format_usernames: true,
    email_auth_enabled: true,
  };
}
