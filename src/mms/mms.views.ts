import type { AttachmentRow } from './mms.repository';

/** An attachment as a message lists it (GET /v1/messages, message.received). */
export const attachmentView = (row: AttachmentRow) => ({
  id: row.id,
  part_id: row.partId,
  content_type: row.contentType,
  name: row.name,
  size: row.size,
  stored: row.notStored === null,
  not_stored: row.notStored,
});

/** What an inbound MMS adds to its message resource. */
export const mmsView = (mms: { subject: string | null; attachments: AttachmentRow[] }) => ({
  subject: mms.subject,
  attachments: mms.attachments.map(attachmentView),
});

/** Raster images a browser only draws: the one kind shown inline, in the dashboard and elsewhere. */
const SAFE_INLINE = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp']);

/**
 * The headers an attachment is served with. The bytes are the sender's, so nothing in them may run
 * in the dashboard's origin: anything but a raster image is a download, nothing is sniffed into
 * something else, and the response is sandboxed even if a browser renders it.
 */
export function attachmentHeaders(row: AttachmentRow): Record<string, string> {
  const type = row.contentType.split(';')[0].trim().toLowerCase();
  const name = row.name ?? `attachment-${row.partId}`;
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const disposition = SAFE_INLINE.has(type) ? 'inline' : 'attachment';
  return {
    'Content-Type': SAFE_INLINE.has(type)
      ? type
      : /^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type)
        ? type
        : 'application/octet-stream',
    'Content-Disposition': `${disposition}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`,
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "sandbox; default-src 'none'",
    'Cache-Control': 'private, max-age=0, no-cache',
  };
}

/** mms:received: an MMS the phone was told of and has not downloaded yet (nothing is stored). */
export interface MmsNotice {
  messageId: string;
  sender: string;
  recipient?: string | null;
  simNumber?: number | null;
  transactionId: string;
  subject?: string | null;
  size: number;
  contentClass?: string | null;
  receivedAt: string;
}

/** The data of an mms.received event. */
export const mmsNoticeView = (deviceId: string, notice: MmsNotice, receivedAt: string) => ({
  device_id: deviceId,
  phone_message_id: notice.messageId,
  sender: notice.sender,
  recipient: notice.recipient ?? null,
  sim_subscription_id: notice.simNumber ?? null,
  transaction_id: notice.transactionId,
  subject: notice.subject ?? null,
  size: notice.size,
  content_class: notice.contentClass ?? null,
  received_at: receivedAt,
});
