/**
 * Video calls (spec endpoint 21): a meeting URL from the organization's provider. A
 * provider is a small interface so that others (BigBlueButton with a signed join URL, or
 * an OAuth one such as Zoom, which needs a per-user token: `has_meeting_token`) can be
 * added beside the Jitsi-style one, which needs no third-party account.
 */
import { randomBytes } from 'node:crypto';
import { badRequest } from '@teamchat/contracts';
import type { ToolSettings } from '@teamchat/platform';

export interface VideoCallProvider {
  /** Whether a user must first link an account with the provider (OAuth). */
  readonly needsUserToken: boolean;
  createMeeting(): Promise<{ url: string }>;
}

/**
 * A Jitsi Meet server: any room name opens a room, so the name must be unguessable to keep
 * the call among those it is shared with (128 random bits, as Zulip's own Jitsi rooms).
 */
export class JitsiProvider implements VideoCallProvider {
  readonly needsUserToken = false;
  private readonly base: string;

  constructor(serverUrl: string) {
    this.base = serverUrl.replace(/\/+$/, '');
  }

  createMeeting(): Promise<{ url: string }> {
    return Promise.resolve({ url: `${this.base}/${randomBytes(16).toString('hex')}` });
  }
}

/** The configured provider, or none. */
export function videoCallProviderOf(settings: Pick<ToolSettings, 'jitsiServerUrl'>): VideoCallProvider | undefined {
  return settings.jitsiServerUrl ? new JitsiProvider(settings.jitsiServerUrl) : undefined;
}

export async function createVideoCall(provider: VideoCallProvider | undefined): Promise<{ url: string }> {
  if (!provider) throw badRequest('No video call provider is configured on this server.');
  return provider.createMeeting();
}
