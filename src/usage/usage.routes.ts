import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { validate } from '../http/validate';
import { usageQuery } from './usage.schemas';
import type { UsageService } from './usage.service';
import { usageCsv, usageFileName, usageView } from './usage.views';

/** The account's texts per day or per month, as JSON or as a CSV file to keep. */
export function usageRoutes({ auth, usage }: { auth: Auth; usage: UsageService }): Router {
  const router = new Router();

  router.get('/usage', auth.scope('read'), async (ctx) => {
    const { query } = await validate(ctx, { query: usageQuery });
    const counted = await usage.usage(callerOf(ctx).userId, query);
    // `format` wins; without it, a client that asks for CSV alone gets CSV.
    const csv = query.format ? query.format === 'csv' : ctx.accepts('application/json', 'text/csv') === 'text/csv';
    ctx.vary('Accept');
    if (!csv) {
      ctx.body = usageView(counted);
      return;
    }
    ctx.type = 'text/csv; charset=utf-8';
    ctx.attachment(usageFileName(counted));
    ctx.body = usageCsv(counted);
  });

  return router;
}
