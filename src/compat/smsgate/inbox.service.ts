import type { EntityManager } from '@mikro-orm/postgresql';
import { inboxRepository } from './inbox.repository';
import type { InboxQuery } from './integrator.schemas';
import { incomingMessageView } from './inbox.views';

/**
 * SMSGate's inbox list (GET /inbox) on our received texts: the account's, newest first, by offset.
 * A received message is an SMS or a data SMS here, so a filter on another type (MMS) matches nothing.
 */
export function createInboxService({ em }: { em: () => EntityManager }) {
  return {
    async list(userId: string, query: InboxQuery) {
      if (query.type !== undefined && query.type !== 'SMS' && query.type !== 'DATA_SMS') return { items: [], total: 0 };
      const { messages, total } = await inboxRepository.received(em(), {
        userId,
        from: query.from,
        to: query.to,
        deviceId: query.deviceId,
        data: query.type === undefined ? undefined : query.type === 'DATA_SMS',
        limit: query.limit,
        offset: query.offset,
      });
      return { items: messages.map(incomingMessageView), total };
    },
  };
}

export type InboxService = ReturnType<typeof createInboxService>;
