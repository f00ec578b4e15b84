import type { Message } from '../../messages/message.entity';
import type { AttachmentRow } from '../../mms/mms.repository';

/**
 * A received text as SMSGate's inbox lists it (client-go IncomingMessage; Go's `omitempty` fields
 * left out when empty): an SMS, or a downloaded MMS with, when asked for, the attachments whose bytes
 * are kept (the app's InboxRoutes AttachmentRef).
 */
export const incomingMessageView = (
  message: Message,
  mms?: { attachments: AttachmentRow[] },
  withAttachments = false,
) => ({
  id: message.id,
  // A data SMS's preview is its bytes, base64, as the app sent them.
  type: mms ? ('MMS_DOWNLOADED' as const) : message.dataPort != null ? ('DATA_SMS' as const) : ('SMS' as const),
  sender: message.sender ?? '',
  ...(message.simSubscriptionId !== null && message.simSubscriptionId !== undefined
    ? { simNumber: message.simSubscriptionId }
    : {}),
  contentPreview: message.body,
  createdAt: (message.receivedAt ?? message.createdAt).toISOString(),
  ...(withAttachments
    ? {
        attachments: (mms?.attachments ?? [])
          .filter((row) => row.notStored === null)
          .map((row) => ({
            partId: row.partId,
            name: row.name || 'attachment',
            size: row.size,
            contentType: row.contentType,
          })),
      }
    : {}),
});
