import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { validate } from '../http/validate';
import { attachmentParams } from './mms.schemas';
import type { MmsService } from './mms.service';
import { attachmentHeaders } from './mms.views';

export function mmsRoutes({ auth, mms }: { auth: Auth; mms: MmsService }): Router {
  const router = new Router();

  // The bytes of one attachment of a received MMS of the account.
  router.get('/messages/:id/attachments/:attachment_id', auth.scope('read'), async (ctx) => {
    const { params } = await validate(ctx, { params: attachmentParams });
    const row = await mms.content(callerOf(ctx).userId, params.id, { id: params.attachment_id });
    ctx.set(attachmentHeaders(row));
    ctx.body = row.data;
  });

  return router;
}
