import type { Scope } from '../../api-keys/api-key.entity';
import * as yup from '../../lib/yup';
import { int, text } from '../../lib/fields';

// SMSGate's token requests (client-go smsgateway TokenRequest and its JWTScope names) on our tokens.

/**
 * SMSGate's scope names and the one of ours that covers each (ours are coarser: a token with
 * `messages:list` can also read a message's state and the logs). `all:any` is every scope of the
 * caller; our own four names are accepted as they are.
 */
export const SMSGATE_SCOPES: Record<string, Scope | 'all'> = {
  'all:any': 'all',
  'messages:send': 'send',
  'messages:cancel': 'send',
  'messages:read': 'read',
  'messages:list': 'read',
  'inbox:list': 'read',
  'logs:read': 'read',
  'messages:export': 'webhooks',
  'inbox:refresh': 'webhooks',
  'webhooks:list': 'webhooks',
  'webhooks:write': 'webhooks',
  'webhooks:delete': 'webhooks',
  'devices:list': 'devices',
  'devices:delete': 'devices',
  'settings:read': 'devices',
  'settings:write': 'devices',
  send: 'send',
  read: 'read',
  devices: 'devices',
  webhooks: 'webhooks',
};

const known = Object.keys(SMSGATE_SCOPES);

/** POST /auth/token: `scopes` (at least one) and `ttl` in seconds (0 or absent: the default). */
export const tokenRequestBody = yup.object({
  scopes: yup
    .array(
      text(64)
        .required()
        .test('known', (value, context) => {
          if (value === undefined || known.includes(value)) return true;
          const why = value.startsWith('tokens:')
            ? 'tokens here cannot mint, refresh or revoke tokens (an API key does)'
            : `use one of ${known.join(', ')}`;
          return context.createError({
            message: `${context.path} "${value}" is not a scope this server grants: ${why}`,
          });
        }),
    )
    .min(1, '${path} must name at least one scope')
    .max(64, '${path} must have at most ${max} entries')
    .required(),
  ttl: int(0),
});

/** Our scopes for SMSGate's names: `all:any` stands for every one the caller holds. */
export function scopesOf(names: string[], held: readonly Scope[]): Scope[] {
  return [
    ...new Set(names.flatMap((name) => (SMSGATE_SCOPES[name] === 'all' ? held : [SMSGATE_SCOPES[name] as Scope]))),
  ];
}
