import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Scope } from '../../api-keys/api-key.entity';
import { callerOf } from '../../http/auth';
import { apiErrorOf, logFailure } from '../../http/error-handler';
import { ApiError, badRequest, methodNotAllowed, notFound, unauthenticated } from '../../http/errors';
import { attachmentHeaders } from '../../mms/mms.views';
import { readiness, type HealthDeps } from '../../http/health.routes';
import { validate } from '../../http/validate';
import { UUID } from '../../lib/fields';
import type { Services } from '../../services';
import { SMSGATE_PREFIX } from './mobile.routes';
import { basicAsKey } from './basic-auth';
import { deviceView } from './mobile.views';
import { TOKEN_TTL } from '../../tokens/tokens.service';
import { tokenOwnerOf } from '../../tokens/tokens.routes';
import { scopesOf, tokenRequestBody } from './tokens.schemas';
import { tokenResponseView } from './tokens.views';
import {
  exportBody,
  inboxQuery,
  listQuery,
  logsQuery,
  sendMessageBody,
  sendQuery,
  settingsBody,
  webhookBody,
} from './integrator.schemas';

/** Where SMSGate's clients point their base URL (their default is `https://api.sms-gate.app/3rdparty/v1`). */
export const INTEGRATOR_API = `${SMSGATE_PREFIX}/api/3rdparty/v1`;

/**
 * Their errors are `{message}` (client-go ErrorResponse; the server's fiber handler writes
 * err.Error() there) and a body that fails validation is 400, not 422; our code and field errors
 * go along in `data`. Every error under the prefix is answered here: mounted on the app before the
 * body parser and the input guard, so what they refuse is answered in this shape too.
 */
export const integratorErrors: Middleware = async (ctx, next) => {
  if (!isIntegratorPath(ctx.path)) return next();
  try {
    await next();
    if (ctx.body === undefined || ctx.body === null) {
      if (ctx.status === 404) {
        throw new ApiError(
          404,
          'not_found',
          `${ctx.method} ${ctx.path} is not an SMSGate integrator API call this server serves.`,
        );
      }
      if (ctx.status === 405 || ctx.status === 501) throw methodNotAllowed(ctx.response.get('Allow'));
    }
  } catch (error) {
    let apiError = apiErrorOf(error);
    // Their server answers a message id used before with 409 (messages ErrMessageAlreadyExists).
    if (apiError.code === 'idempotency_key_reused') {
      apiError = new ApiError(409, apiError.code, 'A message with this id already exists, with another content.');
    }
    logFailure(ctx, error, apiError);
    ctx.status = integratorStatus(apiError);
    ctx.body = integratorBody(apiError);
    for (const [name, value] of Object.entries(apiError.headers ?? {})) ctx.set(name, value);
  }
};

/** Whether a request path is under the integrator API (what answers in its error shape). */
export const isIntegratorPath = (path: string): boolean =>
  path === INTEGRATOR_API || path.startsWith(`${INTEGRATOR_API}/`);

/** The status of an error here: a body that fails validation is 400, as on their server. */
export const integratorStatus = (apiError: ApiError): number => (apiError.status === 422 ? 400 : apiError.status);

/** An error in their shape: `{message, data: {code, errors?}}`. */
export function integratorBody(apiError: ApiError): { message: string; data: { code: string; errors?: unknown } } {
  return {
    message: apiError.message,
    data: { code: apiError.code, ...(apiError.errors ? { errors: apiError.errors } : {}) },
  };
}

const notServed = (message: string) => () => {
  throw new ApiError(404, 'not_supported', message);
};

/**
 * SMSGate's integrator API (its server's internal/sms-gateway/handlers/3rdparty.go and the
 * controllers it mounts) on our services, so its published clients work by changing the base URL.
 */
