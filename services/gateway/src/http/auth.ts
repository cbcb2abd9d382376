/** HTTP Basic credentials, as every authenticated endpoint receives them. */
import { ApiError } from '@teamchat/contracts';

export const WWW_AUTHENTICATE = 'Basic realm="zulip"';

export function parseBasicAuth(header: string | undefined): { email: string; apiKey: string } {
  if (!header) throw new ApiError('UNAUTHORIZED', 'Missing authorization header', 401);
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) throw new ApiError('UNAUTHORIZED', 'Invalid authorization header for basic auth', 401);
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) throw new ApiError('UNAUTHORIZED', 'Invalid authorization header for basic auth', 401);
  return { email: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
}

/** The client name Zulip derives from the User-Agent: "ZulipMobile/27.1 (...)" → "ZulipMobile". */
export function clientName(userAgent: string | undefined): string {
  const product = userAgent?.trim().split(/[/\s]/, 1)[0];
  return product ? product.slice(0, 30) : 'API';
}
