import type { EntityManager } from '@mikro-orm/postgresql';
import { conversationsRepository } from './conversations.repository';
import type { ListConversationsQuery } from './conversations.schemas';

/** The Inbox's conversations: received texts grouped by the number that sent them. */
export function createConversationsService({ em }: { em: () => EntityManager }) {
  return {
    list: (userId: string, query: ListConversationsQuery) =>
      conversationsRepository.page(em(), userId, { q: query.q, cursor: query.cursor, limit: query.limit }),
  };
}

export type ConversationsService = ReturnType<typeof createConversationsService>;