export function integratorRoutes({ services, orm, temporal }: { services: Services } & HealthDeps): Router {
  const { auth, idempotency, smsgateIntegrator: integrator, smsgateWebhooks } = services;
  const router = new Router({ prefix: INTEGRATOR_API });
  const as = (scope: Scope): Middleware[] => [
    async (ctx, next) => {
      basicAsKey(ctx);
      await next();
    },
    auth.scope(scope),
  ];
  const userOf = (ctx: Context) => callerOf(ctx).userId;

  // Their health is outside authentication (handlers/health.go; client-go HealthResponse).
  const health = async (ctx: Context) => {
    const { ready, checks } = await readiness({ orm, temporal });
    ctx.status = ready ? 200 : 503;
    ctx.body = {
      status: ready ? 'pass' : 'fail',
      checks: Object.fromEntries(
        Object.entries(checks).map(([name, state]) => [
          name,
          {
            status: state === 'ok' ? 'pass' : 'fail',
            description: `${name} ${state}`,
            observedValue: state === 'ok' ? 1 : 0,
          },
        ]),
      ),
    };
  };
  // Their probes (live, ready, startup) all answer readiness here: one process serves them.
  for (const path of ['/health', '/health/live', '/health/ready', '/health/startup']) router.get(path, health);

  // 202 with an empty body: Koa would fill a bodiless answer with its status text ("Accepted"), which
  // the Python client's refresh_inbox/export_inbox then fails to parse as JSON.
  const exportInbox = async (ctx: Context) => {
    const { body } = await validate(ctx, { body: exportBody });
    await integrator.exportInbox(userOf(ctx), body);
    ctx.body = '';
    ctx.status = 202;
  };

  // The server mounts its messages controller under /message (older) and /messages.
  for (const base of ['/message', '/messages']) {
    router.post(
      base,
      ...as('send'),
      async (ctx, next) => {
        // A client-chosen id is the send's idempotency key: the same id and body get the first answer.
        const id = (ctx.request.body as { id?: unknown } | undefined)?.id;
        if (typeof id === 'string' && id.length > 0 && id.length <= 36)
          ctx.request.headers['idempotency-key'] = `smsgate:${id}`;
        await next();
      },
      idempotency.key(),
      async (ctx) => {
        const { body } = await validate(ctx, { body: sendMessageBody, query: sendQuery });
        const state = await integrator.send(userOf(ctx), body);
        ctx.status = 202;
        ctx.set('Location', `${INTEGRATOR_API}/messages/${encodeURIComponent(state.id)}`);
        ctx.body = state;
      },
    );
    router.get(base, ...as('read'), async (ctx) => {
      const { query } = await validate(ctx, { query: listQuery });
      const { items, total } = await integrator.list(userOf(ctx), query);
      ctx.set('X-Total-Count', String(total));
      ctx.body = items;
    });
    router.get(`${base}/:id`, ...as('read'), async (ctx) => {
      ctx.body = await integrator.state(userOf(ctx), ctx.params.id);
    });
    router.delete(`${base}/:id`, ...as('send'), async (ctx) => {
      ctx.body = await integrator.cancel(userOf(ctx), ctx.params.id);
    });
    router.post(`${base}/inbox/export`, ...as('webhooks'), exportInbox);
  }

  for (const path of ['/inbox/export', '/inbox/refresh']) router.post(path, ...as('webhooks'), exportInbox);
  router.get('/inbox', ...as('read'), async (ctx) => {
    const { query } = await validate(ctx, { query: inboxQuery });
    const { items, total } = await services.smsgateInbox.list(userOf(ctx), query);
    ctx.set('X-Total-Count', String(total));
    ctx.body = items;
  });
  // The Python client's download_attachment; served as /v1 serves one (src/mms/mms.views.ts).
  router.get('/inbox/:id/attachments/:partId', ...as('read'), async (ctx) => {
    if (!/^\d{1,15}$/.test(ctx.params.partId)) throw badRequest('partId must be a number');
    const row = await services.smsgateInbox.attachment(userOf(ctx), ctx.params.id, Number(ctx.params.partId));
    ctx.set(attachmentHeaders(row));
    ctx.body = row.data;
  });

  for (const base of ['/device', '/devices']) {
    router.get(base, ...as('devices'), async (ctx) => {
      ctx.body = (await integrator.devices(userOf(ctx))).map(deviceView);
    });
    router.delete(`${base}/:id`, ...as('devices'), async (ctx) => {
      await integrator.removeDevice(userOf(ctx), ctx.params.id);
      ctx.status = 204;
    });
  }

  router.get('/settings', ...as('devices'), async (ctx) => {
    ctx.body = await integrator.settings(userOf(ctx));
  });
  for (const method of ['patch', 'put'] as const) {
    router[method]('/settings', ...as('devices'), async (ctx) => {
      const { body } = await validate(ctx, { body: settingsBody });
      ctx.body = await integrator.changeSettings(userOf(ctx), body as Record<string, unknown>);
    });
  }

  router.get('/webhooks', ...as('webhooks'), async (ctx) => {
    ctx.body = await smsgateWebhooks.list(userOf(ctx));
  });
  router.post('/webhooks', ...as('webhooks'), async (ctx) => {
    const { body } = await validate(ctx, { body: webhookBody });
    ctx.status = 201;
    ctx.body = await smsgateWebhooks.register(userOf(ctx), body);
  });
  router.delete('/webhooks/:id', ...as('webhooks'), async (ctx) => {
    await smsgateWebhooks.remove(userOf(ctx), ctx.params.id);
    ctx.status = 204;
  });

  router.get('/logs', ...as('read'), async (ctx) => {
    const { query } = await validate(ctx, { query: logsQuery });
    ctx.body = await integrator.logs(userOf(ctx), query);
  });

  // Their token endpoints (handlers/thirdparty/auth.go) on our short-lived tokens (src/tokens/).
  // Any of the account's keys (or a session) mints, within its own scopes; a token cannot.
  const asOwner: Middleware[] = [
    async (ctx, next) => {
      basicAsKey(ctx);
      await next();
    },
    auth.sessionOrKey(),
  ];
  router.post('/auth/token', ...asOwner, async (ctx) => {
    const { body } = await validate(ctx, { body: tokenRequestBody });
    const owner = tokenOwnerOf(ctx);
    // Their server caps the lifetime rather than refusing it: so does this one.
    const ttl = Math.min(Math.max(body.ttl || TOKEN_TTL.defaultSeconds, TOKEN_TTL.minSeconds), TOKEN_TTL.maxSeconds);
    const minted = await services.tokens.mint(owner, {
      scopes: scopesOf(body.scopes, owner.scopes),
      ttlSeconds: ttl,
      refresh: true,
    });
    ctx.status = 201;
    ctx.body = tokenResponseView(minted);
  });
  // Their token pairs: the refresh secret, sent as the Bearer token, gets the next pair once.
  router.post('/auth/token/refresh', async (ctx) => {
    const presented = /^Bearer\s+(\S+)$/i.exec(ctx.get('Authorization'))?.[1];
    if (!presented) throw unauthenticated('Send the refresh token as the Bearer token.');
    ctx.status = 201;
    ctx.body = tokenResponseView(await services.tokens.refresh(presented));
  });
  router.delete('/auth/token/:jti', ...asOwner, async (ctx) => {
    const jti = ctx.params.jti;
    if (!UUID.test(jti)) throw notFound('token');
    await services.tokens.revoke(tokenOwnerOf(ctx), jti);
    ctx.status = 204;
  });
  router.all('/*rest', notServed('This SMSGate integrator API call is not served by this server.'));
  return router;
}
