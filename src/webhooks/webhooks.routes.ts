import Router from '@koa/router';
import type { EventName } from '../events/event.entity';
import { callerOf, type Auth } from '../http/auth';
import { pageBody } from '../http/pagination';
import { validate } from '../http/validate';
import type { Idempotency } from '../idempotency/idempotency.middleware';
import { pathId } from '../lib/fields';
import type { DeliveryStatus } from './delivery.entity';
import { createWebhookBody, listDeliveriesQuery, updateWebhookBody } from './webhooks.schemas';
import type { WebhooksService } from './webhooks.service';
import { deliveryView, webhookView } from './webhooks.views';

/** Webhooks and their delivery log: API keys with the `webhooks` scope, or a dashboard session. */
export function webhooksRoutes({
  auth,
  webhooks,
  idempotency,
}: {
  auth: Auth;
  webhooks: WebhooksService;
  idempotency: Idempotency;
}): Router {
  const router = new Router({ prefix: '/webhooks' });
  const scope = auth.scope('webhooks');

  // Declared before /:id, which would otherwise take "deliveries" for an id.
  router.get('/deliveries', scope, async (ctx) => {
    const { query } = await validate(ctx, { query: listDeliveriesQuery });
    const page = await webhooks.listDeliveries(callerOf(ctx).userId, {
      webhookId: query.webhook_id,
      messageId: query.message_id,
      status: query.status as DeliveryStatus | undefined,
      event: query.event as EventName | undefined,
      from: query.from,
      to: query.to,
      cursor: query.cursor,
      limit: query.limit,
    });
    const redeliveries = await webhooks.redeliveriesOf(callerOf(ctx).userId, page.items);
    ctx.body = pageBody(page, (d) => deliveryView(d, redeliveries.get(d.id)));
  });

  router.get('/deliveries/:id', scope, async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    const { userId } = callerOf(ctx);
    const delivery = await webhooks.getDelivery(userId, params.id);
    const redeliveries = await webhooks.redeliveriesOf(userId, [delivery]);
    ctx.body = { delivery: deliveryView(delivery, redeliveries.get(delivery.id)) };
  });

  // Any delivery, whatever its status: a new delivery of the same event to the same webhook.
  router.post('/deliveries/:id/redeliver', scope, async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    const delivery = await webhooks.redeliver(callerOf(ctx).userId, params.id);
    ctx.status = 202;
    ctx.body = { delivery: deliveryView(delivery) };
  });

  router.get('/', scope, async (ctx) => {
    ctx.body = { data: (await webhooks.list(callerOf(ctx).userId)).map(webhookView) };
  });

  router.post('/', scope, idempotency.key(), async (ctx) => {
    const { body } = await validate(ctx, { body: createWebhookBody });
    const { webhook, secret } = await webhooks.create(callerOf(ctx).userId, {
      url: body.url,
      events: body.events as EventName[],
      name: body.name,
      deviceId: body.device_id,
    });
    ctx.status = 201;
    ctx.body = { secret, webhook: webhookView(webhook) };
  });

  router.get('/:id', scope, async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    ctx.body = { webhook: webhookView(await webhooks.get(callerOf(ctx).userId, params.id)) };
  });

  router.patch('/:id', scope, async (ctx) => {
    const { params, body } = await validate(ctx, { params: pathId(), body: updateWebhookBody });
    const webhook = await webhooks.update(callerOf(ctx).userId, params.id, {
      url: body.url,
      events: body.events as EventName[] | undefined,
      name: body.name,
      deviceId: body.device_id,
      enabled: body.enabled,
    });
    ctx.body = { webhook: webhookView(webhook) };
  });

  router.delete('/:id', scope, async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    await webhooks.remove(callerOf(ctx).userId, params.id);
    ctx.status = 204;
  });

  router.post('/:id/rotate-secret', scope, async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    ctx.body = { secret: await webhooks.rotateSecret(callerOf(ctx).userId, params.id) };
  });

  router.post('/:id/test', scope, async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    const delivery = await webhooks.test(callerOf(ctx).userId, params.id);
    ctx.status = 202;
    ctx.body = { delivery: deliveryView(delivery) };
  });

  return router;
}
