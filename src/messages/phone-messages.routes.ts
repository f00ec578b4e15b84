import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { notFound, unauthenticated, type ApiError } from '../http/errors';
import { pageBody } from '../http/pagination';
import { validate } from '../http/validate';
import type { Clock } from '../lib/clock';
import { pathId } from '../lib/fields';
import type { Context } from 'koa';
import { messageView, outboxRowView } from './messages.views';
import type { OutcomesService, Report } from './outcomes.service';
import type { InferType } from 'yup';
import type { PhoneMessagesService } from './phone-messages.service';
import { deviceMessagesQuery, inboundBody, outboxQuery, reportsBody, statusBody } from './phone-messages.schemas';
import { plainReports } from './plain-report-reader';

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

  const reportOf = (id: string, body: InferType<typeof statusBody>): Report => ({
    id,
    status: body.status,
    at: body.at ?? clock.now(),
    errorCode: body.error_code,
    errorMessage: body.error_message,
  });

  router.post('/messages/:id/status', auth.device(), async (ctx) => {
    const { params, body } = await validate(ctx, { params: pathId(), body: statusBody });
    const [result] = await outcomes.report(deviceOf(ctx), [reportOf(params.id, body)]);
    // Another phone's message, or none: the same answer.
    if (!('message' in result)) throw notFound('message');
    ctx.body = { message: messageView(result.message) };
  });

  // Many reports applied as one set; each item answers as the single report would.
  router.post('/messages/status', auth.device(), async (ctx) => {
    const body = plainReports(ctx.request.body) ?? (await validate(ctx, { body: reportsBody })).body;
    const results = await outcomes.report(
      deviceOf(ctx),
      body.reports.map((item) => reportOf(item.id, item)),
    );
    // The error's body once, and only when a report names no message of the phone's.
    let missing: ReturnType<ApiError['toBody']> | undefined;
    ctx.body = {
      data: results.map((result) =>
        'message' in result
          ? { id: result.id, message: messageView(result.message) }
          : { id: result.id, error: (missing ??= notFound('message').toBody()) },
      ),
    };
  });

  router.post('/inbound', auth.device(), async (ctx) => {
    const { body } = await validate(ctx, { body: inboundBody });
    const { inserted, message } = await phoneMessages.inbound(deviceOf(ctx), {
      body: body.body,
      receivedAt: body.received_at,
      sender: body.sender,
      fingerprint: body.fingerprint,
      simSubscriptionId: body.sim_subscription_id,
    });
    ctx.status = inserted ? 201 : 200;
    ctx.body = { inserted, message: messageView(message) };
  });

  router.get('/messages', auth.device(), async (ctx) => {
    const { query } = await validate(ctx, { query: deviceMessagesQuery });
    ctx.body = pageBody(await phoneMessages.list(deviceOf(ctx), query), messageView);
  });

  return router;
}
