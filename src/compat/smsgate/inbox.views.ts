import type { Message } from '../../messages/message.entity';

/**
 * A received text as SMSGate's inbox lists it (client-go IncomingMessage; Go's `omitempty` fields
 * left out when empty). Every text here is an SMS: an MMS is kept as its text alone.
 */
export const incomingMessageView = (message: Message) => ({
  id: message.id,
  // A data SMS's preview is its bytes, base64, as the app sent them.
  type: message.dataPort != null ? ('DATA_SMS' as const) : ('SMS' as const),
  sender: message.sender ?? '',
  ...(message.simSubscriptionId !== null && message.simSubscriptionId !== undefined ? { simNumber: message.simSubscriptionId } : {}),
  contentPreview: message.body,
  createdAt: (message.receivedAt ?? message.createdAt).toISOString(),
});
