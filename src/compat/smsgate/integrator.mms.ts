import type { Event } from '../../events/event.entity';
import type { attachmentView } from '../../mms/mms.views';

// SMSGate's mms:received and mms:downloaded payloads (client-go dto_webhooks.go MmsReceivedPayload,
// MmsDownloadedPayload) from our mms.received and mms.downloaded events.

interface MmsNoticeData {
  phone_message_id: string;
  sender: string;
  recipient: string | null;
  transaction_id: string;
  subject: string | null;
  size: number;
  content_class: string | null;
  received_at: string;
}

interface MmsMessageData {
  sender: string | null;
  body: string;
  subject: string | null;
  attachments: ReturnType<typeof attachmentView>[];
  received_at: string | null;
  created_at: string;
}

/** The MMS's own text: our message's body is its subject and text on lines of their own. */
function textOf(data: MmsMessageData): string | undefined {
  const { subject, body } = data;
  if (!subject || !subject.trim()) return body || undefined;
  if (body === subject) return undefined;
  return body.startsWith(`${subject}\n`) ? body.slice(subject.length + 1) : body || undefined;
}

/**
 * The payload of their mms:* event. An attachment's bytes are not in it (their `data` is optional):
 * a stored one is fetched from GET /inbox/{messageId}/attachments/{partId}.
 */
export function mmsPayloadOf(event: Event, base: { messageId: string; phoneNumber: string }): Record<string, unknown> {
  if (event.name === 'mms.received') {
    const d = event.data as unknown as MmsNoticeData & { sim_subscription_id?: number | null };
    return {
      ...base,
      messageId: d.phone_message_id,
      phoneNumber: d.sender,
      sender: d.sender,
      ...(d.recipient ? { recipient: d.recipient } : {}),
      transactionId: d.transaction_id,
      ...(d.subject ? { subject: d.subject } : {}),
      contentClass: d.content_class ?? '',
      size: d.size,
      receivedAt: d.received_at,
    };
  }
  const d = event.data as unknown as MmsMessageData;
  const text = textOf(d);
  return {
    ...base,
    sender: d.sender ?? '',
    ...(d.subject ? { subject: d.subject } : {}),
    ...(text !== undefined ? { body: text } : {}),
    attachments: (d.attachments ?? []).map((a) => ({
      partId: a.part_id,
      contentType: a.content_type,
      ...(a.name ? { name: a.name } : {}),
      size: a.size,
    })),
    receivedAt: d.received_at ?? d.created_at,
  };
}
