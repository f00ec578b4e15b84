import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { unauthenticated } from '../http/errors';
import { pageBody } from '../http/pagination';
import { validate } from '../http/validate';
import type { Clock } from '../lib/clock';
import { pathId } from '../lib/fields';
import type { Context } from 'koa';
import { messageView, outboxRowView } from './messages.views';
import type { OutcomesService } from './outcomes.service';
import type { PhoneMessagesService } from './phone-messages.service';
import { deviceMessagesQuery, inboundBody, outboxQuery, statusBody } from './phone-messages.schemas';

export interface PhoneMessagesRoutesDeps {
  auth: Auth;
  phoneMessages: PhoneMessagesService;
  outcomes: OutcomesService;
  clock: Clock;
}

function deviceOf(ctx: Context): string {
  const caller = callerOf(ctx);
  if (caller.kind !== 'device') throw unauthenticated();
  return caller.deviceId;
}

/** The phone's messaging endpoints (device token): outbox, outcome reports, inbound texts, its messages. */
export function phoneMessagesRoutes({ auth, phoneMessages, outcomes, clock }: PhoneMessagesRoutesDeps): Router {
  const router = new Router({ prefix: '/device' });

  router.get('/outbox', auth.device(), async (ctx) => {
    const { query } = await validate(ctx, { query: outboxQuery });
    ctx.body = { data: (await phoneMessages.outbox(deviceOf(ctx), query.limit)).map(outboxRowView) };
  });

  router.post('/messages/:id/status', auth.device(), async (ctx) => {
    const { params, body } = await validate(ctx, { params: pathId(), body: statusBody });
    const { message, effects } = await outcomes.report(deviceOf(ctx), params.id, {
      status: body.status,
      at: body.at ?? clock.now(),
      errorCode: body.error_code,
      errorMessage: body.error_message,
    });
    await outcomes.afterCommit(effects);
    ctx.body = { message: messageView(message) };
  });

  router.post('/inbound', auth.device(), async (ctx) => {
    const { body } = await validate(ctx, { body: inboundBody });
    const { inserted, message, effects } = await phoneMessages.inbound(deviceOf(ctx), {
      body: body.body,
      receivedAt: body.received_at,
      sender: body.sender,
      fingerprint: body.fingerprint,
      simSubscriptionId: body.sim_subscription_id,
    });
    await outcomes.afterCommit(effects);
    ctx.status = inserted ? 201 : 200;
    ctx.body = { inserted, message: messageView(message) };
  });

  router.get('/messages', auth.device(), async (ctx) => {
    const { query } = await validate(ctx, { query: deviceMessagesQuery });
    ctx.body = pageBody(await phoneMessages.list(deviceOf(ctx), query), messageView);
  });

  return router;
}
