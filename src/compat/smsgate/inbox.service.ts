import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiError, notFound } from '../../http/errors';
import type { MmsService } from '../../mms/mms.service';
import { inboxRepository } from './inbox.repository';
import type { InboxQuery } from './integrator.schemas';
import { incomingMessageView } from './inbox.views';

/** Their types we keep: a text is an SMS, a data SMS a DATA_SMS, a downloaded MMS (src/mms/) an MMS_DOWNLOADED. */
const KEPT = { SMS: true, DATA_SMS: true, MMS_DOWNLOADED: true } as const;
type Kept = keyof typeof KEPT;

/**
 * SMSGate's inbox list (GET /inbox) on our received texts: the account's, newest first, by offset.
 * A filter on a type not kept here (an MMS not downloaded) matches nothing.
 */
export function createInboxService({ em, mms }: { em: () => EntityManager; mms: MmsService }) {
  return {
    async list(userId: string, query: InboxQuery) {
      if (query.type !== undefined && !(query.type in KEPT)) return { items: [], total: 0 };
      const { messages, total } = await inboxRepository.received(em(), {
        userId,
        from: query.from,
        to: query.to,
        deviceId: query.deviceId,
        kind: query.type === undefined ? undefined : (query.type as Kept),
        limit: query.limit,
        offset: query.offset,
      });
      const found = await mms.rowsOf(
        userId,
        messages.map((message) => message.id),
      );
      return {
        items: messages.map((message) =>
          incomingMessageView(message, found.get(message.id), query.includeAttachments ?? false),
        ),
        total,
      };
    },

    /** GET /inbox/{id}/attachments/{partId}: one attachment's bytes; not kept (quota, retention) is 404 as theirs. */
    async attachment(userId: string, messageId: string, partId: number) {
      try {
        return await mms.content(userId, messageId, { partId });
      } catch (error) {
        if (error instanceof ApiError && error.status === 410) throw notFound('attachment');
        throw error;
      }
    },
  };
}

export type InboxService = ReturnType<typeof createInboxService>;
