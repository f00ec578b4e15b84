import type { Middleware } from 'koa';
import { callerOf } from '../http/auth';
import { validationFailed } from '../http/errors';
import { IDEMPOTENCY_KEY_HEADER, KEY_PATTERN, MAX_KEY_LENGTH, REPLAYED_HEADER } from './idempotency.schemas';
import { requestHash, type IdempotencyService } from './idempotency.service';

const KEY = new RegExp(KEY_PATTERN);

/**
 * Idempotency-Key on the routes that declare it, after their auth (keys belong to the caller's
 * account): `router.post('/x', auth.scope('send'), idempotency.key(), handler)`. Without the header
 * the route runs as usual. With it, the route runs inside the key's transaction: its services must
 * read and write through the context's EntityManager (`em()`), whose transactions nest as
 * savepoints; a fork of its own would neither see nor join the work.
 */
export function createIdempotency(service: IdempotencyService) {
  return {
    service,
    key(): Middleware {
      return async (ctx, next) => {
        const raw = ctx.headers['idempotency-key'];
        if (raw === undefined) return next();
        const key = Array.isArray(raw) ? raw.join(', ') : raw;
        if (!KEY.test(key)) {
          throw validationFailed([
            {
              field: `header.${IDEMPOTENCY_KEY_HEADER}`,
              message: `${IDEMPOTENCY_KEY_HEADER} must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters`,
            },
          ]);
        }
        const { answer, replayed } = await service.run(
          {
            userId: callerOf(ctx).userId,
            key,
            requestHash: requestHash(ctx.method, ctx.path, ctx.request.body),
          },
          async () => {
            await next();
            return { status: ctx.status, body: ctx.body };
          },
        );
        if (!replayed) return;
        ctx.status = answer.status;
        if (answer.body !== null) ctx.body = answer.body;
        ctx.set(REPLAYED_HEADER, 'true');
      };
    },
  };
}

export type Idempotency = ReturnType<typeof createIdempotency>;
