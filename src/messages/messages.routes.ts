import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { pageBody } from '../http/pagination';
import { validate } from '../http/validate';
import type { Idempotency } from '../idempotency/idempotency.middleware';
import { pathId } from '../lib/fields';
import { countRefusals } from '../metrics/http-metrics';
import type { Metrics } from '../metrics/metrics';
import type { MmsService } from '../mms/mms.service';
import type { Message } from './message.entity';
import type { MessagesService } from './messages.service';
import { dailyStatsQuery, estimateQuery, listBatchesQuery, listMessagesQuery } from './messages.schemas';
import { sendBodyFor } from './plain-send-body';
import { batchView, dailyStatsView, estimateView, messageView } from './messages.views';

export function messagesRoutes({
  auth,
  messages,
  idempotency,
  metrics,
  mms,
}: {
  auth: Auth;
  messages: MessagesService;
  idempotency: Idempotency;
  metrics: Metrics;
  mms: MmsService;
}): Router {
  const router = new Router();
  // A received MMS's resource carries its subject and attachments (src/mms/).
  const viewsOf = async (userId: string, rows: Message[]) => {
    const inbound = rows.filter((row) => row.direction === 'inbound').map((row) => row.id);
    const found = await mms.viewsOf(userId, inbound);
    return (row: Message) => ({ ...messageView(row), ...found.get(row.id) });
  };

  // Refusals are counted by the code the client gets, credentials and scope included.
  router.post('/messages', countRefusals(metrics.sends.refused), auth.scope('send'), idempotency.key(), async (ctx) => {
    messages.admitSize((ctx.request.body as { to?: unknown } | undefined)?.to);
    const { body } = await validate(ctx, { body: sendBodyFor(ctx.request.body) });
    const { batch, messageIds } = await messages.send(callerOf(ctx).userId, body);
    ctx.status = 202;
    ctx.body = { batch: batchView(batch), message_ids: messageIds };
  });

  // How long a send would take on a phone, before it is made (the dashboard's send form and phone cards).
  router.get('/devices/:id/estimate', auth.scope('read'), async (ctx) => {
    const { params, query } = await validate(ctx, { params: pathId(), query: estimateQuery });
    ctx.body = { estimate: estimateView(await messages.estimate(callerOf(ctx).userId, params.id, query)) };
  });

  router.get('/messages', auth.scope('read'), async (ctx) => {
    const { query } = await validate(ctx, { query: listMessagesQuery });
    const userId = callerOf(ctx).userId;
    const page = await messages.list(userId, query);
    ctx.body = pageBody(page, await viewsOf(userId, page.items));
  });

  router.get('/messages/:id', auth.scope('read'), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    const userId = callerOf(ctx).userId;
    const message = await messages.getMessage(userId, params.id);
    ctx.body = { message: (await viewsOf(userId, [message]))(message) };
  });

  router.post('/messages/:id/cancel', auth.scope('send'), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    ctx.body = { message: messageView(await messages.cancelMessage(callerOf(ctx).userId, params.id)) };
  });

  router.get('/batches', auth.scope('read'), async (ctx) => {
    const { query } = await validate(ctx, { query: listBatchesQuery });
    ctx.body = pageBody(await messages.listBatches(callerOf(ctx).userId, query), batchView);
  });

  router.get('/batches/:id', auth.scope('read'), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    const { batch, messages: rows } = await messages.getBatch(callerOf(ctx).userId, params.id);
    ctx.body = { batch: batchView(batch), messages: rows.map(messageView) };
  });

  router.post('/batches/:id/cancel', auth.scope('send'), async (ctx) => {
    const { params } = await validate(ctx, { params: pathId() });
    ctx.body = { batch: batchView(await messages.cancel(callerOf(ctx).userId, params.id)) };
  });

  router.post(
    '/batches/:id/retry-failed',
    countRefusals(metrics.sends.refused),
    auth.scope('send'),
    idempotency.key(),
    async (ctx) => {
      const { params } = await validate(ctx, { params: pathId() });
      const { batch, messageIds } = await messages.retryFailed(callerOf(ctx).userId, params.id);
      ctx.status = 202;
      ctx.body = { batch: batchView(batch), message_ids: messageIds };
    },
  );

  router.get('/stats', auth.scope('read'), async (ctx) => {
    ctx.body = await messages.stats(callerOf(ctx).userId);
  });

  router.get('/stats/daily', auth.scope('read'), async (ctx) => {
    const { query } = await validate(ctx, { query: dailyStatsQuery });
    ctx.body = dailyStatsView(await messages.dailyStats(callerOf(ctx).userId, query));
  });

  return router;
}
