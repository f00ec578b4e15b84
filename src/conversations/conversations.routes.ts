import Router from '@koa/router';
import { callerOf, type Auth } from '../http/auth';
import { pageBody } from '../http/pagination';
import { validate } from '../http/validate';
import { listConversationsQuery } from './conversations.schemas';
import type { ConversationsService } from './conversations.service';
import { conversationView } from './conversations.views';

/** The account's conversations, one per number that texted it (the dashboard's Inbox). */
export function conversationsRoutes({
  auth,
  conversations,
}: {
  auth: Auth;
  conversations: ConversationsService;
}): Router {
  const router = new Router();

  router.get('/conversations', auth.scope('read'), async (ctx) => {
    const { query } = await validate(ctx, { query: listConversationsQuery });
    ctx.body = pageBody(await conversations.list(callerOf(ctx).userId, query), conversationView);
  });

  return router;
}
