import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Context, Middleware } from 'koa';
import type { Logger } from '../../lib/logger';
import type { Services } from '../../services';
import { eventStream } from '../../http/sse';
import { callerOf } from '../../http/auth';
import { ApiError, badRequest, forbidden, unauthenticated } from '../../http/errors';
import { validate } from '../../http/validate';
import { messageView } from '../../messages/messages.views';
import {
  patchMessagesBody,
  pendingQuery,
  registerBody,
  updateBody,
  usableSims,
  webhookEnvelope,
  type SimCard,
} from './mobile.schemas';
import { mobileRepository } from './mobile.repository';
import { basicAsKey } from './basic-auth';
import { deviceView, pendingMessageView, settingsView, webhookView } from './mobile.views';

/** Where the compat feature lives; the app's "API URL" is `<PUBLIC_URL>${MOBILE_API}`. */
export const SMSGATE_PREFIX = '/compat/smsgate';
export const MOBILE_API = `${SMSGATE_PREFIX}/api/mobile/v1`;

export interface MobileRoutesDeps {
  services: Services;
  config: { publicUrl: string };
}

/** The app's webhook calls carry an MMS's pictures inline (mms:downloaded, base64 in the JSON). */
export const WEBHOOK_BODY_LIMIT = '10mb';
const WEBHOOK_CALL = new RegExp(
  `^${SMSGATE_PREFIX}/webhooks/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$`,
  'i',
);

/**
 * Their handlers answer a body that fails validation with 400 (handlers/base BodyParserValidator);
 * the error body stays ours. Applied to everything under the prefix (smsgateRequests), the input
 * guard's refusals (a NUL, a lone surrogate, deep nesting) included.
 */
const theirStatuses: Middleware = async (ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (error instanceof ApiError && error.status === 422) {
      throw new ApiError(400, error.code, error.message, error.errors);
    }
    throw error;
  }
};

/**
 * Before the body parser and the routers: an API URL typed with a trailing slash makes the app call
 * `…/v1//device` (GatewayApi.kt builds "$baseUrl/device"), so runs of slashes under the compat prefix
 * are one; and a paired phone's signed webhook call may be up to WEBHOOK_BODY_LIMIT, the
 * signature still checked over the raw body by the route. Anything else keeps the app-wide limit.
 */
export function smsgateRequests({
  orm,
  parserOptions,
}: {
  orm: MikroORM;
  parserOptions: Omit<NonNullable<Parameters<typeof bodyParser>[0]>, 'jsonLimit'>;
}): Middleware {
  const large = bodyParser({ ...parserOptions, jsonLimit: WEBHOOK_BODY_LIMIT });
  const route: Middleware = async (ctx, next) => {
    if (ctx.path.includes('//')) ctx.path = ctx.path.replace(/\/{2,}/g, '/');
    const call = ctx.method === 'POST' ? WEBHOOK_CALL.exec(ctx.path) : null;
    const signed = /^[0-9a-f]{64}$/i.test(ctx.get('X-Signature')) && /^\d{1,12}$/.test(ctx.get('X-Timestamp'));
    if (call && signed && (await mobileRepository.keyOfPaired(orm.em.fork(), call[1]))) return large(ctx, next);
    return next();
  };
  return async (ctx, next) => {
    if (!ctx.path.startsWith(SMSGATE_PREFIX)) return next();
    // Around the input guard and the routers: every validation error under the prefix is 400.
    return theirStatuses(ctx, () => route(ctx, next));
  };
}

/** The SIMs a phone reported that a send can select; the others are logged and left out. */
function simsOf(ctx: Context, cards: SimCard[] | null | undefined): SimCard[] {
  const { usable, dropped } = usableSims(cards);
  if (dropped.length > 0) {
    const log = (ctx.state as { log?: Logger }).log;
    log?.warn(
      { dropped: dropped.map((card) => ({ slotIndex: card.slotIndex, simNumber: card.simNumber })) },
      'smsgate: SIMs without a usable slot left out of the phone’s SIMs',
    );
  }
  return usable;
}

function phoneOf(ctx: Context) {
  const caller = callerOf(ctx);
  if (caller.kind !== 'device') throw unauthenticated();
  return { userId: caller.userId, deviceId: caller.deviceId };
}


/**
 * The SMSGate Android app's mobile API (android-sms-gateway/server, internal/sms-gateway/handlers/
 * mobile.go and the controllers it mounts), so that app can pair with us as its private server; plus
 * the endpoint its webhooks call back. Everything runs through our services.
 */
