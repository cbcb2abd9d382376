import { describe, expect, it } from '@jest/globals';
import { isIncompatibleClient, parseUserAgent } from '../src/compatibility';

describe('client compatibility (GET /server_settings is_incompatible)', () => {
  it('splits a User-Agent into product name and version as Zulip does', () => {
    expect(parseUserAgent('ZulipMobile/27.1 (Android 14)')).toEqual({ name: 'ZulipMobile', version: '27.1' });
    expect(parseUserAgent('ZulipFlutter/30.0.263 (Android 15)')).toEqual({ name: 'ZulipFlutter', version: '30.0.263' });
    expect(parseUserAgent('ZulipTerminal/0.7.0 Linux')).toEqual({ name: 'ZulipTerminal', version: '0.7.0' });
    expect(parseUserAgent('Mozilla/5.0 (X11; Linux x86_64)')).toEqual({ name: 'Mozilla', version: '5.0' });
    expect(parseUserAgent('Missing User-Agent')).toEqual({ name: 'Missing User-Agent' });
  });

  it('calls incompatible only the ZulipInvalid test client, whatever the version', () => {
    expect(isIncompatibleClient('ZulipInvalid/1.0')).toBe(true);
    expect(isIncompatibleClient('ZulipInvalid')).toBe(true);
    for (const compatible of ['ZulipFlutter/30.0.263 (Android 15)', 'ZulipMobile/16.2.95 (Android 9)', 'ZulipTerminal/0.7.0', 'ZulipElectron/1.0.0', 'curl/8.5.0', '', undefined]) {
      expect(isIncompatibleClient(compatible)).toBe(false);
    }
  });
});
