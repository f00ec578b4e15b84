import { messageView } from '../messages/messages.views';
import type { Conversation } from './conversations.repository';

export const conversationView = (c: Conversation) => ({
  contact: c.contact,
  last_message: messageView(c.last),
  text_count: c.texts,
  received_count: c.received,
  last_received_at: c.lastReceivedAt.toISOString(),
});
