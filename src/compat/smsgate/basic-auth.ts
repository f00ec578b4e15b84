import type { Context } from 'koa';
import { unauthenticated } from '../../http/errors';

/**
 * Their clients send `Authorization: Basic base64(login:password)`: here the password is one of
 * the account's API keys and the login is not read (a key names its account). A Bearer token is an
 * API key too. Either becomes the key our one auth middleware checks, scopes as on /v1.
 */
export function basicAsKey(ctx: Context): void {
  const match = /^Basic\s+(\S+)$/i.exec(ctx.get('Authorization'));
  if (!match) return;
  const decoded = strictBase64(match[1]);
  const colon = decoded?.indexOf(':') ?? -1;
  if (decoded === undefined || colon < 0 || colon === decoded.length - 1) {
    throw unauthenticated('Basic credentials need an API key as the password.');
  }
  const key = decoded.slice(colon + 1);
  // Two keys name no one caller: refuse rather than pick one (as /v1 does for X-Api-Key and Bearer).
  const header = ctx.get('X-Api-Key');
  if (header && header !== key)
    throw unauthenticated('Two different API keys were sent: send one, in X-Api-Key or as the Basic password.');
  delete ctx.request.headers.authorization;
  ctx.request.headers['x-api-key'] = key;
}

/**
 * Base64 as RFC 4648 writes it (RFC 7617's Basic credentials): the standard alphabet, padded to a
 * multiple of four, no extra `=`, no stray bits. Node's decoder skips what it does not understand;
 * here anything but the one canonical form is refused (undefined).
 */
function strictBase64(text: string): string | undefined {
  if (text.length === 0 || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes.toString('utf8') : undefined;
}