export function mobileRoutes({ services, config }: MobileRoutesDeps): Router {
  const { auth, devices, pairing, mobileStream, mobileWebhooks, smsgateMobile: smsgate } = services;
  const hookUrl = (deviceId: string) => `${config.publicUrl}${SMSGATE_PREFIX}/webhooks/${deviceId}`;

  const router = new Router({ prefix: SMSGATE_PREFIX });

  // Registration. The app sends its private token as `Bearer`, the code of "sign in by code" as
  // `Code`, and a login and password as `Basic` (the app's GatewayApi.kt deviceRegister).
  router.post('/api/mobile/v1/device', async (ctx) => {
    const authorization = ctx.get('Authorization');
    const scheme = /^(\S+)\s+(\S+)$/.exec(authorization);
    if (scheme && /^basic$/i.test(scheme[1])) {
      throw unauthenticated(
        'This server has no SMSGate logins: put a pairing code from the dashboard in Settings → Cloud Server → Private Token, then start the app again.',
      );
    }
    if (!scheme || !/^(bearer|code)$/i.test(scheme[1])) {
      throw unauthenticated(
        'A pairing code is needed: create one (POST /v1/devices/pairing-codes) and put it in Settings → Cloud Server → Private Token.',
      );
    }
    const { body } = await validate(ctx, { body: registerBody });
    try {
      const { device, token } = await smsgate.register(
        { code: scheme[2], name: body.name, simCards: simsOf(ctx, body.simCards), userAgent: ctx.get('User-Agent') },
        ctx.ip,
      );
      ctx.status = 201;
      // MobileRegisterResponse; no password: the account already exists and has its own sign-in.
      ctx.body = { id: device.id, token, login: device.userId };
    } catch (error) {
      // A refused private token is 401 in their server (keyauth); our message says what to do. The app
      // shows it only from its By Code tab: refused at start (Sign Up), the app closes (docs/phones.md).
      if (error instanceof ApiError && error.code === 'invalid_code') {
        throw new ApiError(
          401,
          'invalid_code',
          'The pairing code is wrong, used or expired: create a new code on the dashboard and type it in the By Code tab ' +
            'of the dialog that starting the app opens, or put it in Settings → Cloud Server → Private Token and start the app again.',
        );
      }
      throw error;
    }
  });

  // GatewayApi.kt getUserCode: a one-time code another phone signs in with ("sign in by code"). Their
  // server takes the user's login and password; here, as on the integrator API, the password is an
  // API key (devices scope) and the code is a pairing code of its account.
  router.get(
    '/api/mobile/v1/user/code',
    async (ctx, next) => {
      basicAsKey(ctx);
      await next();
    },
    auth.scope('devices'),
    async (ctx) => {
      const { code, plain } = await pairing.createCode(callerOf(ctx).userId);
      ctx.body = { code: plain, validUntil: code.expiresAt.toISOString() };
    },
  );

  // Their GET /device answers without a device (only the caller's address) when the token is
  // missing or unknown: the app uses it to show its public IP.
  router.get('/api/mobile/v1/device', async (ctx) => {
    const token = /^Bearer\s+(\S+)$/i.exec(ctx.get('Authorization'))?.[1];
    const phone = token ? await devices.authenticate(token) : null;
    const device = phone ? await devices.get(phone.userId, phone.deviceId) : null;
    ctx.body = { ...(device ? { device: deviceView(device) } : {}), externalIp: ctx.ip };
  });

  router.patch('/api/mobile/v1/device', auth.device(), async (ctx) => {
    const { body } = await validate(ctx, { body: updateBody });
    const simCards = body.simCards ? simsOf(ctx, body.simCards) : body.simCards;
    await smsgate.update(phoneOf(ctx), { id: body.id, simCards, userAgent: ctx.get('User-Agent') });
    ctx.status = 204;
  });

  // There is no password to change: integrators use API keys, people sign in on the dashboard.
  router.patch('/api/mobile/v1/user/password', auth.device(), () => {
    throw forbidden(
      'not_supported',
      'This server has no SMSGate passwords: integrators use API keys from the dashboard, where people sign in.',
    );
  });

  // Their server mounts the messages controller under both /message and /messages.
  for (const path of ['/api/mobile/v1/message', '/api/mobile/v1/messages']) {
    router.get(path, auth.device(), async (ctx) => {
      const { query } = await validate(ctx, { query: pendingQuery });
      const phone = phoneOf(ctx);
      await smsgate.seen(phone, { userAgent: ctx.get('User-Agent') });
      const messages = await smsgate.pending(phone, query.order as 'lifo' | 'fifo');
      ctx.body = messages.map(pendingMessageView);
    });

    router.patch(path, auth.device(), async (ctx) => {
      const { body } = await validate(ctx, { body: patchMessagesBody });
      await smsgate.patchStates(phoneOf(ctx), body);
      ctx.status = 204;
    });
  }

  router.get('/api/mobile/v1/webhooks', auth.device(), async (ctx) => {
    const phone = phoneOf(ctx);
    const device = await devices.get(phone.userId, phone.deviceId);
    const url = hookUrl(device.id);
    const events = [
      ...(device.receiveEnabled ? ['sms:received', 'sms:data-received', 'mms:received', 'mms:downloaded'] : []),
      'app:started',
      'system:ping',
    ];
    ctx.body = events.map((event) => webhookView(device, event, url));
  });

  router.get('/api/mobile/v1/settings', auth.device(), async (ctx) => {
    const phone = phoneOf(ctx);
    const device = await devices.get(phone.userId, phone.deviceId);
    ctx.body = settingsView(device, await smsgate.signingKey(device.id));
  });

  router.get('/api/mobile/v1/events', auth.device(), async (ctx) => {
    await mobileStream.open(phoneOf(ctx), eventStream(ctx), ctx.get('User-Agent'));
  });

  // The webhooks the app is given call back here, signed with the key from its settings.
  router.post('/webhooks/:deviceId', async (ctx) => {
    const deviceId = ctx.params.deviceId;
    if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(deviceId)) throw unauthenticated();
    const raw = (ctx.request as { rawBody?: string }).rawBody;
    if (typeof raw !== 'string') throw badRequest('The webhook body must be JSON.');
    const phone = await smsgate.verify(deviceId, raw, ctx.get('X-Signature'), ctx.get('X-Timestamp'));
    const { body: envelope } = await validate(ctx, { body: webhookEnvelope });
    if (envelope.deviceId !== deviceId) throw forbidden('forbidden', 'The event is for another phone.');
    const kept = await mobileWebhooks.handle(phone, { ...envelope, userAgent: ctx.get('User-Agent') });
    if (!kept) {
      ctx.status = 204;
      return;
    }
    ctx.status = kept.inserted ? 201 : 200;
    ctx.body = { inserted: kept.inserted, message: messageView(kept.message) };
  });

  return router;
}
