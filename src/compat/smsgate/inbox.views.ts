import type { Message } from '../../messages/message.entity';

/**
 * A received text as SMSGate's inbox lists it (client-go IncomingMessage; Go's `omitempty` fields
 * left out when empty). Every text here is an SMS: an MMS is kept as its text alone.
 */
export const incomingMessageView = (message: Message) => ({
  id: message.id,
  type: 'SMS' as const,
  sender: message.sender ?? '',
  ...(message.simSubscriptionId !== null && message.simSubscriptionId !== undefined
    ? { simNumber: message.simSubscriptionId }
    : {}),
  contentPreview: message.body,
  createdAt: (message.receivedAt ?? message.createdAt).toISOString(),
});
